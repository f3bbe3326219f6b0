/* tictactoe.js: the 3x3 board. In stress mode (a cap on marks) the mark the
 * next move removes is drawn faded. Against the view drawn before (`prev`,
 * null at first): a mark that is gone is left as a faded ghost (a move
 * undone by a reorg, or a mark removed by the cap), and a mark that came
 * back with a rollback is highlighted. */
"use strict";
kdapp.renderers.tictactoe = (v, prev) => {
  const sym = ["", "X", "O"];
  const next = v.next_to_remove;
  const recent = v.recent_moves || [];
  const newest = recent.length ? recent[recent.length - 1] : null;
  const before = prev && prev.episode_id === v.episode_id && prev.board ? prev.board : null;
  return kdapp.grid(3, 3, "ttt", (r, c, d) => {
    const now = v.board[r][c], was = before ? before[r][c] : now;
    d.textContent = sym[now] || sym[was] || "";
    if (!now && was) d.classList.add("gone");
    if (now && !was && v.last_event === "rollback") d.classList.add("back");
    if (next && next.row === r && next.col === c) d.classList.add("fade");
    if (newest && newest.row === r && newest.col === c) d.classList.add("last");
  });
};
/* The recent moves (in stress mode the marks still on the board), oldest first. */
kdapp.moveNotes.tictactoe = (v) => (v.recent_moves || []).map((m) => m.player + "(" + m.row + "," + m.col + ")");

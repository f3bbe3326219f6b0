/* tictactoe.js: the 3x3 board. In stress mode (a cap on marks) the mark the
 * next move removes is drawn faded. Against the view drawn before (`prev`,
 * null at first): a mark that is gone is left as a faded ghost (a move
 * undone by a reorg, or a mark removed by the cap), and a mark that came
 * back with a rollback is highlighted. A winning line is marked. The rule
 * in force ("at most 6 marks; X at (0,0) goes next") and a legend of these
 * marks are registered for the page and the widget. */
"use strict";
kdapp.renderers.tictactoe = (v, prev) => {
  const sym = ["", "X", "O"];
  const next = v.next_to_remove;
  const recent = v.recent_moves || [];
  const newest = recent.length ? recent[recent.length - 1] : null;
  const before = prev && prev.episode_id === v.episode_id && prev.board ? prev.board : null;
  const won = kdapp.lines(v.board, 3);
  return kdapp.grid(3, 3, "ttt", (r, c, d) => {
    const now = v.board[r][c], was = before ? before[r][c] : now;
    d.textContent = sym[now] || sym[was] || "";
    if (!now && was) d.classList.add("gone");
    if (now && !was && v.last_event === "rollback") d.classList.add("back");
    if (next && next.row === r && next.col === c) d.classList.add("fade");
    if (newest && newest.row === r && newest.col === c) d.classList.add("last");
    if (won.has(r + "," + c)) d.classList.add("win");
  });
};
/* The recent moves (in stress mode the marks still on the board), oldest first. */
kdapp.moveNotes.tictactoe = (v) => (v.recent_moves || []).map((m) => m.player + "(" + m.row + "," + m.col + ")");
kdapp.ruleNow.tictactoe = (v) => {
  if (v.cap === null || v.cap === undefined) return "classic: three in a row wins; a full board is a draw";
  const n = v.next_to_remove;
  const on = (v.recent_moves || []).length;
  return "at most " + v.cap + " marks; " + (n ? n.player + " at (" + n.row + "," + n.col + ") goes next"
    : (v.cap - on) + " more before the oldest is removed") + " (three in a row wins; no draw)";
};
kdapp.legends.tictactoe = (v) => {
  const items = [["ttt", "last", "X", "the last move"], ["ttt", "win", "X", "a winning line"]];
  if (v.cap !== null && v.cap !== undefined) {
    items.push(["ttt", "fade", "X", "the mark the next move removes (the oldest)"]);
    items.push(["ttt", "gone", "O", "a mark gone: removed by the cap, or its move undone by a reorg"]);
  } else {
    items.push(["ttt", "gone", "O", "a mark gone: its move undone by a reorg"]);
  }
  items.push(["ttt", "back", "X", "a mark back on the board after a rollback"]);
  return items;
};

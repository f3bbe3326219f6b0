/* tictactoe.js: the 3x3 board; in stress mode (a cap on marks) the mark
 * that the next move removes is drawn faded. */
"use strict";
kdapp.renderers.tictactoe = (v) => {
  const sym = ["", "X", "O"];
  const next = v.next_to_remove;
  const recent = v.recent_moves || [];
  const newest = recent.length ? recent[recent.length - 1] : null;
  return kdapp.grid(3, 3, "ttt", (r, c, d) => {
    d.textContent = sym[v.board[r][c]] || "";
    if (next && next.row === r && next.col === c) d.classList.add("fade");
    if (newest && newest.row === r && newest.col === c) d.classList.add("last");
  });
};

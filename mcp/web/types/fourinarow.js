/* fourinarow.js: the 6x7 grid, top row first, the last disc outlined.
 * Against the view drawn before (`prev`): a disc that is gone (a move
 * undone by a reorg) is left as a faded ghost. */
"use strict";
kdapp.renderers.fourinarow = (v, prev) => {
  const rows = v.board.length, cols = v.board[0].length;
  const before = prev && prev.episode_id === v.episode_id && prev.board ? prev.board : null;
  let lastRow = -1;
  if (v.last_column !== null)
    for (let r = 0; r < rows && lastRow < 0; r++) if (v.board[r][v.last_column]) lastRow = r;
  return kdapp.grid(rows, cols, "fiar", (r, c, d) => {
    const p = v.board[r][c] || (before ? before[r][c] : 0);
    if (p) d.appendChild(kdapp.el("div", "disc " + (p === 1 ? "red" : "yellow")));
    if (!v.board[r][c] && p) d.classList.add("gone");
    if (r === lastRow && c === v.last_column) d.classList.add("last");
  });
};
kdapp.moveNotes.fourinarow = (v) => (v.last_column !== null ? ["column " + v.last_column] : []);

/* fourinarow.js: the 6x7 grid, top row first, the last disc outlined. */
"use strict";
kdapp.renderers.fourinarow = (v) => {
  const rows = v.board.length, cols = v.board[0].length;
  let lastRow = -1;
  if (v.last_column !== null)
    for (let r = 0; r < rows && lastRow < 0; r++) if (v.board[r][v.last_column]) lastRow = r;
  return kdapp.grid(rows, cols, "fiar", (r, c, d) => {
    const p = v.board[r][c];
    if (p) d.appendChild(kdapp.el("div", "disc " + (p === 1 ? "red" : "yellow")));
    if (r === lastRow && c === v.last_column) d.classList.add("last");
  });
};

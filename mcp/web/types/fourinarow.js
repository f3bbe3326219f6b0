/* fourinarow.js: the 6x7 grid, top row first, the last disc outlined, the
 * four in a row of a win marked. Against the view drawn before (`prev`): a
 * disc that is gone (a move undone by a reorg) is left as a faded ghost. */
"use strict";
kdapp.renderers.fourinarow = (v, prev) => {
  const rows = v.board.length, cols = v.board[0].length;
  const before = prev && prev.episode_id === v.episode_id && prev.board ? prev.board : null;
  const won = kdapp.lines(v.board, 4);
  let lastRow = -1;
  if (v.last_column !== null)
    for (let r = 0; r < rows && lastRow < 0; r++) if (v.board[r][v.last_column]) lastRow = r;
  return kdapp.grid(rows, cols, "fiar", (r, c, d) => {
    const p = v.board[r][c] || (before ? before[r][c] : 0);
    if (p) d.appendChild(kdapp.el("div", "disc " + (p === 1 ? "red" : "yellow")));
    if (!v.board[r][c] && p) d.classList.add("gone");
    if (r === lastRow && c === v.last_column) d.classList.add("last");
    if (won.has(r + "," + c)) d.classList.add("win");
  });
};
kdapp.moveNotes.fourinarow = (v) => (v.last_column !== null ? ["column " + v.last_column] : []);
kdapp.ruleNow.fourinarow = () => "a disc drops to the lowest free cell of its column; four in a row wins; a full board is a draw";
kdapp.legends.fourinarow = () => {
  const disc = (cls) => kdapp.el("div", "disc " + cls);
  return [["fiar", "last", disc("red"), "the last disc"], ["fiar", "win", disc("yellow"), "four in a row"],
    ["fiar", "gone", disc("red"), "a disc gone: its move undone by a reorg"]];
};

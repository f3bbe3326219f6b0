/* checkers.js: the 8x8 board from the view's rows (rank 8 first): w/b men,
 * W/B kings on the dark squares. */
"use strict";
kdapp.renderers.checkers = (v) => {
  const glyph = { w: "⛀", W: "⛁", b: "⛂", B: "⛃" };
  return kdapp.grid(8, 8, "checkers", (r, c, d) => {
    const ch = v.board[r][c];
    d.classList.add((r + c) % 2 ? "dark" : "light");
    kdapp.label(r, c, d);
    if (glyph[ch]) {
      d.textContent = glyph[ch];
      d.classList.add(ch.toLowerCase() === "w" ? "piece-w" : "piece-b");
    }
  });
};

/* checkers.js: the 8x8 board from the view's rows (rank 8 first): w/b men,
 * W/B kings on the dark squares; the squares the last move visited
 * ("b6d4f2") outlined. */
"use strict";
kdapp.renderers.checkers = (v) => {
  const glyph = { w: "⛀", W: "⛁", b: "⛂", B: "⛃" };
  const visited = new Set();
  for (const sq of (v.last_move || "").match(/[a-h][1-8]/g) || []) visited.add((8 - Number(sq[1])) * 8 + (sq.charCodeAt(0) - 97));
  return kdapp.grid(8, 8, "checkers", (r, c, d) => {
    if (visited.has(r * 8 + c)) d.classList.add("last");
    const ch = v.board[r][c];
    d.classList.add((r + c) % 2 ? "dark" : "light");
    kdapp.label(r, c, d);
    if (glyph[ch]) {
      d.textContent = glyph[ch];
      d.classList.add(ch.toLowerCase() === "w" ? "piece-w" : "piece-b");
    }
  });
};
kdapp.moveNotes.checkers = (v) => (v.last_move ? [v.last_move] : []);

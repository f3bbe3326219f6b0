/* checkers.js: the 8x8 board from the view's rows (rank 8 first): w/b men
 * as plain discs, W/B kings as discs with a gold ring and a crown, on the
 * dark squares; the squares the last move visited ("b6d4f2") outlined. */
"use strict";
(() => {
  /* A man or a king of a colour ("w" or "b"). */
  function piece(ch) {
    const king = ch === "W" || ch === "B";
    const p = kdapp.el("div", (king ? "king" : "man") + " " + (ch.toLowerCase() === "w" ? "white" : "black"));
    if (king) p.appendChild(kdapp.svg("svg", { viewBox: "0 0 20 14", class: "crown" }, [
      kdapp.svg("path", { d: "M1 13 L2 3 L6.5 8 L10 1 L13.5 8 L18 3 L19 13 Z" })]));
    return p;
  }

  kdapp.renderers.checkers = (v) => {
    const visited = new Set();
    for (const sq of (v.last_move || "").match(/[a-h][1-8]/g) || []) visited.add((8 - Number(sq[1])) * 8 + (sq.charCodeAt(0) - 97));
    return kdapp.grid(8, 8, "checkers", (r, c, d) => {
      if (visited.has(r * 8 + c)) d.classList.add("last");
      const ch = v.board[r][c];
      d.classList.add((r + c) % 2 ? "dark" : "light");
      kdapp.label(r, c, d);
      if ("wWbB".includes(ch) && ch) {
        d.appendChild(piece(ch));
        d.classList.add(ch.toLowerCase() === "w" ? "piece-w" : "piece-b");
      }
    });
  };
  kdapp.moveNotes.checkers = (v) => (v.last_move ? [v.last_move] : []);
  kdapp.ruleNow.checkers = (v) => (v.move_rules && v.move_rules.must_capture
    ? "a capture is possible, so a capture must be made (the longest is not required)"
    : "captures are mandatory; a man reaching the far rank is crowned a king, which moves both ways");
  kdapp.legends.checkers = () => [["checkers", "dark", piece("w"), "a man (white)"], ["checkers", "dark", piece("B"), "a king (black): crowned"],
    ["checkers", "dark last", "", "a square the last move visited"]];
})();

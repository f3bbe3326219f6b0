/* chess.js: the board from the view's FEN (rank 8 first), the last move's
 * squares outlined, a king in check ringed and a checkmated one marked. */
"use strict";
kdapp.renderers.chess = (v) => {
  const glyph = { K: "♚", Q: "♛", R: "♜", B: "♝", N: "♞", P: "♟" };
  const fields = v.fen.split(" ");
  const rows = fields[0].split("/").map((rank) => {
    const out = [];
    for (const ch of rank) {
      if (ch >= "1" && ch <= "8") for (let i = 0; i < Number(ch); i++) out.push("");
      else out.push(ch);
    }
    return out;
  });
  const king = fields[1] === "b" ? "k" : "K"; /* the king of the side to move */
  const mated = v.status === "checkmate", checked = mated || v.check;
  const marked = new Set();
  if (v.last_move && v.last_move.uci) {
    const u = v.last_move.uci;
    for (const sq of [u.slice(0, 2), u.slice(2, 4)]) marked.add((8 - Number(sq[1])) * 8 + (sq.charCodeAt(0) - 97));
  }
  return kdapp.grid(8, 8, "chess", (r, c, d) => {
    const p = rows[r][c];
    d.classList.add((r + c) % 2 ? "dark" : "light");
    kdapp.label(r, c, d);
    if (p) {
      d.textContent = glyph[p.toUpperCase()];
      d.classList.add(p === p.toUpperCase() ? "piece-w" : "piece-b");
    }
    if (p === king && checked) d.classList.add(mated ? "mated" : "check");
    if (marked.has(r * 8 + c)) d.classList.add("last");
  });
};
kdapp.moveNotes.chess = (v) => (v.last_move ? [v.last_move.san] : []);
kdapp.ruleNow.chess = (v) => (v.status === "checkmate" ? "checkmate: the king in check has no move out of it"
  : v.check ? v.current + " is in check and must get out of it" : "");
kdapp.legends.chess = () => [["chess", "light last", "", "the last move's squares"], ["chess", "dark check piece-w", "♚", "a king in check"],
  ["chess", "light mated piece-b", "♚", "a checkmated king"]];

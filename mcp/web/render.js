/* render.js: what draws a board, shared by the board page and the MCP App
 * widget (ui://kdapp/board.html, which inlines this file, the renderers of
 * types/ and widget.js). A type's renderer, types/<type>.js, registers
 * kdapp.renderers[<type>] = (view, prevView) => element; a type without one
 * is drawn as its text board; it may also register kdapp.moveNotes[<type>]
 * = (view) => the notations of the view's last moves. Nothing here fetches or sends
 * anything. */
"use strict";
const kdapp = (() => {
  function el(tag, cls, text) {
    const e = document.createElement(tag);
    if (cls) e.className = cls;
    if (text !== undefined && text !== null) e.textContent = String(text);
    return e;
  }

  /* A grid of rows x cols cells; cell(r, c, div) fills each. */
  function grid(rows, cols, cls, cell) {
    const g = el("div", "grid " + (cls || ""));
    g.style.gridTemplateColumns = "repeat(" + cols + ", auto)";
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++) {
        const d = el("div", "cell");
        d.dataset.row = r;
        d.dataset.col = c;
        cell(r, c, d);
        g.appendChild(d);
      }
    return g;
  }

  /* Board coordinates on an 8x8 board drawn rank 8 first: the rank on the
   * left column's cells, the file on the bottom row's (app.css draws them). */
  function label(r, c, d) {
    if (c === 0) d.dataset.rank = 8 - r;
    if (r === 7) d.dataset.file = "abcdefgh"[c];
  }

  /* Whose turn it is, or how the game ended, in words. */
  function turn(v) {
    if (v.deleted) return "deleted (its creation was reverted)";
    if (v.phase !== "in_progress") return v.phase + (v.winner !== null ? ": " + v.seats[v.winner] + " won" : "");
    return v.to_move !== null ? v.seats[v.to_move] + " to move" : "nobody to move";
  }

  /* The position a view reflects, in words: the log entry that changed the
   * episode last and the chain height after it (the digest shown beside
   * it is the one after that entry), and whether a reorg can still undo it. */
  function position(v) {
    return "log entry " + v.log_seq + ", block height " + v.height + (v.final ? " (final)" : " (a reorg may still undo it)");
  }

  /* The board of view `v` (against `prev`, the view drawn before, or null):
   * the type's renderer when it has one, else `text` (the text board). */
  function board(v, prev, text) {
    let drawn = null;
    const r = !v.deleted && renderers[v.type];
    if (r) {
      try {
        drawn = r(v, prev && prev.episode_id === v.episode_id ? prev : null);
      } catch (e) {
        drawn = null;
      }
    }
    if (!drawn) drawn = el("pre", "text", text || "");
    drawn.id = "drawn";
    return drawn;
  }

  /* The last moves of view `v` in the type's notation, oldest first, as its
   * type tells them (kdapp.moveNotes[<type>] = (view) => [notation, ...]);
   * [] when it does not. */
  function lastMoves(v) {
    const f = !v.deleted && moveNotes[v.type];
    return (f && f(v)) || [];
  }

  /* One playing card, "Td", "10S" or "3h" -> "10♦" (a rank, then a suit letter
   * of either case; red for hearts and diamonds); null or "": its back. */
  const SUITS = { s: "\u2660", h: "\u2665", d: "\u2666", c: "\u2663" };
  function card(text) {
    if (!text) return el("span", "card back", "\u00a0");
    const suit = text.slice(-1).toLowerCase(), rank = text.slice(0, -1);
    return el("span", "card " + (suit === "h" || suit === "d" ? "red" : "black"), (rank === "T" ? "10" : rank) + (SUITS[suit] || suit));
  }

  /* A row of `n` cards (default: as many as `list` has), list[i] face up, the rest face down. */
  function cards(list, n) {
    const row = el("span", "cards");
    const count = n === undefined ? (list ? list.length : 0) : n;
    for (let i = 0; i < count; i++) row.appendChild(card(list && list[i]));
    return row;
  }

  const renderers = {}, moveNotes = {};
  return { el, grid, label, turn, position, board, lastMoves, card, cards, renderers, moveNotes };
})();

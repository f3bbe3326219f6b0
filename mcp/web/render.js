/* render.js: what draws a board, shared by the board page and the MCP App
 * widget (ui://kdapp/board.html, which inlines this file, the renderers of
 * types/ and widget.js). A type's renderer, types/<type>.js, registers
 * kdapp.renderers[<type>] = (view, prevView) => element; a type without one
 * is drawn as its text board; it may also register kdapp.moveNotes[<type>]
 * = (view) => the notations of the view's last moves, kdapp.ruleNow[<type>]
 * = (view) => the rule in force in words ("at most 6 marks; X at (0,0) goes
 * next"), and kdapp.legends[<type>] = (view) => the marks its board uses,
 * [[grid class, cell classes, sample, meaning], ...], each drawn as a cell
 * of that grid so the legend looks exactly like the board. Nothing here
 * fetches or sends anything. */
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

  /* A code word of a view ("house_forfeit") in words ("house forfeit"). */
  function words(code) {
    return String(code).replace(/_/g, " ");
  }

  /* Whose turn it is, or how the game ended, in words: "X to move", "O won",
   * "white won (checkmate)", "a draw (stalemate)"; never a code word such as
   * o_won. A type's status that only repeats the outcome is left out. */
  function turn(v) {
    if (v.deleted) return "deleted (its creation was reverted)";
    const st = v.status && typeof v.status === "string" ? v.status : "";
    const says = st && !/^(in_progress|won|draw|finished|over)$/.test(st) && !/_won$/.test(st) && !/^won_/.test(st);
    const detail = says ? " (" + words(st) + ")" : "";
    if (v.phase === "won") return (v.winner !== null && v.seats[v.winner] ? v.seats[v.winner] : "a seat") + " won" + detail;
    if (v.phase === "draw") return "a draw" + detail;
    if (v.to_move !== null) return v.seats[v.to_move] + " to move" + (v.check ? ", in check" : "");
    return "in progress: waiting for a seat's answer";
  }

  /* The rule in force, in words, as the type tells it; "" when it says nothing. */
  function rule(v) {
    const f = !v.deleted && ruleNow[v.type];
    try {
      return (f && f(v)) || "";
    } catch (e) {
      return "";
    }
  }

  /* The legend of the marks on the type's board, or null when it has none:
   * each entry a cell drawn with the board's own classes, and its meaning. */
  function legend(v) {
    const f = !v.deleted && legends[v.type];
    let items = null;
    try {
      items = f && f(v);
    } catch (e) {
      items = null;
    }
    if (!items || !items.length) return null;
    const box = el("dl", "legend");
    for (const [gridCls, cellCls, sample, meaning] of items) {
      const dt = el("dt");
      dt.appendChild(grid(1, 1, (gridCls || "") + " swatch", (r, c, d) => {
        for (const k of (cellCls || "").split(" ").filter(Boolean)) d.classList.add(k);
        if (sample instanceof Node) d.appendChild(sample);
        else if (sample) d.textContent = sample;
      }));
      box.appendChild(dt);
      box.appendChild(el("dd", null, meaning));
    }
    return box;
  }

  /* The cells of the lines of `n` equal non-empty entries in `board` (rows
   * of columns): a winning line of tic-tac-toe (n 3) or four in a row (n 4),
   * as "row,col" strings. */
  function lines(board, n) {
    const out = new Set(), rows = board.length, cols = rows ? board[0].length : 0;
    for (let r = 0; r < rows; r++)
      for (let c = 0; c < cols; c++)
        for (const [dr, dc] of [[0, 1], [1, 0], [1, 1], [1, -1]]) {
          const p = board[r][c];
          if (!p) continue;
          const cells = [];
          for (let k = 0; k < n; k++) {
            const rr = r + dr * k, cc = c + dc * k;
            if (rr < 0 || rr >= rows || cc < 0 || cc >= cols || board[rr][cc] !== p) break;
            cells.push(rr + "," + cc);
          }
          if (cells.length === n) for (const x of cells) out.add(x);
        }
    return out;
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

  /* An SVG element with attributes (svg("circle", {cx: 5, r: 4})). */
  function svg(tag, attrs, children) {
    const e = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const k of Object.keys(attrs || {})) e.setAttribute(k, attrs[k]);
    for (const c of children || []) e.appendChild(c);
    return e;
  }

  const renderers = {}, moveNotes = {}, ruleNow = {}, legends = {};
  return { el, grid, label, turn, words, rule, legend, lines, svg, position, board, lastMoves, card, cards, renderers, moveNotes, ruleNow, legends };
})();

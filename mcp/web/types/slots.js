/* slots.js: the three reels, each showing the symbol at its stop (drawn as
 * SVG; the stop's number under it), the line outlined when it paid; the bet and the
 * win of the last spin, the credits, and a bet waiting for the house's
 * reveal shown as reels still spinning. */
"use strict";
(() => {
  /* Each symbol drawn as SVG, so no font is needed (the bell's glyph drew
   * as an empty box in Debian's Chromium): shapes in a 40x40 box. */
  const S = kdapp.svg;
  const SHAPES = {
    cherry: () => [S("path", { d: "M14 26 C16 14 22 8 30 5 M26 26 C25 16 27 10 30 5", stroke: "#2e7d32", "stroke-width": 2.5, fill: "none" }),
      S("circle", { cx: 13, cy: 29, r: 7, fill: "#c0272d" }), S("circle", { cx: 27, cy: 29, r: 7, fill: "#c0272d" })],
    lemon: () => [S("ellipse", { cx: 20, cy: 21, rx: 15, ry: 10, fill: "#e6d200", stroke: "#b3a300", "stroke-width": 1.5 })],
    orange: () => [S("circle", { cx: 20, cy: 22, r: 13, fill: "#f08a00" }), S("path", { d: "M20 9 C24 4 30 5 31 6 C28 10 24 11 20 9 Z", fill: "#2e7d32" })],
    plum: () => [S("ellipse", { cx: 20, cy: 22, rx: 11, ry: 14, fill: "#6a2c91" }), S("path", { d: "M20 8 L22 3", stroke: "#5d4037", "stroke-width": 2 })],
    bell: () => [S("path", { d: "M20 5 C12 5 10 12 10 20 L10 27 L6 31 L34 31 L30 27 L30 20 C30 12 28 5 20 5 Z", fill: "#e0b020", stroke: "#b8860b", "stroke-width": 1.5 }),
      S("circle", { cx: 20, cy: 34, r: 3.5, fill: "#b8860b" })],
    bar: () => [S("rect", { x: 2, y: 11, width: 36, height: 18, rx: 3, fill: "#111" }),
      S("text", { x: 20, y: 25, "text-anchor": "middle", "font-size": 13, "font-weight": "bold", "font-family": "sans-serif", fill: "#fff" })],
    seven: () => [S("path", { d: "M9 6 L32 6 L32 11 L19 36 L12 36 L24 12 L9 12 Z", fill: "#c0272d" })],
  };

  /* The SVG of `symbol`, or a question mark for one the page does not know. */
  function glyph(symbol) {
    const make = SHAPES[symbol];
    if (!make) return kdapp.el("span", "glyph", "?");
    const shapes = make();
    if (symbol === "bar") shapes[1].textContent = "BAR";
    return S("svg", { class: "glyph", viewBox: "0 0 40 40", width: 44, height: 44, role: "img", "aria-label": symbol }, shapes);
  }

  function reel(i, symbol, stop) {
    const r = kdapp.el("div", "reel" + (symbol ? " sym-" + symbol : " spinning"));
    r.dataset.reel = i;
    if (symbol) r.dataset.symbol = symbol;
    r.appendChild(symbol ? glyph(symbol) : kdapp.el("span", "glyph", "?"));
    r.appendChild(kdapp.el("span", "name", symbol || "spinning"));
    if (stop !== null && stop !== undefined) r.appendChild(kdapp.el("span", "stop", "stop " + stop));
    return r;
  }

  kdapp.renderers.slots = (v) => {
    const t = kdapp.el("div", "slots");
    const pending = v.pending_bet !== null && v.pending_bet !== undefined;
    const line = kdapp.el("div", "line" + (!pending && v.last_win > 0 ? " paying" : ""));
    for (let i = 0; i < 3; i++) {
      const sym = !pending && v.last_symbols ? v.last_symbols[i] : null;
      line.appendChild(reel(i, sym, !pending && v.last_stops ? v.last_stops[i] : null));
    }
    t.appendChild(line);
    const facts = [];
    if (pending) facts.push("bet " + v.pending_bet + ": the reels spin, waiting for the house");
    else if (v.last_symbols) facts.push("bet " + v.last_bet + ", " + (v.last_win > 0 ? "the line pays " + v.last_win : "no win"));
    else facts.push("no spin yet");
    t.appendChild(kdapp.el("div", "facts-line result", facts.join("")));
    t.appendChild(kdapp.el("div", "facts-line", "credits " + v.credits + " (started with " + v.start_credits + ") \u00b7 spin " + v.rounds + " of " + v.max_rounds +
      (v.return_to_player ? " \u00b7 returns " + v.return_to_player.percent + "%" : "") + (v.status !== "in_progress" ? " \u00b7 " + v.status : "")));
    return t;
  };
  kdapp.moveNotes.slots = (v) => (v.last_symbols ? [v.last_symbols.join(" ")] : []);
})();

/* slots.js: the three reels, each showing the symbol at its stop (the
 * stop's number under it), the line outlined when it paid; the bet and the
 * win of the last spin, the credits, and a bet waiting for the house's
 * reveal shown as reels still spinning. */
"use strict";
(() => {
  /* A symbol drawn with the page's fonts only: a glyph and its colour (app.css). */
  const GLYPH = { cherry: "\u2764", lemon: "\u25cf", orange: "\u25cf", plum: "\u25cf", bell: "\u237e", bar: "BAR", seven: "7" };

  function reel(i, symbol, stop) {
    const r = kdapp.el("div", "reel" + (symbol ? " sym-" + symbol : " spinning"));
    r.dataset.reel = i;
    if (symbol) r.dataset.symbol = symbol;
    r.appendChild(kdapp.el("span", "glyph", symbol ? GLYPH[symbol] || "?" : "?"));
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

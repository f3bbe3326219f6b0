/* roulette.js: the American table (0 and 00, then 1..36 in three rows of
 * twelve, red and black; the dozens, the columns and the even-money
 * boxes), a chip with its amount on the place of each bet on the table
 * (the pockets an inside bet covers outlined), the winning pocket of the
 * last spin highlighted, the last pockets and the player's chips. */
"use strict";
(() => {
  const RED = new Set([1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36]);
  const colour = (p) => (p === 0 || p === "00" ? "green" : RED.has(p) ? "red" : "black");

  /* The pockets a bet covers (inside bets), by its kind and number(s). */
  function covers(b) {
    const n = b.number;
    switch (b.kind) {
      case "straight": return [n];
      case "split": return b.numbers || [];
      case "street": return [n, n + 1, n + 2];
      case "six_line": return [n, n + 1, n + 2, n + 3, n + 4, n + 5];
      case "corner": return [n, n + 1, n + 3, n + 4];
      case "top_line": return [0, "00", 1, 2, 3];
      default: return [];
    }
  }

  /* The box of an outside bet ("dozen 2", "column 1", "red"); null for an inside bet. */
  function outsideBox(b) {
    if (b.kind === "dozen" || b.kind === "column") return b.kind + " " + b.number;
    return ["red", "black", "odd", "even", "low", "high"].includes(b.kind) ? b.kind : null;
  }

  function chip(amount, title) {
    const c = kdapp.el("span", "chip", amount);
    c.title = title;
    return c;
  }

  kdapp.renderers.roulette = (v) => {
    const bets = v.pending_bets || [];
    const t = kdapp.el("div", "roulette");
    const felt = kdapp.el("div", "felt");
    const cells = new Map(); /* pocket or box name -> its element */
    /* the numbers take two of six row tracks each, so 0 and 00 share their height; the outside boxes follow */
    const box = (key, text, cls, col, row) => {
      const d = kdapp.el("div", "box " + cls, text);
      d.dataset.place = key;
      d.style.gridColumn = col;
      d.style.gridRow = row;
      felt.appendChild(d);
      cells.set(String(key), d);
      return d;
    };
    box(0, "0", "pocket green", "1", "1 / span 3");
    box("00", "00", "pocket green", "1", "4 / span 3");
    for (let n = 1; n <= 36; n++) box(n, String(n), "pocket " + colour(n), String(2 + Math.floor((n - 1) / 3)), (5 - 2 * ((n - 1) % 3)) + " / span 2");
    for (let c = 1; c <= 3; c++) box("column " + c, "2 to 1", "outside", "14", (7 - 2 * c) + " / span 2");
    for (let d = 1; d <= 3; d++) box("dozen " + d, ["1st", "2nd", "3rd"][d - 1] + " 12", "outside", (2 + 4 * (d - 1)) + " / span 4", "7");
    const even = [["low", "1-18"], ["even", "even"], ["red", "\u25c6"], ["black", "\u25c6"], ["odd", "odd"], ["high", "19-36"]];
    even.forEach(([k, text], i) => box(k, text, "outside " + k, (2 + 2 * i) + " / span 2", "8"));

    for (const b of bets) {
      const title = b.kind + (b.numbers ? " " + b.numbers.join("/") : b.number !== undefined ? " " + b.number : "") + ": " + b.amount;
      const outside = outsideBox(b);
      if (outside) {
        cells.get(outside)?.appendChild(chip(b.amount, title));
        continue;
      }
      const covered = covers(b).map(String);
      covered.forEach((p) => cells.get(p)?.classList.add("covered"));
      cells.get(covered[0])?.appendChild(chip(b.amount, title));
    }
    if (v.last_pocket !== null && v.last_pocket !== undefined) cells.get(String(v.last_pocket))?.classList.add("win");
    t.appendChild(felt);

    const facts = [];
    facts.push("chips " + v.chips + " (started with " + v.start_chips + ")");
    facts.push("spin " + v.rounds + " of " + v.max_rounds);
    if (bets.length) facts.push("on the table " + bets.reduce((s, b) => s + b.amount, 0) + ": the wheel spins, waiting for the house");
    t.appendChild(kdapp.el("div", "facts-line", facts.join(" \u00b7 ")));
    const last = kdapp.el("div", "facts-line last-spin");
    if (v.last_pocket !== null && v.last_pocket !== undefined) {
      last.appendChild(kdapp.el("span", null, "last spin "));
      last.appendChild(kdapp.el("span", "pocket-chip " + colour(v.last_pocket), v.last_pocket));
      last.appendChild(kdapp.el("span", null, " staked " + v.last_stake + ", paid back " + v.last_win));
    } else {
      last.textContent = "no spin yet";
    }
    t.appendChild(last);
    const recent = v.recent_pockets || [];
    if (recent.length) {
      const row = kdapp.el("div", "facts-line recent");
      row.appendChild(kdapp.el("span", null, "last pockets "));
      for (const p of recent) row.appendChild(kdapp.el("span", "pocket-chip " + colour(p), p));
      t.appendChild(row);
    }
    return t;
  };
  kdapp.moveNotes.roulette = (v) => (v.last_pocket !== null && v.last_pocket !== undefined ? [String(v.last_pocket)] : []);
})();

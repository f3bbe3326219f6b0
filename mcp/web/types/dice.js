/* dice.js: the dice of the last roll, each die drawn (a d6 with its pips,
 * the others as a shape of their sides with the number), its spec and
 * total; the last rolls below; a roll asked for and not yet revealed is
 * drawn as dice waiting for the house. */
"use strict";
(() => {
  /* The pips of a d6, as cells 0..8 of a 3x3 grid. */
  const PIPS = { 1: [4], 2: [0, 8], 3: [0, 4, 8], 4: [0, 2, 6, 8], 5: [0, 2, 4, 6, 8], 6: [0, 2, 3, 5, 6, 8] };

  /* A die with `sides` sides showing `face` (null: not rolled yet). */
  function die(sides, face) {
    const d = kdapp.el("span", "die d" + sides + (face === null ? " waiting" : ""));
    d.dataset.sides = sides;
    if (face !== null) d.dataset.face = face;
    if (sides === 6 && face !== null && PIPS[face]) {
      d.classList.add("pips");
      for (let i = 0; i < 9; i++) d.appendChild(kdapp.el("span", PIPS[face].includes(i) ? "pip" : ""));
    } else {
      d.textContent = face === null ? "?" : String(face);
    }
    return d;
  }

  /* "3d6+2" -> {count: 3, sides: 6}; null when it is not NdM+K. */
  function spec(text) {
    const m = /^(\d+)d(\d+)/.exec(text || "");
    return m ? { count: Number(m[1]), sides: Number(m[2]) } : null;
  }

  function roll(r, cls) {
    const row = kdapp.el("div", "roll " + cls);
    const s = spec(r.roll);
    const dice = kdapp.el("span", "dice");
    if (cls === "pending") {
      for (let i = 0; s && i < s.count; i++) dice.appendChild(die(s.sides, null));
    } else {
      for (const f of r.dice || []) dice.appendChild(die(s ? s.sides : 0, f));
    }
    row.appendChild(kdapp.el("span", "spec", "#" + r.index + " " + r.roll));
    row.appendChild(dice);
    const total = cls === "pending" ? "waiting for the house's reveal" : r.claimed ? "claimed (the house did not reveal)" : "= " + r.total;
    row.appendChild(kdapp.el("span", "total", total));
    return row;
  }

  kdapp.renderers.dice = (v) => {
    const t = kdapp.el("div", "dice-table");
    t.appendChild(kdapp.el("div", "head", "roll " + v.rolls + " of " + v.max_rolls + (v.status !== "in_progress" ? ", " + v.status : "")));
    if (v.pending_roll) t.appendChild(roll(v.pending_roll, "pending"));
    if (v.last_roll) t.appendChild(roll(v.last_roll, "last"));
    if (!v.pending_roll && !v.last_roll) t.appendChild(kdapp.el("div", "roll none", "no roll yet"));
    const recent = (v.recent_rolls || []).slice(0, -1).reverse();
    if (recent.length) {
      const ol = kdapp.el("div", "recent");
      for (const r of recent) ol.appendChild(roll(r, "earlier"));
      t.appendChild(ol);
    }
    return t;
  };
  kdapp.moveNotes.dice = (v) => (v.last_roll ? [v.last_roll.roll + "=" + (v.last_roll.total === null ? "claimed" : v.last_roll.total)] : []);
})();

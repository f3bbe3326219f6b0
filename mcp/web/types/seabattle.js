/* seabattle.js: both seas, each 10x10 (row 1 first, columns a..j) as the
 * view's board rows tell them: unshot water, misses, hits, the cells of
 * sunk ships and the shot awaiting its answer. A seat's own fleet is drawn
 * on its own sea only when the view carries that seat's own_secret (the
 * gateway adds it only for a session granted the seat): never on the
 * public page. */
"use strict";
(() => {
  const MARK = { o: ["miss", "\u2022"], x: ["hit", "\u2715"], "#": ["sunk", "\u2715"], "?": ["pending", "?"] };

  function sea(v, name, own) {
    const rows = v["board_" + name] || [];
    const fleet = own && own.seat === name && Array.isArray(own.fleet) ? own.fleet : null;
    const box = kdapp.el("div", "sea-box" + (v.shooter && v.shooter !== name && v.stage === "play" ? " targeted" : ""));
    box.dataset.sea = name;
    const sunk = (v.sunk && v.sunk[name]) || [];
    box.appendChild(kdapp.el("div", "sea-title", name + "'s sea" + (fleet ? " (your fleet)" : "") + (sunk.length ? ", " + sunk.length + " sunk" : "")));
    box.appendChild(kdapp.grid(10, 10, "sea " + name, (r, c, d) => {
      if (c === 0) d.dataset.rank = r + 1;
      if (r === 9) d.dataset.file = "abcdefghij"[c];
      const ch = (rows[r] || "")[c] || ".";
      const mark = MARK[ch];
      d.classList.add(mark ? mark[0] : "water");
      if (mark) d.textContent = mark[1];
      if (fleet && fleet[r] && fleet[r][c] >= "1" && fleet[r][c] <= "9") {
        d.classList.add("ship");
        d.dataset.ship = fleet[r][c];
      }
    }));
    return box;
  }

  kdapp.renderers.seabattle = (v) => {
    const t = kdapp.el("div", "seabattle");
    const own = v.own_secret && v.own_secret.seat ? v.own_secret : null;
    const seas = kdapp.el("div", "seas");
    for (const name of v.seats) seas.appendChild(sea(v, name, own));
    t.appendChild(seas);
    const line = [];
    if (v.stage === "play" && v.shooter) line.push(v.shooter + " shoots" + (v.pending_shot ? " at " + v.pending_shot + ": waiting for the answer" : ""));
    else if (v.stage) line.push(v.stage);
    if (v.reason) line.push((v.leader ? v.leader + " wins: " : "") + v.reason.replace(/_/g, " "));
    t.appendChild(kdapp.el("div", "facts-line", line.join(" \u00b7 ")));
    return t;
  };
  kdapp.ruleNow.seabattle = (v) => (v.stage === "play" && v.shooter
    ? v.shooter + " shoots; the target's key holder answers each shot (miss, hit or sunk) from the fleet it committed to"
    : "");
  kdapp.legends.seabattle = (v) => {
    const items = [["sea", "water", "", "water not shot at"], ["sea", "miss", MARK.o[1], "a miss"], ["sea", "hit", MARK.x[1], "a hit"],
      ["sea", "sunk", MARK["#"][1], "a cell of a sunk ship"], ["sea", "pending", MARK["?"][1], "a shot waiting for its answer"]];
    if (v.own_secret && v.own_secret.seat) items.push(["sea", "water ship", "", "your own ship (your seat's view only)"]);
    return items;
  };
})();

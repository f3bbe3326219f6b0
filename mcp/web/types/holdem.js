/* holdem.js: the table of a heads-up hold'em match: the board's five cards
 * (the ones not dealt yet face down), the pot, and for each seat its stack,
 * its bet in this street and its hole cards: face down, face up once shown
 * at the showdown (with the hand's value), and the seat's own two in that
 * seat's own view (own_secret, which the gateway adds only for a session
 * granted the seat), and what the last hand showed. The button, the seat
 * to act and what each seat owes (its shuffles, locks, keys and shows) are
 * marked. */
"use strict";
(() => {
  const cards = kdapp.cards;

  kdapp.renderers.holdem = (v) => {
    const table = kdapp.el("div", "holdem");
    const own = v.own_secret && Array.isArray(v.own_secret.hole) ? v.own_secret : null;
    const seat = (i) => {
      const name = v.seats[i];
      const shown = v.shown && v.shown[name];
      const hole = shown || (own && own.seat === name ? own.hole : null);
      const row = kdapp.el("div", "seat" + (v.to_act === name ? " acting" : ""));
      row.dataset.seat = name;
      row.appendChild(kdapp.el("span", "name", name + (v.button === name ? " (D)" : "")));
      row.appendChild(kdapp.el("span", "stack", "stack " + v.stacks[i]));
      row.appendChild(kdapp.el("span", "bet", v.bets[i] ? "bet " + v.bets[i] : ""));
      row.appendChild(cards(hole, 2));
      const notes = [];
      if (shown && v.hand_values) notes.push(v.hand_values[name]);
      if (v.folded === name) notes.push("folded");
      if (v.owes && v.owes[name] && v.owes[name].length) notes.push("owes " + v.owes[name].join(", "));
      if (v.to_act === name) notes.push("to act");
      row.appendChild(kdapp.el("span", "notes", notes.join(" \u00b7 ")));
      return row;
    };
    table.appendChild(seat(1));
    const middle = kdapp.el("div", "middle");
    middle.appendChild(cards(v.board, 5));
    middle.appendChild(kdapp.el("span", "pot", "pot " + v.pot));
    table.appendChild(middle);
    table.appendChild(seat(0));
    const won = v.last_won && (v.last_won[0] || v.last_won[1])
      ? ", last hand: " + v.seats.map((s, i) => s + " " + (v.last_won[i] > 0 ? "+" : "") + v.last_won[i]).join(", ")
      : "";
    // what the last settled hand showed (a folded or mucked hand shows nothing)
    const last = v.last_hand && v.last_hand.shown
      ? "; " + Object.keys(v.last_hand.shown).map((s) => s + " showed " + v.last_hand.shown[s].join(" ") +
        (v.last_hand.hand_values ? " (" + v.last_hand.hand_values[s] + ")" : "")).join(", ")
      : "";
    table.appendChild(kdapp.el("div", "street", "hand " + v.hand + ", " + v.street + ", blinds " + v.small_blind + "/" +
      v.big_blind + won + last));
    return table;
  };
})();

/* blackjack.js: the table: the shoe (cards left of its size), and for
 * each player the dealer's cards with their total, then the player's
 * hands (cards, total, soft, bet, doubled, outcome; the hand in play
 * marked), its chips, and who acts (the player, or the house: a card or the
 * deal to reveal). */
"use strict";
(() => {
  const WAITING = { deal: "waiting for the house to deal", card: "waiting for the house's card", dealer: "the dealer draws" };

  /* A hand's total in words: "blackjack" for two cards making 21 that are
   * not a split hand's (`natural`), else "soft 17" or "20". */
  function total(h, natural) {
    if (!h.cards || !h.cards.length) return "";
    if (natural && h.cards.length === 2 && h.total === 21) return "blackjack";
    return (h.soft ? "soft " : "") + h.total;
  }

  function hand(name, h, i, active, split) {
    const row = kdapp.el("div", "hand" + (active ? " active" : "") + " outcome-" + h.outcome);
    row.dataset.hand = i;
    row.appendChild(kdapp.el("span", "name", i ? "" : name));
    row.appendChild(kdapp.cards(h.cards));
    row.appendChild(kdapp.el("span", "total", total(h, !split)));
    const notes = ["bet " + h.bet + (h.doubled ? " doubled" : "")];
    if (h.outcome !== "open") notes.push(kdapp.words(h.outcome));
    row.appendChild(kdapp.el("span", "notes", notes.join(" \u00b7 ")));
    return row;
  }

  function player(v, p) {
    const box = kdapp.el("div", "player" + (v.to_move === p.seat && p.await === "player" ? " acting" : ""));
    box.dataset.seat = p.name;
    const dealer = kdapp.el("div", "dealer");
    dealer.appendChild(kdapp.el("span", "name", "dealer"));
    dealer.appendChild(kdapp.cards(p.dealer.cards));
    dealer.appendChild(kdapp.el("span", "total", total(p.dealer, true)));
    box.appendChild(dealer);
    const hands = kdapp.el("div", "hands");
    const split = (p.hands || []).length > 1;
    (p.hands || []).forEach((h, i) => hands.appendChild(hand(p.name, h, i, p.await === "player" && i === p.active_hand, split)));
    box.appendChild(hands);
    const who = p.await === "player" ? p.name + " to act" : WAITING[p.await] || (p.can_bet ? p.name + " to bet" : p.await);
    const net = p.last_net ? ", last round " + (p.last_net > 0 ? "+" : "") + p.last_net : "";
    box.appendChild(kdapp.el("div", "seat-line", p.name + ": chips " + p.chips + ", round " + p.rounds_played + " of " + v.table.rounds + net + " \u00b7 " + who));
    return box;
  }

  kdapp.renderers.blackjack = (v) => {
    const t = kdapp.el("div", "blackjack");
    for (const p of v.players || []) t.appendChild(player(v, p));
    t.appendChild(kdapp.el("div", "shoe", "shoe " + v.shoe.left + " of " + v.shoe.of + " cards (" + v.table.decks + " decks) \u00b7 bets " +
      v.table.min_bet + " to " + v.table.max_bet + (v.over ? " \u00b7 over" : "")));
    return t;
  };
})();

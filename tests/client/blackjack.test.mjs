// blackjack.test.mjs — blackjack end to end through the MCP gateway, driven by
// the official MCP TypeScript SDK client over stdio: kdapp_start_episode (the
// gateway holds the house's key, so it commits the house's VRF key and its
// binding into the params), a bet, a hit and a stand as command JSON, the house's
// reveals paid by the gateway by themselves after each block, a refused command
// with its rule code, the legal moves and the turn prompt's exact command JSON,
// and the view of the settled round.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';

import { scratch, stdioClient, discoverTools, call } from './lib/harness.mjs';

let dirs;
let client;

before(async () => {
  dirs = scratch('blackjack');
  client = await stdioClient(dirs);
  await discoverTools(client);
});

after(async () => {
  await client?.close();
  dirs?.cleanup();
});

const E = (d) => d.repeat(64);

/** The view once `done(view)` holds (the house's reveals arrive by themselves), polled for at most 15 s. */
async function until(id, done, what) {
  const deadline = Date.now() + 15000;
  for (;;) {
    const v = (await call(client, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
    if (done(v)) return v;
    if (Date.now() > deadline) throw new Error(`${what}: not within 15 s: ${JSON.stringify(v.players)}`);
    await new Promise((r) => setTimeout(r, 25)); // polling a condition, bounded above
  }
}

test('blackjack: start, bet, hit, stand, the house revealing by itself, the view', { timeout: 60000 }, async () => {
  const started = await call(client, 'kdapp_start_episode', { type: 'blackjack', params: { decks: 2, rounds: 2 } });
  const id = started.structuredContent.episode_id;
  const v0 = started.structuredContent.view;
  assert.equal(v0.type, 'blackjack');
  assert.deepEqual(v0.seats, ['house', 'player1']);
  assert.equal(v0.to_move, 1, 'player1 bets first');
  assert.match(v0.house.key, /^0[23][0-9a-f]{64}$/, "the gateway committed the house's VRF key");
  assert.match(v0.house.binding, /^[0-9a-f]{64}$/);
  assert.equal(v0.house.draws, 0);
  assert.equal(v0.table.decks, 2);
  assert.equal(v0.players[0].chips, 1000);

  const legal = (await call(client, 'kdapp_legal_moves', { episode_id: id })).structuredContent;
  assert.ok(legal.moves.length >= 2, 'bets are listed');
  assert.equal(legal.moves[0].command.action, 'bet');
  assert.match(legal.moves[0].command.entropy, /^[0-9a-f]{64}$/);

  const bet = await call(client, 'kdapp_execute_command',
    { episode_id: id, command: { action: 'bet', amount: 10, entropy: E('1') } });
  assert.equal(bet.structuredContent.legal, true, bet.content[0].text);
  let v = await until(id, (x) => x.players[0].await !== 'deal', 'the deal');
  assert.equal(v.players[0].hands[0].cards.length, 2);
  // a round still on shows the dealer's up card; a natural settles at once,
  // the dealer drawing its second card only when the up card is a ten or an ace
  const up = v.players[0].dealer.cards[0];
  const peeks = /^(10|[JQKA])/.test(up);
  const dealerCards = v.players[0].await === 'idle' && peeks ? 2 : 1;
  assert.equal(v.players[0].dealer.cards.length, dealerCards, JSON.stringify(v.players[0]));
  assert.equal(v.house.draws, 2 + dealerCards, 'a draw a card');

  if (v.players[0].await === 'player') {
    // a bet while the round is on is refused with its rule code
    const r = await call(client, 'kdapp_execute_command',
      { episode_id: id, command: { action: 'bet', amount: 10, entropy: E('2') } });
    assert.equal(r.structuredContent.legal, false);
    assert.equal(r.structuredContent.error_code, 'round_in_progress');

    const prompt = await client.getPrompt({ name: 'kdapp_turn', arguments: { episode_id: String(id), player: 'player1' } });
    assert.match(prompt.messages[0].content.text, /\{"action":"stand","entropy":"[0-9a-f]{64}"\}/);

    const hit = await call(client, 'kdapp_execute_command', { episode_id: id, command: { action: 'hit', entropy: E('3') } });
    assert.equal(hit.structuredContent.legal, true, hit.content[0].text);
    v = await until(id, (x) => x.players[0].await !== 'card', 'the hit card');
    assert.equal(v.players[0].hands[0].cards.length, 3);
    if (v.players[0].await === 'player') {
      const stand = await call(client, 'kdapp_execute_command',
        { episode_id: id, command: { action: 'stand', entropy: E('4') } });
      assert.equal(stand.structuredContent.legal, true, stand.content[0].text);
    }
  }
  v = await until(id, (x) => x.players[0].await === 'idle', 'the dealer play');
  const p = v.players[0];
  assert.notEqual(p.hands[0].outcome, 'open');
  assert.equal(p.chips, 1000 + p.last_net, 'the chips move by the round result');
  assert.equal(v.house_net + p.last_net, 0, 'the house wins what the player loses'); // not -last_net: a push would compare 0 with -0
  assert.equal(p.rounds_played, 1);
  assert.equal(v.to_move, 1, 'player1 may bet again');
  assert.equal(v.house.draws, p.hands[0].cards.length + p.dealer.cards.length);
});

// attach.test.mjs — two agents, each launching its own stdio gateway on the
// same data directory: the first runs the engine and the devnet, the second
// attaches to them. Episodes started by either are visible and playable from
// both, and each gateway's subscribers hear of the other's moves.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { scratch, stdioClient, discoverTools, call, play, stateOf, Signal, GAME, CAP } from './lib/harness.mjs';

let dirs;
let first;
let second;

before(async () => {
  dirs = scratch('attach');
  first = await stdioClient(dirs, { name: 'agent-one' });
  await discoverTools(first); // the first gateway is up and holds the data directory
  second = await stdioClient(dirs, { name: 'agent-two' });
  await discoverTools(second);
});

after(async () => {
  await second?.close(); // the attached one first, while the engine still runs
  await first?.close();
  dirs?.cleanup();
});

test('the second gateway attaches to the first', { timeout: 10000 }, async () => {
  await second.gatewayLog.signal.until(() => /attached to the engine/.test(second.gatewayLog.text),
    `the second gateway to say it attached (stderr: ${second.gatewayLog.text})`, 5000);
  const k1 = (await call(first, 'kdapp_get_agent_pubkeys')).structuredContent.agents;
  const k2 = (await call(second, 'kdapp_get_agent_pubkeys')).structuredContent.agents;
  assert.deepEqual(k2, k1, 'both sign with the same key directory');
});

test('episodes started by one gateway are visible and playable from the other', { timeout: 30000 }, async () => {
  // started by the first, played alternately from both
  const id1 = (await call(first, 'kdapp_start_episode', { cap: CAP })).structuredContent.episode_id;
  const listed = (await call(second, 'kdapp_list_episodes')).structuredContent.episodes;
  assert.ok(listed.some((e) => e.episode_id === id1), `the second gateway lists episode ${id1}`);

  // the first gateway's subscriber hears the second gateway's moves
  const uri = `kdapp://episodes/${id1}`;
  const signal = new Signal();
  let updates = 0;
  first.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    if (n.params.uri === uri) { updates++; signal.kick(); }
  });
  await first.subscribeResource({ uri });

  let v;
  for (let i = 0; i < GAME.length; i++) {
    const agent = i % 2 === 0 ? first : second;
    const seenBefore = updates;
    v = await play(agent, id1, GAME[i]);
    if (agent === second)
      await signal.until(() => updates > seenBefore, `the first gateway's subscriber to hear move ${i + 1}`);
    const other = agent === first ? second : first;
    const ov = (await call(other, 'kdapp_get_episode_state', { episode_id: id1 })).structuredContent;
    assert.deepEqual(stateOf(ov), stateOf(v), `both gateways show move ${i + 1}`);
  }
  assert.equal(v.status, 'o_won');
  const ctx = (await call(second, 'kdapp_get_strategy_context', { episode_id: id1 })).structuredContent;
  assert.deepEqual(ctx.board, v.board);

  // started by the second, played from the first
  const id2 = (await call(second, 'kdapp_start_episode', { cap: 3 })).structuredContent.episode_id;
  assert.notEqual(id2, id1);
  const seen = (await call(first, 'kdapp_get_episode_state', { episode_id: id2 })).structuredContent;
  assert.equal(seen.cap, 3);
  await play(first, id2, { row: 1, col: 1, player: 'X' });
  const back = (await call(second, 'kdapp_get_strategy_context', { episode_id: id2 })).structuredContent;
  assert.deepEqual(back.recent_moves, [{ row: 1, col: 1, player: 'X' }]);
  assert.equal(back.current, 'O');
});

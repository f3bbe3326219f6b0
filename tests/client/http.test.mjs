// http.test.mjs — the official SDK client over Streamable HTTP: discovery
// with schema validation, then two sessions on one gateway: client B
// subscribes to an episode, client A plays it until a mark is evicted and
// asks the devnet for a reorg of depth 1; B is told (notifications/resources/
// updated) and reads the evicted mark back, then sees the re-included move
// evict it again.
//
// The devnet mines every --block-ms; a reorg re-queues the reverted move, which
// the next block re-applies. A asks for the reorg right after a block, so with
// 400 ms blocks B has nearly 400 ms (against a few ms of work) to read the
// reverted state before the re-included move lands.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import {
  scratch, httpGateway, httpClient, checkDiscovery, discoverTools, call, play, stateOf, Signal, GAME, CAP,
} from './lib/harness.mjs';

let dirs;
let gw;
const clients = [];

before(async () => {
  dirs = scratch('http');
  gw = await httpGateway(dirs, { blockMs: 400 });
});

after(async () => {
  for (const c of clients) await c.close().catch(() => {});
  const r = await gw?.stop();
  if (r && r.code !== 0) console.error(`gateway exit ${JSON.stringify(r)}:\n${gw.log.text}`);
  dirs?.cleanup();
});

test('discovery over Streamable HTTP', { timeout: 20000 }, async () => {
  const c = await httpClient(gw.url, 'kdapp-client-test', gw.token);
  clients.push(c);
  assert.ok(c.transport.sessionId, 'the gateway assigned an Mcp-Session-Id');
  await checkDiscovery(c);
  await call(c, 'kdapp_get_agent_pubkeys');
  await call(c, 'kdapp_list_episodes');
});

test('a reorg brings an evicted mark back; a subscriber in another session is told', { timeout: 40000 }, async () => {
  const a = await httpClient(gw.url, 'player-a', gw.token);
  const b = await httpClient(gw.url, 'watcher-b', gw.token);
  clients.push(a, b);
  assert.notEqual(a.transport.sessionId, b.transport.sessionId, 'two sessions');
  await discoverTools(a);

  const id = (await call(a, 'kdapp_start_episode', { cap: CAP })).structuredContent.episode_id;
  const uri = `kdapp://episodes/${id}`;

  // B: on every notification for the episode, read the resource and the
  // strategy context at once, and keep what it saw in order.
  const seen = [];
  const signal = new Signal();
  let chain = Promise.resolve();
  let failure = null;
  b.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    if (n.params.uri !== uri) return;
    chain = chain.then(async () => {
      const res = await b.readResource({ uri });
      const view = JSON.parse(res.contents[0].text);
      const ctx = (await call(b, 'kdapp_get_strategy_context', { episode_id: id })).structuredContent;
      seen.push({ view, ctx });
      signal.kick();
    }).catch((e) => { failure = e; signal.kick(); });
  });
  await b.subscribeResource({ uri });
  const sawB = (pred, what, ms = 10000) => signal.until(() => {
    if (failure) throw failure;
    return seen.find(pred);
  }, `client B to see ${what}`, ms);

  // A plays six moves (the window is full) and the seventh, which evicts X(0,0)
  let v;
  for (const m of GAME.slice(0, 7)) v = await play(a, id, m);
  assert.equal(v.move_count, 7);
  assert.equal(v.board[0][0], 0, 'X(0,0) was evicted');
  const evicted = await sawB(({ view }) => view.move_count === 7, 'move 7');
  assert.equal(evicted.ctx.board[0][0], 0);
  assert.deepEqual(evicted.ctx.next_to_remove, { row: 2, col: 2, player: 'O' });
  const seenAtReorg = seen.length;

  const reorg = await call(a, 'kdapp_simulate_reorg', { depth: 1 });
  assert.ok(!reorg.isError, reorg.content[0].text);
  assert.equal(reorg.structuredContent.reverted, 1);
  assert.equal(reorg.structuredContent.reincluded, 1);

  // B hears of the rollback and reads the evicted mark back
  const back = await sawB(({ view }, i) => i >= seenAtReorg && view.move_count === 6, 'the rollback of move 7');
  assert.equal(back.view.board[0][0], 1, 'X(0,0) is back on the board');
  assert.equal(back.view.board[0][1], 0, 'move 7 is gone');
  assert.deepEqual(back.ctx.board, [[1, 0, 1], [2, 1, 0], [2, 0, 2]]);
  assert.deepEqual(back.ctx.recent_moves, GAME.slice(0, 6), 'recent_moves oldest to newest, X(0,0) first again');
  assert.deepEqual(back.ctx.next_to_remove, { row: 0, col: 0, player: 'X' }, 'X(0,0) is due for removal again');
  assert.equal(back.ctx.current, 'X');

  // the devnet re-includes move 7 in its next block: X(0,0) is evicted again
  const again = await sawB(({ view }, i) => i >= seenAtReorg && view.move_count === 7, 'move 7 re-included');
  assert.equal(again.view.board[0][0], 0);
  assert.deepEqual(stateOf(again.view).board, stateOf(v).board);
  assert.deepEqual(again.ctx.recent_moves, GAME.slice(1, 7));

  // unsubscribed, B hears nothing more of the episode; subscribed to the
  // list, B is told of the next block (the list is notified after the
  // episode on the same stream, so it marks that nothing else is coming)
  await b.unsubscribeResource({ uri });
  const seenBefore = seen.length;
  let listUpdates = 0;
  b.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    if (n.params.uri === uri) seen.push({ late: true });
    if (n.params.uri === 'kdapp://episodes') listUpdates++;
    signal.kick();
  });
  await b.subscribeResource({ uri: 'kdapp://episodes' });
  const won = await play(a, id, GAME[7]);
  assert.equal(won.status, 'o_won');
  await signal.until(() => listUpdates > 0, 'client B to hear that kdapp://episodes changed');
  await chain;
  assert.equal(seen.length, seenBefore, 'no episode notifications after unsubscribe');
  const finalB = (await call(b, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
  assert.equal(finalB.status, 'o_won', 'B reads the same episode');
});

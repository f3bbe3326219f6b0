// lossy.test.mjs — the gateway misses block summaries and still answers
// every write truly and promptly. PUB drops messages for a slow subscriber;
// a write's answer must then come from the engine's log, not from a 30 s
// (here 120 s) wait ending in "not confirmed".
//
// Two ways to lose summaries, both real:
// - attached to `kdapp up` with --views naming a socket nobody publishes on:
//   the gateway receives no summary at all (and no view);
// - embedded, with the named test seam KDAPP_TEST_DROP_SUMMARIES=2: the
//   gateway drops every second summary it receives, so the log has gaps
//   between the summaries that did arrive.
// Each call must answer within 60 s, half the gateway's --wait-ms: waiting
// out the wait (the behaviour before) fails the test, whatever the machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { tmpdir } from 'node:os';

import { withGateway, withAgents, call, move, storeEpisodes } from './lib/harness.mjs';

const WAIT_MS = 120000;
const CALL_MS = 60000;
const AGENTS = 4;
/* An ipc:// socket nobody listens on, for --views (unique to this run; KD_TEST_TMP is short
 * enough for a socket's path, tests/CMakeLists.txt). */
const nowhere = `ipc://${join(process.env.KD_TEST_TMP || tmpdir(), `nobody-publishes-${process.pid}.ipc`)}`;

const text = (r) => r.content?.[0]?.text ?? JSON.stringify(r);

async function callWithin(client, name, args) {
  return client.callTool({ name, arguments: args }, undefined, { timeout: CALL_MS });
}

/* One agent: starts an episode, plays X(0,0), an illegal O(0,0) (rejected
 * from the log too), then O(1,0) X(0,1) O(1,1) X(0,2) to X's win. */
async function agent(client, id) {
  const started = await callWithin(client, 'kdapp_start_episode', { episode_id: id });
  assert.ok(!started.isError, `episode ${id} is confirmed: ${text(started)}`);
  assert.equal(started.structuredContent.episode_id, id);
  const seq = [
    [0, 0, 'X', true], [0, 0, 'O', false], [1, 0, 'O', true], [0, 1, 'X', true], [1, 1, 'O', true], [0, 2, 'X', true],
  ];
  let v;
  for (const [row, col, player, legal] of seq) {
    const r = await callWithin(client, 'kdapp_execute_command', move(id, { row, col, player }));
    assert.equal(r.structuredContent?.legal, legal, `episode ${id}: ${player}(${row},${col}) is ${legal ? 'confirmed' : 'rejected'}: ${text(r)}`);
    if (!legal) {
      assert.equal(r.isError, true);
      assert.equal(r.structuredContent.error_code, 'cell_occupied', text(r));
      continue;
    }
    v = r.structuredContent.view;
    assert.equal(v.board[row][col], player === 'X' ? 1 : 2);
  }
  assert.equal(v.status, 'x_won');
  return v;
}

async function agentsAgainst(gw, dirs) {
  await withAgents(gw.url, AGENTS, 'lossy', async (clients, ids) => {
    const views = await Promise.all(clients.map((c, i) => agent(c, ids[i])));
    const stored = storeEpisodes(dirs);
    for (const v of views) {
      assert.equal(stored.get(v.episode_id)?.move_count, 5, `episode ${v.episode_id}: the store has the 5 confirmed moves`);
      assert.equal(stored.get(v.episode_id)?.status, 'x_won');
    }
    const listed = (await call(clients[0], 'kdapp_list_episodes')).structuredContent.episodes.map((e) => e.episode_id);
    assert.deepEqual(listed.sort(), views.map((v) => v.episode_id).sort());
  }, gw.token);
}

test('attached, subscribed where nobody publishes: every write answered from the log', { timeout: 150000 }, () =>
  withGateway('lossy-up', {
    withUp: true,
    gatewayOpts: (up) => ({ extra: ['--views', nowhere, '--devnet', up.devnet, '--wait-ms', String(WAIT_MS)] }),
  }, (gw, dirs) => agentsAgainst(gw, dirs)));

test('embedded, every second summary dropped (KDAPP_TEST_DROP_SUMMARIES=2)', { timeout: 150000 }, () =>
  withGateway('lossy-embedded', {
    gatewayOpts: () => ({ extra: ['--wait-ms', String(WAIT_MS)], env: { KDAPP_TEST_DROP_SUMMARIES: '2' } }),
  }, (gw, dirs) => agentsAgainst(gw, dirs)));

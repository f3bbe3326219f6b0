// scaleout.test.mjs — one engine, several gateways, over NNG tcp on
// loopback: `kdapp engine` listens on tcp for ingest and views, `kdapp
// devnet` feeds it over tcp and takes requests on tcp, and three `kdapp mcp
// --http` gateways attach with `--views tcp://… --devnet tcp://…` (each
// reading the same LMDB file read-only). Agents on different gateways play
// the same games against each other: every move is confirmed, each
// gateway's subscriber hears every move whichever gateway sent it, and all
// three gateways and the store itself answer the same final state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:net';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { scratch, daemon, httpGateway, httpClient, discoverTools, call, play, storeEpisodes, Signal, GAME, CAP } from './lib/harness.mjs';

const GATEWAYS = 3;
const GAMES = 3;

/** A loopback TCP port free at the time of asking (the kernel's choice, released at once). */
function freePort() {
  return new Promise((resolve, reject) => {
    const s = createServer();
    s.once('error', reject);
    s.listen(0, '127.0.0.1', () => { const { port } = s.address(); s.close(() => resolve(port)); });
  });
}

const served = (line) => (text) => (line.test(text) ? {} : null);

test('three gateways attached over NNG tcp to one engine play the same games', { timeout: 120000 }, async () => {
  const dirs = scratch('scaleout');
  const [ingest, views, devnet] = await Promise.all([freePort(), freePort(), freePort()]).then((ps) => ps.map((p) => `tcp://127.0.0.1:${p}`));
  const procs = [];
  const clients = [];
  try {
    procs.push(await daemon(['engine', '--data', dirs.data, '--ingest', ingest, '--publish', views],
      { ready: served(/kdapp engine: serving/), what: 'kdapp engine to serve' }));
    procs.push(await daemon(['devnet', '--data', dirs.data, '--engine', ingest, '--listen', devnet, '--block-ms', '20'],
      { ready: served(/^\s+control tcp:/m), what: 'kdapp devnet to serve' }));
    const gws = [];
    for (let i = 0; i < GATEWAYS; i++) {
      const gw = await httpGateway(dirs, { extra: ['--views', views, '--devnet', devnet] });
      procs.push(gw);
      gws.push(gw);
    }
    for (const gw of gws) {
      await gw.log.signal.until(() => /attached to the engine/.test(gw.log.text), `a gateway to attach (stderr: ${gw.log.text})`);
      const c = await httpClient(gw.url, 'scaleout', gw.token);
      await discoverTools(c);
      clients.push(c);
    }

    // each game is started on one gateway; X plays through it, O through the next, and the third listens
    const ids = [];
    for (let g = 0; g < GAMES; g++)
      ids.push((await call(clients[g % GATEWAYS], 'kdapp_start_episode', { cap: CAP })).structuredContent.episode_id);
    const heard = clients.map(() => new Map());
    const news = new Signal();
    clients.forEach((c, i) => c.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
      heard[i].set(n.params.uri, (heard[i].get(n.params.uri) ?? 0) + 1);
      news.kick();
    }));
    for (const c of clients) for (const id of ids) await c.subscribeResource({ uri: `kdapp://episodes/${id}` });

    await Promise.all(ids.map(async (id, g) => {
      for (let i = 0; i < GAME.length; i++) await play(clients[(g + (i % 2)) % GATEWAYS], id, GAME[i]);
    }));

    const finals = await Promise.all(clients.map((c) => Promise.all(ids.map(async (id) =>
      (await call(c, 'kdapp_get_episode_state', { episode_id: id })).structuredContent))));
    const stored = storeEpisodes(dirs);
    for (const [g, id] of ids.entries()) {
      const v = finals[0][g];
      assert.equal(v.move_count, GAME.length, `episode ${id}: every move applied`);
      assert.equal(v.status, 'o_won', `episode ${id}: O won`);
      for (let i = 1; i < GATEWAYS; i++)
        assert.deepEqual(finals[i][g], v, `gateway ${i} answers episode ${id} as gateway 0 does`);
      assert.ok(stored.has(id), `episode ${id} is in the store`);
      assert.deepEqual(stored.get(id).board, v.board, `episode ${id}: the store holds the gateways' board`);
      // every subscriber hears the game, whichever gateways carried its moves (updates of one block may merge)
      const uri = `kdapp://episodes/${id}`;
      for (let i = 0; i < GATEWAYS; i++)
        await news.until(() => (heard[i].get(uri) ?? 0) >= 1, `gateway ${i}'s subscriber to hear episode ${id}`);
    }
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
    for (const p of procs.reverse()) await p.stop();
    dirs.cleanup();
  }
});

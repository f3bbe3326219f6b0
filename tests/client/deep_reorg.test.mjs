// deep_reorg.test.mjs — issue 37, R7: a deep reorg on a long-lived store, through a real gateway over
// HTTP and its real devnet. A store of 12,000 fed blocks (tests/integration/gen_script.awk: moves,
// rejected transactions and small reorgs of their own) with finality depth 256; the devnet adds 516
// blocks of its own. A granted session asks kdapp_simulate_reorg at the finality depth while another
// session plays and reads another game: the reorg completes, the move is confirmed and the read
// answers. Then the same session asks for the finality depth again: the tip the first reorg returned
// to is final, so almost nothing may be reverted, and the call is refused at once, naming the store's
// finality. On 826780f that second call livelocked the devnet and the engine: every revert below the
// horizon was refused (`not_tip`) with a synced commit of its own, the devnet sent the whole request
// again each second, and every game froze. The store has refused no revert at the end.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, accessSync, constants, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

import { KDAPP, scratch, httpGateway, httpClient, discoverTools, call, play, move, GRANT } from './lib/harness.mjs';

const FINALITY = 256;
const FED_BLOCKS = 12000;
const here = dirname(fileURLToPath(import.meta.url));

let dirs;
let gw;

/** Ten thousand synced commits cost seconds on tmpfs and a minute or more on a disk: the store is fed
 *  on /dev/shm when there is one, then copied to the test's directory, where the gateway runs it with
 *  commits synced to a disk as in production (a refused revert costs a sync there: what made R7 a
 *  livelock rather than a burst). */
function feedStore(dirs) {
  let shm = null;
  try {
    accessSync('/dev/shm', constants.W_OK);
    shm = mkdtempSync(join('/dev/shm', 'kdapp-deep-reorg-'));
  } catch {
    shm = null;
  }
  const where = shm ?? dirs.dir;
  const script = join(where, 'long.jsonl');
  const awk = join(here, '..', 'integration', 'gen_script.awk');
  assert.ok(existsSync(awk), `${awk} exists`);
  try {
    writeFileSync(script, execFileSync('awk', ['-v', 'seed=37', '-v', `blocks=${FED_BLOCKS}`, '-v', 'episodes=2000', '-f', awk],
      { maxBuffer: 1 << 28 }));
    const data = shm ? join(shm, 'data') : dirs.data;
    execFileSync(KDAPP, ['feed', '--quiet', '--data', data, '--keys', dirs.keys, '--finality', String(FINALITY), script],
      { stdio: ['ignore', 'ignore', 'inherit'] });
    if (shm)
      cpSync(join(data, 'data.mdb'), join(dirs.data, 'data.mdb'));
  } finally {
    if (shm) rmSync(shm, { recursive: true, force: true });
  }
}

/** The gateway's /metrics value of `name` (a counter without labels). */
async function metric(name) {
  const res = await fetch(`${gw.base}/metrics`, { headers: { Authorization: `Bearer ${gw.token}` } });
  assert.equal(res.status, 200, '/metrics answers');
  const m = new RegExp(`^${name} (\\d+)$`, 'm').exec(await res.text());
  assert.ok(m, `/metrics has ${name}`);
  return Number(m[1]);
}

before(async () => {
  dirs = scratch('deep-reorg');
  mkdirSync(dirs.data, { recursive: true, mode: 0o700 });
  feedStore(dirs);
  gw = await httpGateway(dirs, { blockMs: 20 });
});

after(async () => {
  await gw?.stop();
  dirs?.cleanup();
});

test('a reorg at the finality depth completes while another game plays; one beyond it is refused at once',
  { timeout: 240000 }, async () => {
    const agent = await httpClient(gw.url, 'reorg-asker', gw.tokens[GRANT]);
    const other = await httpClient(gw.url, 'other-player', gw.tokens[GRANT]);
    try {
      await discoverTools(agent);
      const reorgTool = (await agent.listTools()).tools.find((t) => t.name === 'kdapp_simulate_reorg');
      assert.equal(reorgTool.inputSchema.properties.depth.maximum, FINALITY, 'the schema says the store\'s finality');

      // The other game, then 2 * FINALITY + 4 blocks of the devnet's own (it reverts only those, and
      // the second reorg below must reach past the horizon): one episode a block. The reorgs will not
      // reach the other game's first move.
      const game = (await call(other, 'kdapp_start_episode', { cap: 6 })).structuredContent.episode_id;
      await play(other, game, { row: 0, col: 0, player: 'X' });
      for (let i = 0; i < 2 * FINALITY + 4; i++)
        assert.ok(!(await agent.callTool({ name: 'kdapp_start_episode', arguments: { cap: 6 } })).isError);

      // At the finality depth, while the other game moves and is read.
      const [reorg, moved, seen] = await Promise.all([
        call(agent, 'kdapp_simulate_reorg', { depth: FINALITY }),
        call(other, 'kdapp_execute_command', move(game, { row: 1, col: 1, player: 'O' })),
        call(other, 'kdapp_get_episode_state', { episode_id: game }),
      ]);
      assert.ok(!reorg.isError, `the reorg at the finality depth happens: ${reorg.content[0].text}`);
      assert.equal(reorg.structuredContent.reverted, FINALITY);
      assert.ok(!moved.isError && moved.structuredContent.legal, `the other game's move is confirmed: ${moved.content[0].text}`);
      assert.ok(!seen.isError, 'a read answers during the reorg');

      // The tip it returned to is final: the same depth again is refused at once, nothing reverted.
      const before = (await call(other, 'kdapp_get_episode_state', { episode_id: game })).structuredContent;
      const again = await agent.callTool({ name: 'kdapp_simulate_reorg', arguments: { depth: FINALITY } });
      assert.equal(again.isError, true, 'a reorg beyond the finality horizon is refused');
      assert.match(again.content[0].text, /beyond the store's finality: only the last \d+ blocks? can be reverted \(finality depth 256\)/);
      const after = (await call(other, 'kdapp_get_episode_state', { episode_id: game })).structuredContent;
      assert.equal(after.block_hash, before.block_hash, 'nothing was reverted');
      await play(other, game, { row: 2, col: 2, player: 'X' });
      assert.equal(await metric('kdapp_refusals_total'), 0, 'the engine refused no revert');
    } finally {
      await agent.close();
      await other.close();
    }
  });

// consent.test.mjs — the house's consent is the house's (issue 37, R5 "Copied consent"), attacked as a
// stranger would: a tokenless session on `kdapp mcp --http --house agent2` (a real gateway over
// Streamable HTTP with its embedded engine and devnet) starts roulette against the house as the player
// test:mallory, choosing the terms.
//   - The copy: the house consents to a creation; the attacker copies its payload from the store's log
//     (`kdapp log --json`) into a store of its own (`kdapp feed`), where the house never answers, bets
//     all chips straight and claims after the reveal timeout. The consent names the chain of the store
//     it was made for, so the copy is refused `no_consent` there and nothing follows.
//   - The terms: start_chips 1,000,000 (the caller's choice) is refused by the house, naming the term,
//     the value and its limit (a granted key's own consent is not bounded: mcp_gateway_terms_test).
import test from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { KDAPP, scratch, httpGateway, httpClient, discoverTools, call } from './lib/harness.mjs';

let dirs;
let gw;
let anon;

test.before(async () => {
  dirs = scratch('consent');
  gw = await httpGateway(dirs, { grants: [], extra: ['--house', 'agent2'] });
  anon = await httpClient(gw.url, 'stranger', null);
  await discoverTools(anon);
});

test.after(async () => {
  await anon?.close().catch(() => {});
  const r = await gw?.stop();
  dirs?.cleanup();
  assert.equal(r?.code, 0, `the gateway exits cleanly: ${gw?.log.text.slice(-2000)}`);
});

const text = (r) => r.content?.[0]?.text ?? '';
const kdapp = (...args) => execFileSync(KDAPP, args, { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

test('a house-consented creation copied into another store is refused no_consent', { timeout: 60000 }, async () => {
  const started = await call(anon, 'kdapp_start_episode', {
    type: 'roulette', participants: ['test:mallory', 'agent2'], params: { start_chips: 1000 },
  });
  const id = started.structuredContent.episode_id;
  assert.equal(started.structuredContent.view.chips, 1000, 'the house consented in its own store');

  // the creation as the chain carries it, from the log
  let payload;
  for (const line of kdapp('log', '--data', dirs.data, '--json').split('\n').filter((l) => l.trim())) {
    for (const tx of JSON.parse(line).txs ?? []) if (tx.episode === id && tx.applied && tx.type === 'roulette') payload = tx.payload;
  }
  assert.ok(payload, `the creation of episode ${id} is in the log`);

  // another store: the creation, an all-in straight bet, and a claim once the reveal timeout passed
  const entropy = 'ab'.repeat(32);
  const script = [
    { accept: { hash: 'x1', daa: 10, txs: [{ payload_hex: payload }] } },
    { accept: { hash: 'x2', daa: 20, txs: [{ command: { episode: id, signer: 'test:mallory', episode_type: 'roulette', bets: [{ kind: 'straight', number: 7, amount: 1000 }], entropy } }] } },
    { accept: { hash: 'x3', daa: 20 + 864000 + 1, txs: [{ command: { episode: id, signer: 'test:mallory', episode_type: 'roulette', claim: true } }] } },
  ].map((o) => JSON.stringify(o)).join('\n');
  const file = join(dirs.dir, 'copy.jsonl');
  writeFileSync(file, `${script}\n`);
  const other = join(dirs.dir, 'other');
  const fed = kdapp('feed', '--data', other, '--keys', dirs.keys, file);
  assert.match(fed, /no_consent/, `the copy is refused no_consent: ${fed}`);
  assert.match(fed, /does not verify over this creation on chain local:[0-9a-f]{32}/, fed);
  const log = kdapp('log', '--data', other, '--json').split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
  const txs = log.flatMap((e) => e.txs ?? []);
  assert.equal(txs.length, 3);
  assert.deepEqual(txs.map((t) => t.applied), [false, false, false], 'nothing of the attack applies');
  assert.equal(txs[0].error_code ?? txs[0].code, 'no_consent', JSON.stringify(txs[0]));
  assert.throws(() => kdapp('show', '--data', other, String(id)), 'the episode does not exist there');
});

test('the house refuses terms beyond its limits, naming the term, the value and the limit', { timeout: 60000 }, async () => {
  const r = await anon.callTool({
    name: 'kdapp_start_episode',
    arguments: { type: 'roulette', participants: ['test:mallory', 'agent2'], params: { start_chips: 1000000 } },
  });
  assert.equal(r.isError, true, `start_chips 1000000 is refused: ${text(r)}`);
  assert.match(text(r), /the house consents to roulette only with start_chips from 1 to 10000/);
  assert.match(text(r), /asks for start_chips 1000000/);
  const types = JSON.parse((await anon.readResource({ uri: 'kdapp://types' })).contents[0].text);
  const roulette = types.types.find((t) => t.name === 'roulette');
  assert.deepEqual(roulette.house_terms.find((t) => t.name === 'start_chips'),
    { name: 'start_chips', meaning: "the player's chips at the start", min: 1, max: 10000 },
    'kdapp://types states the house\'s terms');
});

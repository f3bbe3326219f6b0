// kaspa_rpc.test.mjs — the fixture kaspad of the listener's tests (tests/listen/fixture_wrpc.c) read by
// rusty-kaspa's own client: the WASM SDK's RpcClient (@dfns/kaspa-wasm 0.14.1, JSON encoding) calls every
// method `kdapp listen` uses (getServerInfo, getBlockDagInfo, getSink, getBlock with transactions,
// getVirtualChainFromBlock with accepted ids, subscribe) and getBlocks, and reads virtualChainChanged
// notifications, without error and with the values the fixture records (`record FILE`: u64s as decimal
// strings). Every u64 is compared exactly (header nonces >= 2^63, sequences of 2^64-1, request ids the SDK
// draws at random over all of u64), and for every transaction served the SDK's `Transaction`, rebuilt from
// the served JSON, computes the transactionId the fixture served: so the fixture serves what kaspad serves,
// and the listener's tests run against that. The chain: seed 5, grown and reorganised, side blocks merged.
import test from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { KDAPP, scratch, Signal } from './lib/harness.mjs';

const require = createRequire(import.meta.url);
globalThis.WebSocket = require('websocket').w3cwebsocket; // Node 20 has no W3C WebSocket global
const kaspa = require('@dfns/kaspa-wasm');

const FIXTURE = process.env.KD_FIXTURE_WRPC || join(dirname(KDAPP), 'kd_fixture_wrpc');
const SEED = process.env.KD_FIXTURE_SEED || '5';
const U64_MAX = (1n << 64n) - 1n;
const TOP_BIT = 1n << 63n;

/** The fixture node: commands on stdin, each waited for by its "ok" line on stdout. */
class Fixture {
  constructor(dir) {
    this.dir = dir;
    this.out = '';
    this.err = '';
    this.signal = new Signal();
    this.child = spawn(FIXTURE, ['--seed', SEED, '--kaspad', '0.14.1'], { stdio: ['pipe', 'pipe', 'pipe'] });
    this.child.stdout.setEncoding('utf8');
    this.child.stderr.setEncoding('utf8');
    this.child.stdout.on('data', (d) => { this.out += d; this.signal.kick(); });
    this.child.stderr.on('data', (d) => { this.err = (this.err + d).slice(-4000); });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => { this.code = code; this.signal.kick(); resolve(code); }));
  }
  count(line) { return this.out.split('\n').filter((l) => l === line).length; }
  async port() {
    const m = await this.signal.until(() => /^port (\d+)$/m.exec(this.out), 'the fixture\'s port');
    return Number(m[1]);
  }
  async cmd(c) {
    const n = this.count(`ok ${c}`);
    this.child.stdin.write(`${c}\n`);
    await this.signal.until(() => this.count(`ok ${c}`) > n || /^error /m.test(this.out), `the fixture to do: ${c}`);
    assert.doesNotMatch(this.out, /^error /m, `the fixture refused a command: ${this.out}`);
  }
  async record() {
    const file = join(this.dir, `record-${Date.now()}-${Math.random()}.json`);
    await this.cmd(`record ${file}`);
    const r = JSON.parse(readFileSync(file, 'utf8'));
    r.byHash = new Map(r.blocks.map((b) => [b.hash, b]));
    return r;
  }
}

let dirs;
let fx;
let rpc;
const notes = [];
const noted = new Signal();
const seen = { bigNonce: 0, maxSequence: 0, bigValue: 0, txs: 0 };

test.before(async () => {
  dirs = scratch('kaspa-rpc');
  fx = new Fixture(dirs.dir);
  const port = await fx.port();
  await fx.cmd('grow 12');
  await fx.cmd('reorg 3 4'); // blocks off the chain, kdapp txs mined again
  rpc = new kaspa.RpcClient({ url: `ws://127.0.0.1:${port}`, encoding: kaspa.Encoding.SerdeJson, networkId: 'testnet-10' });
  rpc.addEventListener('virtual-chain-changed', (e) => { notes.push(e.data); noted.kick(); });
  await rpc.connect({ blockAsyncConnect: true, timeoutDuration: 5000, retryInterval: 0 });
});

test.after(async () => {
  await rpc?.disconnect().catch(() => {});
  if (fx && fx.code === undefined) {
    fx.child.stdin.write('quit\n');
    await fx.exited;
  }
  assert.equal(fx?.code, 0, `the fixture exits cleanly: ${fx?.err}`);
  dirs?.cleanup();
});

const big = (v, what) => {
  assert.equal(typeof v, 'bigint', `${what} reaches JavaScript as a bigint (${typeof v} ${v})`);
  return v;
};

/** The header, verbose data and transactions of one served block against the record. */
function sameBlock(block, want) {
  const h = block.header;
  assert.equal(h.hash, want.hash);
  for (const f of ['daaScore', 'blueScore', 'timestamp', 'nonce']) assert.equal(big(h[f], f), BigInt(want[f]), `${want.hash} ${f}`);
  if (h.nonce >= TOP_BIT) seen.bigNonce++;
  assert.equal(block.verboseData.isChainBlock, want.isChainBlock, `${want.hash} isChainBlock`);
  assert.deepEqual(block.verboseData.mergeSetBluesHashes, want.mergeSetBlues);
  assert.deepEqual(block.verboseData.mergeSetRedsHashes, want.mergeSetReds);
  assert.deepEqual(block.verboseData.transactionIds, want.transactions.map((t) => t.transactionId));
  assert.equal(block.transactions.length, want.transactions.length, `${want.hash}: every tx served`);
  block.transactions.forEach((tx, i) => sameTx(tx, want.transactions[i], `${want.hash} tx ${i}`));
}

function sameTx(tx, want, where) {
  assert.equal(tx.verboseData.transactionId, want.transactionId, `${where} transactionId`);
  assert.equal(tx.verboseData.hash, want.hash, `${where} hash`);
  assert.equal(tx.payload, want.payload, `${where} payload`);
  assert.equal(tx.subnetworkId, want.subnetworkId, `${where} subnetworkId`);
  assert.equal(big(tx.lockTime, 'lockTime'), BigInt(want.lockTime));
  assert.equal(big(tx.gas, 'gas'), BigInt(want.gas));
  assert.equal(tx.inputs.length, want.inputs.length, `${where} inputs`);
  tx.inputs.forEach((input, j) => {
    const w = want.inputs[j];
    assert.equal(input.previousOutpoint.transactionId, w.transactionId, `${where} input ${j} outpoint`);
    assert.equal(input.previousOutpoint.index, w.index);
    assert.equal(input.sigOpCount, w.sigOpCount);
    assert.equal(big(input.sequence, 'sequence'), BigInt(w.sequence), `${where} input ${j} sequence`);
    if (input.sequence === U64_MAX) seen.maxSequence++;
  });
  assert.equal(tx.outputs.length, want.outputs.length, `${where} outputs`);
  tx.outputs.forEach((output, j) => {
    assert.equal(big(output.value, 'value'), BigInt(want.outputs[j].value), `${where} output ${j} value`);
    assert.equal(output.scriptPublicKey, want.outputs[j].scriptPublicKey, `${where} output ${j} scriptPublicKey`);
    if (output.value > BigInt(Number.MAX_SAFE_INTEGER)) seen.bigValue++;
  });
  // rusty-kaspa's own id of the transaction, rebuilt from what was served
  const rebuilt = new kaspa.Transaction(tx);
  assert.equal(rebuilt.id, want.transactionId, `${where}: the SDK's id of the served transaction is the id served`);
  seen.txs++;
}

/** The ids a chain block accepts: its selected parent's txs, then its red's without the coinbase. */
function acceptedBy(r, hash) {
  const b = r.byHash.get(hash);
  const ids = r.byHash.get(b.mergeSetBlues[0]).transactions.map((t) => t.transactionId);
  for (const red of b.mergeSetReds) ids.push(...r.byHash.get(red).transactions.slice(1).map((t) => t.transactionId));
  return ids;
}

test('getServerInfo, getBlockDagInfo and getSink: the node the fixture says it is', async () => {
  const r = await fx.record();
  const info = await rpc.getServerInfo();
  assert.equal(info.networkId, r.network);
  assert.equal(info.isSynced, true);
  assert.equal(big(info.virtualDaaScore, 'virtualDaaScore'), BigInt(r.virtualDaaScore));
  const dag = await rpc.getBlockDagInfo();
  assert.equal(dag.network, r.network);
  assert.equal(dag.sink, r.sink);
  assert.equal(big(dag.virtualDaaScore, 'virtualDaaScore'), BigInt(r.virtualDaaScore));
  assert.deepEqual(dag.tipHashes, [r.sink]);
  assert.equal(dag.pruningPointHash, r.chain[0]);
  assert.equal((await rpc.getSink()).sink, r.sink);
});

test('getBlock with transactions: every block served, on the chain or off it, exact', async () => {
  const r = await fx.record();
  assert.ok(r.blocks.some((b) => !b.isChainBlock && b.mergeSetBlues.length), 'the chain has blocks off it');
  for (const want of r.blocks) {
    const { block } = await rpc.getBlock({ hash: want.hash, includeTransactions: true });
    sameBlock(block, want);
  }
  const bare = await rpc.getBlock({ hash: r.sink, includeTransactions: false });
  assert.equal(bare.block.transactions.length, 0, 'no transactions unless asked for');
  assert.ok(seen.bigNonce > 0, 'some header nonces are >= 2^63');
  assert.ok(seen.maxSequence > 0, 'some input sequences are 2^64-1');
  assert.ok(seen.bigValue > 0, 'some output values are above 2^53');
  assert.ok(seen.txs > 2 * r.blocks.length, `the blocks hold more than coinbases (${seen.txs} txs)`);
  await assert.rejects(rpc.getBlock({ hash: 'ab'.repeat(32), includeTransactions: false }), /cannot find header/);
});

test('getBlocks from the genesis: the chain with the side blocks it merges, transactions exact', async () => {
  const r = await fx.record();
  const res = await rpc.getBlocks({ lowHash: r.chain[0], includeBlocks: true, includeTransactions: true });
  const want = [];
  r.chain.forEach((h, i) => {
    if (i > 0) want.push(...r.byHash.get(h).mergeSetReds);
    want.push(h);
  });
  assert.deepEqual(res.blockHashes, want);
  assert.equal(res.blocks.length, want.length);
  res.blocks.forEach((b, i) => sameBlock(b, r.byHash.get(want[i])));
});

test('getVirtualChainFromBlock with accepted ids: the selected chain in batches, as recorded', async () => {
  const r = await fx.record();
  const added = [];
  let from = r.chain[0];
  for (let rounds = 0; from !== r.sink; rounds++) {
    assert.ok(rounds < r.chain.length, 'the batches reach the sink');
    const vc = await rpc.getVirtualChainFromBlock({ startHash: from, includeAcceptedTransactionIds: true });
    assert.deepEqual(vc.removedChainBlockHashes, []);
    assert.equal(vc.acceptedTransactionIds.length, vc.addedChainBlockHashes.length);
    vc.acceptedTransactionIds.forEach((a, i) => {
      assert.equal(a.acceptingBlockHash, vc.addedChainBlockHashes[i]);
      assert.deepEqual(a.acceptedTransactionIds, acceptedBy(r, a.acceptingBlockHash));
    });
    added.push(...vc.addedChainBlockHashes);
    from = added.at(-1);
  }
  assert.deepEqual(added, r.chain.slice(1));
  // from a block the reorg took off the chain: it is removed first, then the new branch added
  const off = r.blocks.find((b) => !b.isChainBlock && !r.blocks.some((c) => c.mergeSetReds.includes(b.hash)));
  const vc = await rpc.getVirtualChainFromBlock({ startHash: off.hash, includeAcceptedTransactionIds: false });
  assert.equal(vc.removedChainBlockHashes[0], off.hash);
  assert.equal(vc.acceptedTransactionIds.length, 0);
});

test('virtualChainChanged notifications: growth and a reorg, with accepted ids', async () => {
  const subscribed = fx.count('client subscribed VirtualChainChanged with accepted ids');
  await rpc.subscribeVirtualChainChanged(true);
  // the SDK sends the subscription from a task of its own: wait for the node to have it
  await fx.signal.until(() => fx.count('client subscribed VirtualChainChanged with accepted ids') > subscribed,
    'the subscription to reach the fixture');
  const before = await fx.record();
  await fx.cmd('grow 2');
  await noted.until(() => notes.length >= 1, 'a notification of the growth');
  let r = await fx.record();
  const grown = notes[0];
  assert.deepEqual(grown.removedChainBlockHashes, []);
  assert.deepEqual(grown.addedChainBlockHashes, r.chain.slice(before.chain.length));
  assert.deepEqual(grown.acceptedTransactionIds.map((a) => a.acceptingBlockHash), grown.addedChainBlockHashes);
  grown.acceptedTransactionIds.forEach((a) => assert.deepEqual(a.acceptedTransactionIds, acceptedBy(r, a.acceptingBlockHash)));

  const old = r.chain.slice(-2).reverse();
  await fx.cmd('reorg 2 3');
  await noted.until(() => notes.length >= 2, 'a notification of the reorg');
  r = await fx.record();
  const reorg = notes[1];
  assert.deepEqual(reorg.removedChainBlockHashes, old, 'the removed blocks, newest first');
  assert.deepEqual(reorg.addedChainBlockHashes, r.chain.slice(-3));
  reorg.acceptedTransactionIds.forEach((a) => assert.deepEqual(a.acceptedTransactionIds, acceptedBy(r, a.acceptingBlockHash)));
  for (const h of reorg.addedChainBlockHashes) sameBlock((await rpc.getBlock({ hash: h, includeTransactions: true })).block, r.byHash.get(h));
});

test('request ids: the SDK draws them over all of u64, and every one got its answer', async () => {
  const n = fx.count('ok stats');
  fx.child.stdin.write('stats\n');
  await fx.signal.until(() => fx.count('ok stats') > n, 'the fixture\'s stats');
  const m = /^requests (\d+), ids >= 2\^63 (\d+)$/m.exec(fx.out);
  assert.ok(m, `stats: ${fx.out}`);
  assert.ok(Number(m[2]) > 0, `some request ids were >= 2^63 (${m[0]})`);
});

// kaspa_tx.test.mjs — the Kaspa transactions `kdapp wallet build` makes
// (tools/kaspa), byte for byte against rusty-kaspa's own WASM SDK
// (@dfns/kaspa-wasm 0.14.1, pinned here): for one and many inputs, with and
// without change, payloads up to the standard limit, the SDK's Transaction
// gives the same id, its address of the key is the same, its compute mass
// (MassCalculator) and minimum fee are the same; and the SDK signs the same
// unsigned transaction with the same key, and its signatures verify against
// OUR sighash (`kdapp wallet verify`, libsecp256k1), which they do only
// when the two sighashes are equal. The SDK 0.14.1 signs under the v0.14
// rules (no payload in a native transaction's sighash): the same
// signatures must FAIL against our Crescendo sighash when there is a
// payload, and pass when there is none.
import { test, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { createRequire } from 'node:module';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { KDAPP, scratch } from './lib/harness.mjs';

const require = createRequire(import.meta.url);
globalThis.WebSocket = require('websocket').w3cwebsocket;
const k = require('@dfns/kaspa-wasm');

const dirs = scratch('kaspa-tx');
after(() => dirs.cleanup());

const NET = 'testnet-10';
const C = 10n ** 12n; // KIP-9's storage mass parameter

/** The secret of the test key "test:NAME" (engine/crypto.h kd_key_test). */
const secretOf = (name) => createHash('sha256').update(`kdapp-test-key:${name}`).digest('hex');

function kdapp(args, { ok = true } = {}) {
  const r = spawnSync(KDAPP, args, { encoding: 'utf8' });
  if (ok) assert.equal(r.status, 0, `kdapp ${args.join(' ')}: ${r.stderr}`);
  return r;
}

function utxosFor(name, amounts) {
  const pk = new k.PrivateKey(secretOf(name));
  const script = `20${pk.toPublicKey().toXOnlyPublicKey().toString()}ac`;
  return amounts.map((amount, i) => ({
    address: pk.toAddress(NET).toString(),
    outpoint: { transactionId: createHash('sha256').update(`utxo ${name} ${i}`).digest('hex'), index: i % 3 },
    utxoEntry: { amount, scriptPublicKey: `0000${script}`, blockDaaScore: 1000 + i, isCoinbase: false },
  }));
}

let fileNo = 0;
function writeJson(obj) {
  const path = join(dirs.dir, `f${fileNo++}.json`);
  writeFileSync(path, JSON.stringify(obj));
  return path;
}

/** A message of `n` zero bytes in a file (a long one does not fit in argv). */
function zeroes(n) {
  const path = join(dirs.dir, `f${fileNo++}.bin`);
  writeFileSync(path, Buffer.alloc(n));
  return path;
}

/** `kdapp wallet build`: its JSON answer. */
function build(name, utxos, messageHex, extra = []) {
  const path = writeJson(utxos);
  const r = kdapp(['wallet', 'build', '--key', `test:${name}`, '--network', NET, '--utxos', path,
    '--payload-hex', messageHex, '--nonce', '0', ...extra]);
  return { out: JSON.parse(r.stdout), utxosPath: path };
}

/** The SDK's Transaction of our JSON, each input carrying the entry it spends. */
function sdkTransaction(txJson, utxos, { unsigned = false } = {}) {
  const byOutpoint = new Map(utxos.map((u) => [`${u.outpoint.transactionId}:${u.outpoint.index}`, u]));
  return new k.Transaction({
    version: txJson.version,
    inputs: txJson.inputs.map((inp) => {
      const u = byOutpoint.get(`${inp.previousOutpoint.transactionId}:${inp.previousOutpoint.index}`);
      assert.ok(u, 'every input spends one of the given UTXOs');
      return {
        previousOutpoint: inp.previousOutpoint,
        signatureScript: unsigned ? '' : inp.signatureScript,
        sequence: BigInt(inp.sequence),
        sigOpCount: inp.sigOpCount,
        utxo: {
          address: u.address, outpoint: u.outpoint,
          utxoEntry: {
            amount: BigInt(u.utxoEntry.amount),
            scriptPublicKey: new k.ScriptPublicKey(0, u.utxoEntry.scriptPublicKey.slice(4)),
            blockDaaScore: BigInt(u.utxoEntry.blockDaaScore), isCoinbase: u.utxoEntry.isCoinbase,
          },
        },
      };
    }),
    outputs: txJson.outputs.map((o) => ({
      value: BigInt(o.value),
      scriptPublicKey: new k.ScriptPublicKey(parseInt(o.scriptPublicKey.slice(0, 4), 16), o.scriptPublicKey.slice(4)),
    })),
    lockTime: BigInt(txJson.lockTime), subnetworkId: txJson.subnetworkId, gas: BigInt(txJson.gas),
    payload: txJson.payload,
  });
}

/** KIP-9 storage mass as rusty-kaspa v0.14.1's mempool takes it (Kip9Version::Alpha). */
function storageMassV014(inputs, outputs) {
  const harmonicOuts = outputs.reduce((s, v) => s + C / v, 0n);
  const sumIns = inputs.reduce((s, v) => s + v, 0n);
  const n = BigInt(inputs.length);
  const arithmeticIns = n * (C / (sumIns / n));
  return harmonicOuts > arithmeticIns ? harmonicOuts - arithmeticIns : 0n;
}

const mc = new k.MassCalculator(k.getConsensusParametersByNetwork(NET));

/** Every comparison for one built transaction (rules v0.14, the SDK's). */
function compare(name, utxos, out) {
  const tx = out.transaction;
  // The id.
  const sdkTx = sdkTransaction(tx, utxos);
  assert.equal(sdkTx.id, out.id, 'the SDK computes the same id');
  // The compute mass, signed, and unsigned plus the SDK's signature mass.
  assert.equal(BigInt(mc.calcMassForTransaction(sdkTx)), BigInt(out.computeMass), 'compute mass (signed)');
  const unsignedTx = sdkTransaction(tx, utxos, { unsigned: true });
  assert.equal(BigInt(mc.calcMassForTransaction(unsignedTx) + mc.calcSignatureMassForInputs(tx.inputs.length, 1)),
    BigInt(out.computeMass), 'compute mass (unsigned + signature mass)');
  // Storage mass and the node's mass (v0.14: compute + storage).
  const ins = tx.inputs.map((i) => BigInt(utxos.find((u) => u.outpoint.transactionId === i.previousOutpoint.transactionId).utxoEntry.amount));
  const outs = tx.outputs.map((o) => BigInt(o.value));
  assert.equal(BigInt(out.storageMass), storageMassV014(ins, outs), 'storage mass');
  assert.equal(BigInt(out.mass), BigInt(out.computeMass) + BigInt(out.storageMass), 'mass = compute + storage');
  // The fee: inputs − outputs; the SDK's minimum fee of that mass when there is change.
  const paid = ins.reduce((s, v) => s + v, 0n) - outs.reduce((s, v) => s + v, 0n);
  assert.equal(BigInt(out.fee), paid, 'fee = inputs − outputs');
  const minFee = BigInt(k.MassCalculator.minimumRequiredTransactionRelayFee(Number(out.mass)));
  if (tx.outputs.length) assert.equal(paid, minFee, 'the fee is the minimum relay fee of the mass');
  else assert.ok(paid >= minFee, 'without change the fee covers the minimum');
  if (tx.outputs.length) assert.equal(k.MassCalculator.isTransactionOutputDust({ value: outs[0], scriptPublicKey: new k.ScriptPublicKey(0, tx.outputs[0].scriptPublicKey.slice(4)) }), false, 'change is not dust');
  // The address.
  const pk = new k.PrivateKey(secretOf(name));
  for (const net of ['mainnet', 'testnet-10', 'devnet', 'simnet']) {
    const ours = kdapp(['wallet', 'address', '--key', `test:${name}`, '--network', net]).stdout.trim();
    assert.equal(ours, pk.toAddress(net).toString(), `address on ${net}`);
  }
  // Signatures: the SDK signs the same unsigned transaction; ours verify them.
  const signed = k.signTransaction(sdkTransaction(tx, utxos, { unsigned: true }), [pk], true).serializeToObject();
  const theirs = structuredClone(tx);
  signed.inputs.forEach((inp, i) => { theirs.inputs[i].signatureScript = inp.signatureScript; });
  assert.notEqual(theirs.inputs[0].signatureScript, tx.inputs[0].signatureScript, 'fresh aux randomness: other signatures');
  const txPath = writeJson(theirs);
  const utxosPath = writeJson(utxos);
  const v014 = kdapp(['wallet', 'verify', '--utxos', utxosPath, '--tx', txPath, '--rules', 'v0.14'], { ok: false });
  assert.equal(v014.status, 0, `the SDK's signatures verify against our v0.14 sighash: ${v014.stdout}${v014.stderr}`);
  const cres = kdapp(['wallet', 'verify', '--utxos', utxosPath, '--tx', txPath, '--rules', 'crescendo'], { ok: false });
  if (tx.payload.length) assert.notEqual(cres.status, 0, 'with a payload the Crescendo sighash differs from the SDK 0.14.1\'s');
  else assert.equal(cres.status, 0, 'without payload the two rules agree');
  // Our own signatures verify too (under the rules they were made with).
  const ownPath = writeJson(tx);
  assert.equal(kdapp(['wallet', 'verify', '--utxos', utxosPath, '--tx', ownPath, '--rules', 'v0.14'], { ok: false }).status, 0);
}

const V014 = ['--rules', 'v0.14'];

test('one input with change, a small payload: id, address, mass, fee and signatures', () => {
  const utxos = utxosFor('alice', [500000000]);
  const { out } = build('alice', utxos, '0a0b0c0d', V014);
  assert.equal(out.inputs, 1);
  assert.equal(out.transaction.outputs.length, 1);
  assert.ok(out.transaction.payload.startsWith('4b444331'), 'the payload starts with the prefix "KDC1"');
  compare('alice', utxos, out);
});

test('many inputs with change: the largest UTXOs first', () => {
  const utxos = utxosFor('bob', [3000, 20000, 1000000, 15000, 2500000]);
  const { out } = build('bob', utxos, '00'.repeat(200), [...V014, '--fee-rate', '1000']);
  assert.ok(out.inputs >= 1);
  compare('bob', utxos, out);
  const many = utxosFor('carol', Array.from({ length: 12 }, () => 30000));
  const r = build('carol', many, '11'.repeat(64), V014).out;
  assert.ok(r.inputs > 1, `several inputs (${r.inputs})`);
  compare('carol', many, r);
});

test('without change: a remainder that would be dust goes to the fee', () => {
  // One input: the fee of a one-input, no-output transaction plus less than the dust threshold.
  const probe = build('dave', utxosFor('dave', [100000000]), 'ff', V014).out;
  const noChangeMass = BigInt(probe.computeMass) - 10n * 36n - 54n; // minus the change output
  const amount = noChangeMass + 300n;
  const utxos = utxosFor('dave', [Number(amount)]);
  const { out } = build('dave', utxos, 'ff', V014);
  assert.equal(out.transaction.outputs.length, 0, 'no change output');
  assert.equal(BigInt(out.fee), amount);
  compare('dave', utxos, out);
});

test('payloads up to the standard limit, and one byte over it', () => {
  const utxos = utxosFor('erin', [2000000000]);
  const tooBig = kdapp(['wallet', 'build', '--key', 'test:erin', '--network', NET, '--utxos', writeJson(utxos),
    '--payload-file', zeroes(120000), ...V014], { ok: false });
  assert.equal(tooBig.status, 2);
  const room = Number(/at most (\d+) bytes of payload/.exec(tooBig.stderr)?.[1]);
  assert.ok(room > 90000, `${tooBig.stderr}`);
  const path = writeJson(utxos);
  const out = JSON.parse(kdapp(['wallet', 'build', '--key', 'test:erin', '--network', NET, '--utxos', path,
    '--payload-file', zeroes(room - 8), '--nonce', '0', ...V014]).stdout);
  assert.ok(BigInt(out.mass) <= 100000n && BigInt(out.mass) > 99000n, `mass ${out.mass} at the limit`);
  assert.equal(BigInt(out.mass), BigInt(mc.calcMassForTransaction(sdkTransaction(out.transaction, utxos))) + BigInt(out.storageMass));
  compare('erin', utxos, out);
  const over = kdapp(['wallet', 'build', '--key', 'test:erin', '--network', NET, '--utxos', writeJson(utxos),
    '--payload-file', zeroes(room - 7), ...V014], { ok: false });
  assert.equal(over.status, 2);
  assert.match(over.stderr, /non-standard/);
  // Under Crescendo, transient mass (4 a byte) bounds it lower.
  const cres = kdapp(['wallet', 'build', '--key', 'test:erin', '--network', NET, '--utxos', writeJson(utxos),
    '--payload-file', zeroes(room - 8)], { ok: false });
  assert.match(cres.stderr, /at most 24\d\d\d bytes of payload/);
});

test('errors: insufficient funds, no UTXOs, a foreign UTXO', () => {
  const poor = kdapp(['wallet', 'build', '--key', 'test:fred', '--network', NET, '--utxos',
    writeJson(utxosFor('fred', [1000, 500])), '--payload-hex', '01'], { ok: false });
  assert.equal(poor.status, 2);
  assert.match(poor.stderr, /insufficient funds: the transaction needs at least \d+ sompi .* the wallet has 1500 sompi in 2 UTXOs/);
  const none = kdapp(['wallet', 'build', '--key', 'test:fred', '--network', NET, '--utxos', writeJson([]),
    '--payload-hex', '01'], { ok: false });
  assert.match(none.stderr, /no UTXOs/);
  const foreign = kdapp(['wallet', 'build', '--key', 'test:fred', '--network', NET, '--utxos',
    writeJson(utxosFor('gina', [100000000])), '--payload-hex', '01'], { ok: false });
  assert.match(foreign.stderr, /input 0 spends a script that is not this key's/);
});

test('a wrong value is caught: a tampered id, amount or signature', () => {
  const utxos = utxosFor('hank', [700000000]);
  const { out } = build('hank', utxos, '0102', V014);
  const tampered = structuredClone(out.transaction);
  tampered.outputs[0].value += 1;
  assert.notEqual(sdkTransaction(tampered, utxos).id, out.id, 'another output value, another id');
  const lying = structuredClone(utxos);
  lying[0].utxoEntry.amount += 1; // the sighash commits to the spent amount
  const r = kdapp(['wallet', 'verify', '--utxos', writeJson(lying), '--tx', writeJson(out.transaction), '--rules', 'v0.14'], { ok: false });
  assert.equal(r.status, 1);
  assert.match(r.stdout, /input 0: the signature does not verify/);
});

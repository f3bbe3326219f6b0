// owners.test.mjs — two owners, one table (issue 39): two stdio gateways on one data directory (the
// first runs the engine and the devnet, the second attaches), each with its own key directory
// (--keys) and its own grant. Owner A opens a hold'em and a sea-battle table leaving a seat open;
// owner B finds them (kdapp_list_tables, kdapp://tables) and joins each with its own key, its
// commitment made by its own gateway; both play to the end through their own gateways, each
// gateway's duties thread answering its own seat. Neither key directory ever holds the other's key.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';

import { scratch, stdioClient, discoverTools, call } from './lib/harness.mjs';

let dirs;
let a;
let b;
let keysA;
let keysB;

before(async () => {
  dirs = scratch('owners');
  keysA = join(dirs.dir, 'keys-a');
  keysB = join(dirs.dir, 'keys-b');
  mkdirSync(keysA);
  mkdirSync(keysB);
  a = await stdioClient({ data: dirs.data, keys: keysA }, { name: 'owner-a', grant: 'agent1' });
  await discoverTools(a);
  b = await stdioClient({ data: dirs.data, keys: keysB }, { name: 'owner-b', grant: 'agent1' });
  await discoverTools(b);
});

after(async () => {
  await b?.close();
  await a?.close();
  dirs?.cleanup();
});

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const keyOf = async (c) => (await call(c, 'kdapp_get_agent_pubkeys')).structuredContent.agents[0].pubkey;
const files = (dir) => readdirSync(dir).map((f) => readFileSync(join(dir, f)).toString('hex'));

/** Plays episode `id` to its end: whoever is to move plays through its own gateway (`choose` gives
 *  the command), while the duties threads answer their own seats. Paced under the gateway's rate. */
async function playOut(id, seatOwner, choose) {
  for (let turns = 0; turns < 3000; turns++) {
    const v = (await call(a, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
    if (v.phase !== 'in_progress') return v;
    const seat = typeof v.to_move === 'number' ? v.to_move : v.to_move?.seat;
    if (seat === undefined || seat === null || seat < 0) { await sleep(50); continue; } // a duty is owed
    const who = seatOwner[seat];
    const command = await choose(who, v);
    const r = await who.callTool({ name: 'kdapp_execute_command', arguments: { episode_id: id, command } });
    if (r.isError) await sleep(50); // a duty landed first: read again
    await sleep(25);
  }
  assert.fail(`episode ${id} did not end`);
}

async function openAndJoin(type, params) {
  const opened = await call(a, 'kdapp_start_episode', { type, participants: ['agent1', 'open'], params });
  assert.ok(!opened.isError, opened.content[0].text);
  const id = opened.structuredContent.episode_id;
  assert.equal(opened.structuredContent.table.seats[1].open, true, 'seat 1 is open');
  const tables = (await call(b, 'kdapp_list_tables')).structuredContent.tables;
  assert.ok(tables.some((t) => t.episode_id === id && t.type === type), `owner B finds the ${type} table`);
  const res = await b.readResource({ uri: 'kdapp://tables' });
  assert.ok(JSON.parse(res.contents[0].text).tables.some((t) => t.episode_id === id), 'kdapp://tables lists it');
  const joined = await call(b, 'kdapp_join_episode', { episode_id: id });
  assert.ok(!joined.isError && joined.structuredContent.started, joined.content[0].text);
  const state = (await call(a, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
  const seated = JSON.stringify(state.participants);
  const [ka, kb] = [await keyOf(a), await keyOf(b)];
  assert.ok(seated.indexOf(ka) >= 0 && seated.indexOf(kb) > seated.indexOf(ka), `A sits in seat 0, B in seat 1: ${seated}`);
  return id;
}

test('the owners hold different keys, each its own', { timeout: 10000 }, async () => {
  assert.notEqual(await keyOf(a), await keyOf(b));
});

test("owner A opens hold'em, owner B joins, both play to the end", { timeout: 120000 }, async () => {
  const id = await openAndJoin('holdem', { hand_limit: 1, timeout: 600 });
  const end = await playOut(id, [a, b], async (who) => {
    // the SDK client checks the answer against the tool's output schema (move_rules an object when there)
    const legal = (await call(who, 'kdapp_legal_moves', { episode_id: id })).structuredContent;
    assert.ok(Array.isArray(legal.moves));
    return { fold: true };
  });
  assert.notEqual(end.phase, 'in_progress');
});

test('owner A opens sea battle, owner B joins, both play to the end', { timeout: 240000 }, async () => {
  const id = await openAndJoin('seabattle', {});
  const end = await playOut(id, [a, b], async (who) => {
    const legal = (await call(who, 'kdapp_legal_moves', { episode_id: id })).structuredContent;
    return legal.moves[0]?.command ?? {};
  });
  assert.equal(end.phase, 'won');
});

test("neither key directory holds the other's key", { timeout: 10000 }, async () => {
  const fa = files(keysA);
  const fb = files(keysB);
  assert.ok(fa.length > 0 && fb.length > 0);
  for (const f of fa) assert.ok(!fb.includes(f), 'no key file of A is in B');
  const [ka, kb] = [await keyOf(a), await keyOf(b)];
  for (const f of fa) assert.ok(!f.includes(kb) && !Buffer.from(f, 'hex').toString().includes(kb), "A's directory does not name B's key");
  for (const f of fb) assert.ok(!f.includes(ka) && !Buffer.from(f, 'hex').toString().includes(ka), "B's directory does not name A's key");
});

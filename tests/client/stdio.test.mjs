// stdio.test.mjs — the official MCP TypeScript SDK client drives
// `kdapp mcp` over stdio: discovery with every structured result checked
// against its tool's outputSchema, a whole stress-mode game to a win with the
// eviction visible in kdapp_get_strategy_context, illegal moves, unknown
// episodes and malformed params.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { McpError, ErrorCode, EmptyResultSchema } from '@modelcontextprotocol/sdk/types.js';

import {
  scratch, stdioClient, checkDiscovery, call, play, move, stateOf, GAME, CAP,
} from './lib/harness.mjs';

let dirs;
let client;

before(async () => {
  dirs = scratch('stdio');
  client = await stdioClient(dirs);
});

after(async () => {
  await client?.close();
  dirs?.cleanup();
});

test('discovery: tools, resources, templates, prompts', { timeout: 20000 }, async () => {
  await checkDiscovery(client);
  const keys = await call(client, 'kdapp_get_agent_pubkeys');
  const names = keys.structuredContent.agents.map((a) => a.name);
  assert.ok(names.includes('agent1') && names.includes('agent2'), `agent keys were created: ${names}`);
  for (const a of keys.structuredContent.agents) assert.match(a.pubkey, /^0[23][0-9a-f]{64}$/);
  const list = await call(client, 'kdapp_list_episodes');
  assert.deepEqual(list.structuredContent.episodes, []);
});

test('a stress-mode game to a win, eviction visible in the strategy context', { timeout: 30000 }, async () => {
  const started = await call(client, 'kdapp_start_episode', { cap: CAP });
  const id = started.structuredContent.episode_id;
  const v0 = started.structuredContent.view;
  assert.equal(v0.episode_id, id);
  assert.equal(v0.cap, CAP);
  assert.equal(v0.status, 'in_progress');
  assert.equal(v0.current, 'X');
  assert.deepEqual(v0.board, [[0, 0, 0], [0, 0, 0], [0, 0, 0]]);
  const pub = (await call(client, 'kdapp_get_agent_pubkeys')).structuredContent.agents;
  const byName = Object.fromEntries(pub.map((a) => [a.name, a.pubkey]));
  assert.deepEqual(v0.participants, [byName.agent1, byName.agent2], 'agent1 is X and agent2 is O');

  // six moves fill the window; nothing is removed yet
  for (let i = 0; i < CAP; i++) {
    const ctx = (await call(client, 'kdapp_get_strategy_context', { episode_id: id })).structuredContent;
    assert.equal(ctx.next_to_remove, null, `no mark is due for removal before move ${i + 1}`);
    assert.deepEqual(ctx.recent_moves, GAME.slice(0, i));
    await play(client, id, GAME[i]);
  }

  const before7 = await call(client, 'kdapp_get_strategy_context', { episode_id: id });
  const ctx6 = before7.structuredContent;
  assert.deepEqual(Object.keys(ctx6).sort(),
    ['board', 'cap', 'current', 'next_to_remove', 'recent_moves', 'rule_text'], 'exactly the seed shape');
  assert.deepEqual(ctx6.board, [[1, 0, 1], [2, 1, 0], [2, 0, 2]]);
  assert.equal(ctx6.current, 'X');
  assert.equal(ctx6.cap, CAP);
  assert.deepEqual(ctx6.recent_moves, GAME.slice(0, 6), 'recent_moves oldest to newest');
  assert.deepEqual(ctx6.next_to_remove, { row: 0, col: 0, player: 'X' }, 'the oldest mark is removed next');
  assert.match(ctx6.rule_text, /at most 6 symbols/);

  // the prompt tells the same story
  const prompt = await client.getPrompt({ name: 'kdapp_turn', arguments: { episode_id: String(id), player: 'X' } });
  const text = prompt.messages.map((m) => m.content.text).join('\n');
  assert.match(text, /at most 6 symbols/);
  assert.match(text, /oldest to newest\): \(0, 0, X\), \(2, 2, O\), \(0, 2, X\)/);
  assert.match(text, /removed next: \(0, 0, X\)/i);

  // the oldest mark's cell is still occupied: an illegal move, view unchanged
  const refused = await call(client, 'kdapp_execute_command', move(id, { row: 0, col: 0, player: 'X' }));
  assert.equal(refused.isError, true);
  assert.equal(refused.structuredContent.legal, false);
  assert.match(refused.structuredContent.error, /occupied/);
  const stateNow = (await call(client, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
  assert.deepEqual(stateOf(refused.structuredContent.view), stateOf(stateNow));
  assert.equal(stateNow.move_count, 6);

  // move 7 evicts X(0,0)
  const v7 = await play(client, id, GAME[6]);
  assert.equal(v7.board[0][0], 0, 'X(0,0) was removed');
  const ctx7 = (await call(client, 'kdapp_get_strategy_context', { episode_id: id })).structuredContent;
  assert.equal(ctx7.board[0][0], 0);
  assert.equal(ctx7.board[0][1], 1);
  assert.deepEqual(ctx7.recent_moves, GAME.slice(1, 7), 'the removed mark left the window; oldest to newest');
  assert.deepEqual(ctx7.next_to_remove, { row: 2, col: 2, player: 'O' }, 'O(2,2) is removed next');
  assert.equal(ctx7.current, 'O');

  // move 8 evicts O(2,2) and O completes column 0
  const v8 = await play(client, id, GAME[7]);
  assert.equal(v8.status, 'o_won');
  assert.equal(v8.board[2][2], 0, 'O(2,2) was removed before the win');
  assert.deepEqual(v8.board, [[2, 1, 1], [2, 1, 0], [2, 0, 0]]);
  const legal = await call(client, 'kdapp_legal_moves', { episode_id: id });
  assert.deepEqual(legal.structuredContent.moves, [], 'no moves once the game is over');
  assert.equal(legal.structuredContent.status, 'o_won');

  // a move after the win is refused with the final view
  const late = await call(client, 'kdapp_execute_command', move(id, { row: 2, col: 2, player: 'X' }));
  assert.equal(late.isError, true);
  assert.equal(late.structuredContent.legal, false);
  assert.deepEqual(stateOf(late.structuredContent.view), stateOf(v8));

  // the resource and the list agree
  const res = await client.readResource({ uri: `kdapp://episodes/${id}` });
  const rv = JSON.parse(res.contents[0].text);
  assert.deepEqual(stateOf(rv), stateOf(v8));
  const list = await call(client, 'kdapp_list_episodes');
  const entry = list.structuredContent.episodes.find((e) => e.episode_id === id);
  assert.equal(entry.status, 'o_won');
  assert.equal(entry.move_count, 8);
});

test('illegal moves: legal false, isError and the unchanged view', { timeout: 20000 }, async () => {
  const id = (await call(client, 'kdapp_start_episode', { cap: 3 })).structuredContent.episode_id;
  await play(client, id, { row: 1, col: 1, player: 'X' });
  const view = (await call(client, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
  const cases = [
    [{ row: 1, col: 1, player: 'O' }, /occupied/, 'cell_occupied'],
    [{ row: 0, col: 0, player: 'X' }, /O's turn/, 'wrong_turn'],
    [{ row: 3, col: 0, player: 'O' }, /outside the board/, 'out_of_bounds'],
  ];
  for (const [m, why, code] of cases) {
    const r = await call(client, 'kdapp_execute_command', move(id, m));
    assert.equal(r.isError, true, `${JSON.stringify(m)} is an error result`);
    assert.equal(r.structuredContent?.legal, false, `${JSON.stringify(m)}: legal false: ${r.content[0].text}`);
    assert.match(r.structuredContent.error, why);
    assert.equal(r.structuredContent.error_code, code);
    assert.ok(r.content[0].text.length > 0);
    assert.deepEqual(stateOf(r.structuredContent.view), stateOf(view), `${JSON.stringify(m)}: the view is unchanged`);
  }
  // and the episode still plays
  await play(client, id, { row: 0, col: 0, player: 'O' });
});

test('unknown episode: an error result, not a protocol error', { timeout: 10000 }, async () => {
  for (const name of ['kdapp_get_episode_state', 'kdapp_get_strategy_context', 'kdapp_legal_moves']) {
    const r = await client.callTool({ name, arguments: { episode_id: 4000000001 } });
    assert.equal(r.isError, true, `${name} on an unknown episode`);
    assert.match(r.content[0].text, /4000000001|unknown|not found|no episode/i);
  }
  const r = await client.callTool({ name: 'kdapp_execute_command', arguments: move(4000000001, { row: 0, col: 0, player: 'X' }) });
  assert.equal(r.isError, true);
  await assert.rejects(client.readResource({ uri: 'kdapp://episodes/4000000001' }),
    (e) => e instanceof McpError && e.code === -32002, 'an unknown resource is -32002');
});

test('arguments of the wrong type: an error result the model can act on (SEP-1303)', { timeout: 10000 }, async () => {
  // MCP 2025-11-25 (SEP-1303): a tool's input validation failures are tool
  // execution errors (isError with text naming the argument), not -32602.
  // A command is checked against its episode's type, so it needs an episode.
  const id = (await call(client, 'kdapp_start_episode', {})).structuredContent.episode_id;
  const bad = [
    ['kdapp_get_episode_state', { episode_id: 'seven' }, /episode_id/],
    ['kdapp_get_strategy_context', {}, /episode_id/],
    ['kdapp_legal_moves', { episode_id: -1 }, /episode_id/],
    ['kdapp_execute_command', { episode_id: id, command: { type: 'move', row: 'a', col: 0, player: 'X' } }, /row/],
    ['kdapp_execute_command', { episode_id: id, command: { type: 'move', row: 0, col: 0, player: 'Z' } }, /player/],
    ['kdapp_start_episode', { cap: 'six' }, /cap/],
    ['kdapp_simulate_reorg', { depth: 'one' }, /depth/],
    ['kdapp_list_episodes', { cursor: 5 }, /cursor/],
  ];
  for (const [name, args, names] of bad) {
    const r = await client.callTool({ name, arguments: args });
    assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} is an error result`);
    assert.match(r.content[0].text, names, `${name}: the text names the bad argument`);
  }
});

test('malformed params: JSON-RPC -32602; unknown method -32601', { timeout: 10000 }, async () => {
  const raw = (method, params) => client.request({ method, params }, EmptyResultSchema);
  const invalid = (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams;
  await assert.rejects(client.callTool({ name: 'kdapp_no_such_tool', arguments: {} }), invalid, 'an unknown tool');
  await assert.rejects(raw('tools/call', { name: 42, arguments: {} }), invalid, 'tools/call with a numeric name');
  await assert.rejects(raw('tools/call', { name: 'kdapp_list_episodes', arguments: [1, 2] }), invalid,
    'tools/call with array arguments');
  await assert.rejects(raw('tools/call', {}), invalid, 'tools/call without a name');
  await assert.rejects(raw('resources/read', { uri: 7 }), invalid, 'resources/read with a numeric uri');
  await assert.rejects(raw('resources/subscribe', {}), invalid, 'resources/subscribe without a uri');
  await assert.rejects(raw('prompts/get', { name: 'kdapp_turn', arguments: { episode_id: '1' } }), invalid,
    'prompts/get without the player argument');
  await assert.rejects(raw('logging/setLevel', { level: 'loud' }), invalid, 'an unknown log level');
  await assert.rejects(raw('no/such/method', {}), (e) => e instanceof McpError && e.code === ErrorCode.MethodNotFound);
  // the gateway is still there
  await client.ping();
});

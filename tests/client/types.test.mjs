// types.test.mjs — the gateway's generic surface, driven by the official MCP
// TypeScript SDK client over stdio: kdapp://types, kdapp_start_episode with a
// type and params (and today's {"cap": n} shorthand), seat counts, params and
// command JSON checked against the type's schemas, the legal moves as command
// JSON, the illegal-command answer with the type's rule code, and the turn
// prompt by seat name or index. Tic-tac-toe is the default type; checkers and
// chess show move_rules, the choose-one policy, FEN and SAN through the same tools.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { McpError, ErrorCode } from '@modelcontextprotocol/sdk/types.js';

import { scratch, stdioClient, discoverTools, call, stateOf } from './lib/harness.mjs';

let dirs;
let client;
let tools;

before(async () => {
  dirs = scratch('types');
  client = await stdioClient(dirs);
  tools = await discoverTools(client);
});

after(async () => {
  await client?.close();
  dirs?.cleanup();
});

/** A tool call that must fail with an error result whose text matches every pattern. */
async function refused(name, args, ...patterns) {
  const r = await client.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} is an error result: ${JSON.stringify(r)}`);
  for (const p of patterns) assert.match(r.content[0].text, p, `${name} ${JSON.stringify(args)}`);
  return r;
}

test('kdapp://types describes every type with parsed schemas and rule codes', { timeout: 10000 }, async () => {
  const res = await client.readResource({ uri: 'kdapp://types' });
  assert.equal(res.contents[0].mimeType, 'application/json');
  const doc = JSON.parse(res.contents[0].text);
  assert.equal(doc.default, 'tictactoe');
  const ttt = doc.types.find((t) => t.name === 'tictactoe');
  assert.ok(ttt, 'tictactoe is described');
  assert.equal(ttt.title, 'Tic-tac-toe');
  assert.ok(ttt.summary.length > 20, 'a summary of the rules');
  assert.deepEqual(ttt.seats, { names: ['X', 'O'], min: 2, max: 2 });
  assert.equal(typeof ttt.params_schema, 'object', 'params_schema is JSON, not a string');
  assert.equal(ttt.params_schema.type, 'object');
  assert.ok(ttt.params_schema.properties.cap, 'the cap parameter');
  assert.equal(typeof ttt.command_schema, 'object', 'command_schema is JSON, not a string');
  assert.deepEqual([...ttt.command_schema.required].sort(), ['col', 'row']);
  const codes = Object.fromEntries(ttt.rule_codes.map((c) => [c.code, c.meaning]));
  for (const c of ['game_over', 'out_of_bounds', 'wrong_turn', 'unauthorised', 'cell_occupied'])
    assert.ok(typeof codes[c] === 'string' && codes[c].length > 0, `rule code ${c} with its meaning`);
  assert.deepEqual(ttt.env, ['KDAPP_TTT_STRESS', 'KDAPP_TTT_MAX_SYMBOLS']);

  // the tools' schemas and descriptions come from the same table
  const start = tools.find((t) => t.name === 'kdapp_start_episode');
  assert.deepEqual(start.inputSchema.properties.type.enum, doc.types.map((t) => t.name));
  assert.match(start.inputSchema.properties.type.description, /tictactoe: Tic-tac-toe, 2 seats \(X, O\)/);
  assert.match(start.description, /Tic-tac-toe/);
  assert.deepEqual(start.inputSchema.properties.params.anyOf, doc.types.map((t) => t.params_schema));
  const exec = tools.find((t) => t.name === 'kdapp_execute_command');
  assert.deepEqual(exec.inputSchema.properties.command.anyOf, doc.types.map((t) => t.command_schema));
});

test('start: type and params, the cap shorthand, and the default type', { timeout: 20000 }, async () => {
  const a = (await call(client, 'kdapp_start_episode', { type: 'tictactoe', params: { cap: 4 } })).structuredContent;
  assert.equal(a.view.type, 'tictactoe');
  assert.equal(a.view.cap, 4);
  assert.equal(a.view.phase, 'in_progress');
  assert.equal(a.view.to_move, 0);
  const b = (await call(client, 'kdapp_start_episode', { cap: 5 })).structuredContent;
  assert.equal(b.view.type, 'tictactoe', 'the first registered type is the default');
  assert.equal(b.view.cap, 5, 'a top-level argument is a member of params');
  const c = (await call(client, 'kdapp_start_episode', { params: {} })).structuredContent;
  assert.equal(c.view.cap, null, 'empty params: the engine default (classic here)');
  const d = (await call(client, 'kdapp_start_episode', { participants: ['agent2', 'agent1'], params: { cap: null } }))
    .structuredContent;
  const keys = Object.fromEntries((await call(client, 'kdapp_get_agent_pubkeys')).structuredContent.agents
    .map((k) => [k.name, k.pubkey]));
  assert.deepEqual(d.view.participants, [keys.agent2, keys.agent1], 'participants fill the seats in order');
  assert.equal(d.view.cap, null);
});

test('start: wrong seat counts, unknown types and bad params are error results', { timeout: 20000 }, async () => {
  await refused('kdapp_start_episode', { participants: ['agent1'] }, /tictactoe/, /2 seats \(X, O\)/, /got 1 participant\b/);
  await refused('kdapp_start_episode', { type: 'tictactoe', participants: ['agent1', 'agent2', 'agent1'] },
    /tictactoe/, /2 seats/, /got 3 participants/);
  await refused('kdapp_start_episode', { type: 'go' }, /type/);
  await refused('kdapp_start_episode', { cap: 'six' }, /params of tictactoe\/cap/, /type string/);
  await refused('kdapp_start_episode', { cap: 0 }, /cap/, /minimum/);
  await refused('kdapp_start_episode', { params: { caps: 3 } }, /caps/);
  await refused('kdapp_start_episode', { params: { cap: 3 }, cap: 4 }, /cap is given twice/);
  await refused('kdapp_start_episode', { params: 7 }, /params/);
  const listed = (await call(client, 'kdapp_list_episodes')).structuredContent.episodes;
  for (const e of listed) assert.ok(e.phase && e.type, 'every listed episode has its type and phase');
});

test('legal moves: command JSON and notation, with the seat to move', { timeout: 20000 }, async () => {
  const id = (await call(client, 'kdapp_start_episode', { cap: 3 })).structuredContent.episode_id;
  const lm = (await call(client, 'kdapp_legal_moves', { episode_id: id })).structuredContent;
  assert.equal(lm.episode_id, id);
  assert.equal(lm.type, 'tictactoe');
  assert.equal(lm.phase, 'in_progress');
  assert.deepEqual(lm.to_move, { seat: 0, name: 'X' });
  assert.equal(lm.winner, null);
  assert.equal(lm.current, 'X', "today's member, from the view");
  assert.equal(lm.status, 'in_progress', "today's member, from the view");
  assert.equal(lm.moves.length, 9);
  for (const m of lm.moves) {
    assert.deepEqual(m.command, { type: 'move', row: m.row, col: m.col, player: 'X' });
    assert.equal(m.notation, `(${m.row}, ${m.col})`);
  }
  // a listed command is played as it is
  const first = lm.moves.find((m) => m.row === 1 && m.col === 1);
  const r = await call(client, 'kdapp_execute_command', { episode_id: id, command: first.command });
  assert.equal(r.structuredContent.legal, true, r.content[0].text);
  const after = (await call(client, 'kdapp_legal_moves', { episode_id: id })).structuredContent;
  assert.deepEqual(after.to_move, { seat: 1, name: 'O' });
  assert.equal(after.moves.length, 8);
  assert.ok(after.moves.every((m) => m.command.player === 'O'));
});

test('commands: the type checks the JSON; a refused command answers with its rule code', { timeout: 20000 }, async () => {
  const id = (await call(client, 'kdapp_start_episode', { cap: 3 })).structuredContent.episode_id;
  // player may be left out: the seat to move (X) acts
  const ok = await call(client, 'kdapp_execute_command', { episode_id: id, command: { row: 1, col: 1 } });
  assert.equal(ok.structuredContent.legal, true, ok.content[0].text);
  assert.equal(ok.structuredContent.view.board[1][1], 1);
  const view = (await call(client, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;

  await refused('kdapp_execute_command', { episode_id: id, command: { row: 0 } }, /command/, /col/);
  await refused('kdapp_execute_command', { episode_id: id, command: { type: 'jump', row: 0, col: 0 } }, /command\/type/);
  await refused('kdapp_execute_command', { episode_id: id, command: 'e2e4' }, /command/);
  await refused('kdapp_execute_command', { episode_id: 4000000001, command: { row: 0, col: 0 } }, /4000000001/);

  // O (to move, signed by the gateway's key of O's seat) plays the occupied cell
  const r = await call(client, 'kdapp_execute_command', { episode_id: id, command: { row: 1, col: 1 } });
  assert.equal(r.isError, true);
  const sc = r.structuredContent;
  assert.equal(sc.legal, false);
  assert.equal(sc.error_code, 'cell_occupied');
  assert.match(sc.error, /occupied/);
  assert.match(r.content[0].text, /cell_occupied/);
  assert.equal(sc.legal_moves.length, 8);
  for (const m of sc.legal_moves) {
    assert.equal(m.command.player, 'O');
    assert.equal(typeof m.notation, 'string');
  }
  assert.deepEqual(stateOf(sc.view), stateOf(view), 'the view is unchanged');

  // a named signer acts for its own seat: agent1 (X) when it is O's turn
  const w = await call(client, 'kdapp_execute_command', { episode_id: id, command: { row: 0, col: 0 }, signer: 'agent1' });
  assert.equal(w.structuredContent.legal, false);
  assert.equal(w.structuredContent.error_code, 'wrong_turn');
  assert.deepEqual(stateOf(w.structuredContent.view), stateOf(view));
});

test('the turn prompt by seat name or index', { timeout: 10000 }, async () => {
  const id = (await call(client, 'kdapp_start_episode', { cap: 6 })).structuredContent.episode_id;
  const byName = await client.getPrompt({ name: 'kdapp_turn', arguments: { episode_id: String(id), player: 'O' } });
  const byIndex = await client.getPrompt({ name: 'kdapp_turn', arguments: { episode_id: String(id), player: '1' } });
  assert.deepEqual(byIndex.messages, byName.messages);
  assert.match(byName.description, /^O's turn prompt for episode \d+ \(Tic-tac-toe\)$/);
  assert.match(byName.messages[0].content.text, /at most 6 symbols/);
  const invalid = (e) => e instanceof McpError && e.code === ErrorCode.InvalidParams;
  await assert.rejects(client.getPrompt({ name: 'kdapp_turn', arguments: { episode_id: String(id), player: 'Z' } }),
    (e) => invalid(e) && /X, O/.test(e.message), 'an unknown seat names the seats');
  await assert.rejects(client.getPrompt({ name: 'kdapp_turn', arguments: { episode_id: String(id), player: '2' } }),
    invalid, 'a seat index beyond the participants');
});

test('checkers through the gateway: a forced capture, its move_rules and the choose-one policy', { timeout: 20000 }, async () => {
  // white (moving toward rank 1) on c5 must jump black's d4
  const start = '......../......../......../..w...../...b..../......../......../........ w';
  const id = (await call(client, 'kdapp_start_episode', { type: 'checkers', params: { start } })).structuredContent.episode_id;
  const lm = (await call(client, 'kdapp_legal_moves', { episode_id: id })).structuredContent;
  assert.deepEqual(lm.to_move, { seat: 0, name: 'white' });
  assert.deepEqual(lm.moves.map((m) => m.notation), ['c5e3']);
  assert.deepEqual(lm.moves[0].command, { move: 'c5e3' });
  assert.deepEqual(lm.move_rules, { must_capture: true, forced_captures: ['c5e3'] });
  assert.deepEqual(lm.policy, { must_choose_from_moves: true, choose_exactly_one: true });
  const view = (await call(client, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
  assert.ok(Number.isInteger(lm.log_seq) && lm.log_seq > 0, 'the list names the log entry it is for');
  assert.equal(lm.log_seq, view.log_seq, 'the list and the state read with nothing between are of one entry');
  const no = await call(client, 'kdapp_execute_command', { episode_id: id, command: { move: 'c5b4' } });
  assert.equal(no.structuredContent.legal, false);
  assert.equal(no.structuredContent.error_code, 'capture_required');
  assert.deepEqual(stateOf(no.structuredContent.view), stateOf(view), 'a refused move leaves the view unchanged');
  const yes = await call(client, 'kdapp_execute_command', { episode_id: id, command: { move: 'c5e3' } });
  assert.equal(yes.structuredContent.legal, true, yes.content[0].text);
  assert.equal(yes.structuredContent.view.state_text, '......../......../......../......../......../....w.../......../........ b');
  assert.equal(yes.structuredContent.view.phase, 'won', 'black has nothing left to move');
  const after = (await call(client, 'kdapp_legal_moves', { episode_id: id })).structuredContent;
  assert.ok(after.log_seq > lm.log_seq, 'a move makes the list of a later entry');
});

test('chess through the gateway: a FEN start, UCI in, SAN and FEN out, an illegal move refused', { timeout: 20000 }, async () => {
  const fen = '4k3/8/8/8/8/8/4P3/4K2R w K - 0 1';
  const id = (await call(client, 'kdapp_start_episode', { type: 'chess', params: { fen } })).structuredContent.episode_id;
  const lm = (await call(client, 'kdapp_legal_moves', { episode_id: id })).structuredContent;
  assert.ok(lm.moves.some((m) => m.notation === 'e1g1' && m.command.uci === 'e1g1'), 'castling is listed in UCI');
  assert.deepEqual(lm.move_rules, { check: false });
  assert.deepEqual(lm.policy, { must_choose_from_moves: true, choose_exactly_one: true });
  const no = await call(client, 'kdapp_execute_command', { episode_id: id, command: { uci: 'e1e3' } });
  assert.equal(no.structuredContent.legal, false);
  assert.equal(no.structuredContent.error_code, 'illegal_move');
  assert.equal(no.structuredContent.view.fen, fen, 'the unchanged FEN');
  const yes = await call(client, 'kdapp_execute_command', { episode_id: id, command: { uci: 'e1g1' } });
  assert.equal(yes.structuredContent.legal, true, yes.content[0].text);
  assert.deepEqual(yes.structuredContent.view.last_move, { uci: 'e1g1', san: 'O-O' });
  assert.equal(yes.structuredContent.view.fen, '4k3/8/8/8/8/8/4P3/5RK1 b - - 1 1');
  await refused('kdapp_start_episode', { type: 'chess', params: { fen: '8/8/8/8/8/8/8/K6K w - - 0 1' } }, /king/);
});

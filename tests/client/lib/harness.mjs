// harness.mjs — shared helpers for the MCP client tests: a fresh data and
// key directory per gateway, gateways over stdio (through the SDK's stdio
// transport) and over Streamable HTTP (spawned here, URL parsed from its
// stderr), JSON Schema validation of structured results, and bounded waits on
// conditions (never fixed sleeps).
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import assert from 'node:assert/strict';

import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import Ajv2020 from 'ajv/dist/2020.js';

export const KDAPP = process.env.KDAPP;
if (!KDAPP) throw new Error('KDAPP must name the kdapp binary (ctest sets it; e.g. KDAPP=build/bin/kdapp)');

export const TOOLS = [
  'kdapp_start_episode', 'kdapp_execute_command', 'kdapp_get_episode_state', 'kdapp_get_strategy_context',
  'kdapp_legal_moves', 'kdapp_list_episodes', 'kdapp_get_agent_pubkeys', 'kdapp_simulate_reorg',
  'kdapp_get_ratings', 'kdapp_list_tables', 'kdapp_join_episode', 'kdapp_cancel_table',
];

/** A fresh directory under $KD_TEST_TMP (or the system temp dir), removed by cleanup(). */
export function scratch(name) {
  const parent = process.env.KD_TEST_TMP || tmpdir();
  mkdirSync(parent, { recursive: true });
  const dir = mkdtempSync(join(parent, `client-${name}-`));
  return {
    dir,
    data: join(dir, 'data'),
    keys: join(dir, 'keys'),
    cleanup: () => rmSync(dir, { recursive: true, force: true }),
  };
}

/** Resolves when pred() is truthy; pred is re-evaluated whenever kick() is called. */
export class Signal {
  constructor() { this.waiters = new Set(); }
  kick() { for (const w of [...this.waiters]) w(); }
  async until(pred, what, timeoutMs = 10000) {
    let v = pred();
    if (v) return v;
    return new Promise((resolve, reject) => {
      const check = () => {
        let r;
        try { r = pred(); } catch (e) { done(); reject(e); return; }
        if (r) { done(); resolve(r); }
      };
      const timer = setTimeout(() => { done(); reject(new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)); }, timeoutMs);
      const done = () => { clearTimeout(timer); this.waiters.delete(check); };
      this.waiters.add(check);
    });
  }
}

/** Stderr of a child, kept for diagnostics (bounded). */
function collect(stream, sink) {
  stream.setEncoding('utf8');
  stream.on('data', (chunk) => {
    sink.text += chunk;
    if (sink.text.length > 200000) sink.text = sink.text.slice(-100000);
    sink.signal.kick();
  });
}

/** The seats a test's gateway is started for: the agent keys it creates on first start. */
export const GRANT = 'agent1,agent2';

function gatewayArgs(dirs, blockMs, extra = [], grants = [GRANT]) {
  return ['mcp', ...extra, ...grants.flatMap((g) => ['--grant', g]), '--data', dirs.data, '--keys', dirs.keys,
    '--block-ms', String(blockMs)];
}

/** A client connected to a stdio gateway it spawns; close() ends both. */
export async function stdioClient(dirs, { blockMs = 20, name = 'kdapp-client-test', grant = GRANT } = {}) {
  const transport = new StdioClientTransport({
    command: KDAPP,
    args: gatewayArgs(dirs, blockMs, [], grant ? [grant] : []),
    stderr: 'pipe',
  });
  const log = { text: '', signal: new Signal() };
  const client = new Client({ name, version: '1.0.0' });
  // the stderr stream exists as soon as the transport is constructed
  collect(transport.stderr, log);
  await client.connect(transport);
  client.gatewayLog = log;
  return client;
}

/** Spawns kdapp with `args`; resolves once ready(stderr so far) returns a value, with that value's
 *  fields, the child, its log and stop() (SIGTERM, then SIGKILL after killMs). */
export async function daemon(args, { env = {}, ready, what, killMs = 5000 }) {
  const child = spawn(KDAPP, args, { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, ...env } });
  const log = { text: '', signal: new Signal() };
  const out = { text: '', signal: log.signal };
  collect(child.stderr, log);
  collect(child.stdout, out);
  log.stdout = out;
  let exited = null;
  const exit = new Promise((resolve) => child.on('exit', (code, sig) => { exited = { code, sig }; log.signal.kick(); resolve(exited); }));
  const found = await log.signal.until(() => {
    if (exited) throw new Error(`kdapp ${args[0]} exited (${JSON.stringify(exited)}) before serving:\n${log.text}`);
    return ready(log.text);
  }, what, 15000);
  return {
    ...found,
    child,
    log,
    async stop() {
      if (exited) return exited;
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), killMs);
      const r = await exit;
      clearTimeout(timer);
      return r;
    },
  };
}

/** Spawns `kdapp mcp --http BIND:0 --grant G ...` (bind 127.0.0.1 unless given; `grants`, each a
 *  grant, default [GRANT]; [] for none) and resolves its /mcp URL (read from its stderr), `base`, the
 *  loopback address of its board page, `tokens`, each grant's bearer token by grant (printed once on
 *  its stdout: "grant NAMES token T"), and `token`, the first grant's (null without one). */
export async function httpGateway(dirs, { blockMs = 20, extra = [], env = {}, bind = '127.0.0.1', grants = [GRANT] } = {}) {
  let log;
  const gw = await daemon(gatewayArgs(dirs, blockMs, ['--http', `${bind}:0`, ...extra], grants), {
    env,
    ready: (text) => {
      const m = /serving MCP on (http:\/\/\S+\/mcp)/.exec(text);
      if (!m) return null;
      const url = new URL(m[1]);
      return { url, base: `http://127.0.0.1:${url.port}` };
    },
    what: 'the gateway to print "serving MCP on http://…/mcp"',
  });
  log = gw.log;
  gw.tokens = {};
  await log.signal.until(() => {
    for (const m of log.stdout.text.matchAll(/^grant (\S+) token ([0-9a-f]{64})$/mg)) gw.tokens[m[1]] = m[2];
    return Object.keys(gw.tokens).length === grants.length;
  }, 'the gateway to print a token for each grant');
  gw.token = grants.length ? gw.tokens[grants[0]] : null;
  return gw;
}

/** Spawns `kdapp up` (engine + devnet daemon) on dirs.data; resolves once it serves, with its URLs. */
export async function upDaemon(dirs, { blockMs = 20 } = {}) {
  return daemon(['up', '--data', dirs.data, '--block-ms', String(blockMs), '--quiet'], {
    ready: (text) => {
      const views = /\n\s+views\s+(\S+)/.exec(text);
      const devnet = /\n\s+devnet\s+(\S+)/.exec(text);
      return views && devnet && { views: views[1], devnet: devnet[1] };
    },
    what: '`kdapp up` to print its URLs',
    killMs: 10000,
  });
}

/** Runs fn(gw, dirs, up) against a fresh HTTP gateway (httpGateway options from gatewayOpts(up)), attached
 *  to a fresh `kdapp up` when withUp; then stops both and, when fn succeeded, checks both exited cleanly. */
export async function withGateway(name, { withUp = false, gatewayOpts = () => ({}) }, fn) {
  const dirs = scratch(name);
  let up;
  let gw;
  let failed = true;
  try {
    if (withUp) up = await upDaemon(dirs);
    gw = await httpGateway(dirs, gatewayOpts(up));
    await fn(gw, dirs, up);
    failed = false;
  } finally {
    const exits = [];
    for (const [what, d] of [['the gateway', gw], ['kdapp up', up]]) if (d) exits.push([what, d, await d.stop()]);
    dirs.cleanup();
    if (!failed) for (const [what, d, r] of exits) assert.equal(r.code, 0, `${what} exits cleanly: ${d.log.text.slice(-2000)}`);
  }
}

/** Opens n HTTP clients on `url` at once (with bearer `token`; their tools discovered), hands them
 *  and a fresh block of n episode ids to fn, and closes them whatever fn does. */
export async function withAgents(url, n, name, fn, token = null) {
  const clients = await Promise.all(Array.from({ length: n }, (_, i) => httpClient(url, `${name}-${i}`, token)));
  try {
    await discoverTools(clients[0]);
    const base = 1000 + Math.floor(Math.random() * 1e6);
    return await fn(clients, clients.map((_, i) => base + i));
  } finally {
    await Promise.all(clients.map((c) => c.close().catch(() => {})));
  }
}

/** The episodes in the store itself (`kdapp list --json`, read-only beside a running daemon), by id. */
export function storeEpisodes(dirs) {
  const out = execFileSync(KDAPP, ['list', '--data', dirs.data, '--json'], { encoding: 'utf8' });
  const eps = new Map();
  for (const line of out.split('\n').filter((l) => l.trim())) {
    const v = JSON.parse(line);
    eps.set(v.episode_id, v);
  }
  return eps;
}

/** Every episode kdapp_list_episodes lists (all pages), by id. */
export async function listedEpisodes(client) {
  const eps = new Map();
  let cursor;
  do {
    const page = (await call(client, 'kdapp_list_episodes', cursor ? { cursor } : {})).structuredContent;
    for (const e of page.episodes) eps.set(e.episode_id, e);
    cursor = page.nextCursor;
  } while (cursor);
  return eps;
}

/** A client of the HTTP gateway at `url`, sending `token` (when given) as its bearer token. */
export async function httpClient(url, name = 'kdapp-client-test', token = null) {
  const client = new Client({ name, version: '1.0.0' });
  const requestInit = token ? { headers: { Authorization: `Bearer ${token}` } } : undefined;
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit }));
  return client;
}

/* ------------------------------------------------------------ schemas */

const ajv = new Ajv2020({ allErrors: true, strict: true });
const validators = new Map();

/** Lists the tools (all pages) and compiles each outputSchema with ajv. */
export async function discoverTools(client) {
  const tools = [];
  let cursor;
  do {
    const page = await client.listTools(cursor ? { cursor } : {});
    tools.push(...page.tools);
    cursor = page.nextCursor;
  } while (cursor);
  for (const t of tools) {
    validators.set(t.name, ajv.compile(t.outputSchema));
    ajv.compile(t.inputSchema); // a well-formed schema too
  }
  return tools;
}

/** Calls a tool and checks the result's structuredContent against its outputSchema (ajv). */
export async function call(client, name, args = {}) {
  const r = await client.callTool({ name, arguments: args });
  assert.ok(Array.isArray(r.content) && r.content.length > 0 && r.content[0].type === 'text',
    `${name}: a text rendering comes with every result`);
  assert.ok(r.structuredContent && typeof r.structuredContent === 'object',
    `${name}: structuredContent is present (${JSON.stringify(r).slice(0, 300)})`);
  const validate = validators.get(name);
  assert.ok(validate, `${name}: discoverTools() compiled its outputSchema`);
  assert.ok(validate(r.structuredContent),
    `${name}: structuredContent does not match the outputSchema: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(r.structuredContent)}`);
  return r;
}

/** Checks the discovery surface every transport must offer. */
export async function checkDiscovery(client) {
  const caps = client.getServerCapabilities();
  assert.ok(caps.tools, 'tools capability');
  assert.equal(caps.resources?.subscribe, true, 'resources.subscribe capability');
  assert.equal(caps.resources?.listChanged, true, 'resources.listChanged capability');
  assert.ok(caps.prompts, 'prompts capability');
  assert.ok(caps.logging, 'logging capability');

  const tools = await discoverTools(client);
  assert.deepEqual(tools.map((t) => t.name).sort(), [...TOOLS].sort());
  for (const t of tools) {
    assert.ok(typeof t.title === 'string' && t.title.length > 0, `${t.name}: title`);
    assert.ok(typeof t.description === 'string' && t.description.length > 20, `${t.name}: description`);
    assert.equal(t.inputSchema?.type, 'object', `${t.name}: inputSchema`);
    assert.equal(t.outputSchema?.type, 'object', `${t.name}: outputSchema`);
    assert.ok(t.annotations && typeof t.annotations.readOnlyHint === 'boolean', `${t.name}: annotations.readOnlyHint`);
  }
  const ro = Object.fromEntries(tools.map((t) => [t.name, t.annotations.readOnlyHint]));
  for (const n of ['kdapp_get_episode_state', 'kdapp_get_strategy_context', 'kdapp_legal_moves',
    'kdapp_list_episodes', 'kdapp_get_agent_pubkeys', 'kdapp_get_ratings', 'kdapp_list_tables'])
    assert.equal(ro[n], true, `${n} is read-only`);
  for (const n of ['kdapp_start_episode', 'kdapp_execute_command', 'kdapp_simulate_reorg', 'kdapp_join_episode',
    'kdapp_cancel_table'])
    assert.equal(ro[n], false, `${n} writes`);

  const { resources } = await client.listResources();
  assert.ok(resources.some((r) => r.uri === 'kdapp://episodes'), 'kdapp://episodes is listed');
  assert.ok(resources.some((r) => r.uri === 'kdapp://types'), 'kdapp://types is listed');
  const { resourceTemplates } = await client.listResourceTemplates();
  assert.ok(resourceTemplates.some((t) => t.uriTemplate === 'kdapp://episodes/{episode_id}'), 'the episode template');
  const { prompts } = await client.listPrompts();
  const turn = prompts.find((p) => p.name === 'kdapp_turn');
  assert.ok(turn, 'the kdapp_turn prompt');
  assert.deepEqual(turn.arguments.filter((a) => a.required).map((a) => a.name).sort(), ['episode_id', 'player']);
  await client.ping();
  return tools;
}

/* ------------------------------------------------------------ the game */

/** A stress-mode (cap 6) game that O wins on move 8; move 7 evicts X(0,0) and
 *  move 8 evicts O(2,2) before O completes column 0:
 *    1 X(0,0) 2 O(2,2) 3 X(0,2) 4 O(2,0) 5 X(1,1) 6 O(1,0) 7 X(0,1) 8 O(0,0) */
export const CAP = 6;
export const GAME = [
  [0, 0, 'X'], [2, 2, 'O'], [0, 2, 'X'], [2, 0, 'O'], [1, 1, 'X'], [1, 0, 'O'], [0, 1, 'X'], [0, 0, 'O'],
].map(([row, col, player]) => ({ row, col, player }));

export const move = (episode_id, m) => ({ episode_id, command: { type: 'move', row: m.row, col: m.col, player: m.player } });

/** The parts of a view that a rejected move must leave unchanged. */
export const stateOf = (v) => ({
  board: v.board, current: v.current, status: v.status, cap: v.cap, move_count: v.move_count,
  recent_moves: v.recent_moves, next_to_remove: v.next_to_remove, log_seq: v.log_seq, block_hash: v.block_hash,
});

/** Plays one legal move, checking it is among kdapp_legal_moves first (by today's row/col members,
 *  and by the generic command JSON and seat to move). */
export async function play(client, id, m) {
  const legal = await call(client, 'kdapp_legal_moves', { episode_id: id });
  assert.ok(legal.structuredContent.moves.some((c) => c.row === m.row && c.col === m.col),
    `(${m.row},${m.col}) is among the legal moves: ${legal.content[0].text}`);
  assert.ok(legal.structuredContent.moves.some((c) => c.command.row === m.row && c.command.col === m.col
    && c.command.player === m.player), `(${m.row},${m.col}) is among the legal commands: ${legal.content[0].text}`);
  assert.equal(legal.structuredContent.current, m.player);
  assert.equal(legal.structuredContent.to_move?.name, m.player);
  const r = await call(client, 'kdapp_execute_command', move(id, m));
  assert.ok(!r.isError, `move ${JSON.stringify(m)} is accepted: ${r.content[0].text}`);
  assert.equal(r.structuredContent.legal, true);
  const v = r.structuredContent.view;
  assert.equal(v.board[m.row][m.col], m.player === 'X' ? 1 : 2);
  assert.deepEqual(v.recent_moves.at(-1), m, 'the newest recent move is the one just played');
  return v;
}

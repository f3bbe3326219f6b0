// grants.test.mjs — seat grants over Streamable HTTP with the official MCP SDK client (issue 24, B1):
// `kdapp mcp --http` started with a token for blue (agent1), one for red (agent2) and one for both.
// The attack as it was done — while blue is to move, a session asks for red's fleet and then resigns
// as red (signer agent2) — fails for a session without a token and for blue's; red's token does what
// red may; a session id used with another token is refused (403); the board page shows no fleet.
import test from 'node:test';
import assert from 'node:assert/strict';

import { scratch, httpGateway, httpClient, discoverTools, call } from './lib/harness.mjs';

const GRANTS = ['agent1', 'agent2', 'agent1,agent2'];
let dirs;
let gw;
const clients = [];

test.before(async () => {
  dirs = scratch('grants');
  gw = await httpGateway(dirs, { grants: GRANTS });
});

test.after(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => {})));
  const r = await gw?.stop();
  dirs?.cleanup();
  assert.equal(r?.code, 0, `the gateway exits cleanly: ${gw?.log.text.slice(-2000)}`);
});

async function client(name, token) {
  const c = await httpClient(gw.url, name, token);
  clients.push(c);
  await discoverTools(c);
  return c;
}

const text = (r) => r.content?.[0]?.text ?? '';

async function refused(c, name, args, pattern) {
  const r = await c.callTool({ name, arguments: args });
  assert.equal(r.isError, true, `${name} ${JSON.stringify(args)} is refused: ${text(r)}`);
  assert.match(text(r), pattern);
  return r;
}

test('a session acts and sees only as the seats its token grants', { timeout: 60000 }, async () => {
  const both = await client('both', gw.tokens['agent1,agent2']);
  const blue = await client('blue', gw.tokens.agent1);
  const red = await client('red', gw.tokens.agent2);
  const anon = await client('anonymous', null);

  const keys = (await call(blue, 'kdapp_get_agent_pubkeys')).structuredContent;
  assert.deepEqual(keys.agents.map((k) => k.name), ['agent1'], 'blue holds blue\'s key only');
  assert.deepEqual((await call(anon, 'kdapp_get_agent_pubkeys')).structuredContent.agents, [], 'the public none');

  const started = await call(both, 'kdapp_start_episode', { type: 'seabattle', participants: ['agent1', 'agent2'] });
  const id = started.structuredContent.episode_id;
  assert.equal(started.structuredContent.view.shooter, 'blue', 'blue is to move');

  for (const [who, c] of [['the public', anon], ['blue', blue]]) {
    await refused(c, 'kdapp_get_episode_state', { episode_id: id, player: 'red' }, /not granted the key of red/);
    await refused(c, 'kdapp_get_strategy_context', { episode_id: id, player: 'red' }, /not granted the key of red/);
    await refused(c, 'kdapp_execute_command', { episode_id: id, signer: 'agent2', command: { resign: true } },
      /may not sign with that key/);
    const v = (await call(c, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
    assert.equal(v.stage, 'play', `${who}: red has not resigned`);
    assert.equal(v.own_secret, undefined, `${who}: no secret in the public view`);
  }
  await refused(anon, 'kdapp_execute_command', { episode_id: id, command: { shot: 'c5' } }, /holds no key of the seat to move/);
  await refused(anon, 'kdapp_simulate_reorg', { depth: 1 }, /only a session granted a seat/);

  // blue sees its own fleet and shoots; red's answer comes from the duties thread (red is granted)
  const own = (await call(blue, 'kdapp_get_episode_state', { episode_id: id, player: 'blue' })).structuredContent;
  assert.equal(own.own_secret?.seat, 'blue');
  assert.equal(own.own_secret.fleet.length, 10);
  const shot = await call(blue, 'kdapp_execute_command', { episode_id: id, command: { shot: 'c5' } });
  assert.equal(shot.structuredContent.legal, true, text(shot));
  let v;
  for (let i = 0; i < 200; i++) {
    v = (await call(red, 'kdapp_get_episode_state', { episode_id: id, player: 'red' })).structuredContent;
    if (v.shooter === 'red') break;
    await new Promise((r) => setTimeout(r, 50));
  }
  assert.equal(v.shooter, 'red', 'red\'s answer was paid by itself');
  assert.equal(v.own_secret?.seat, 'red', 'red sees red\'s fleet');
  // red may do what red may: resign
  const resign = await call(red, 'kdapp_execute_command', { episode_id: id, command: { resign: true } });
  assert.equal(resign.structuredContent.legal, true, text(resign));

  // the page's data is public: no fleet in it
  const page = await (await fetch(`${gw.base}/api/episodes/${id}`)).json();
  assert.equal(page.view.own_secret, undefined);
  assert.doesNotMatch(JSON.stringify(page), /"fleet"/);
});

test('a session belongs to its token', { timeout: 30000 }, async () => {
  const headers = (token) => ({
    'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
    'MCP-Protocol-Version': '2025-11-25', ...(token ? { Authorization: `Bearer ${token}` } : {}),
  });
  const init = await fetch(gw.url, {
    method: 'POST', headers: headers(gw.tokens.agent1),
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize',
      params: { protocolVersion: '2025-11-25', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } }),
  });
  assert.equal(init.status, 200);
  const sid = init.headers.get('mcp-session-id');
  await init.text();
  const list = (token) => fetch(gw.url, {
    method: 'POST', headers: { ...headers(token), 'Mcp-Session-Id': sid },
    body: JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/list' }),
  });
  const other = await list(gw.tokens.agent2);
  assert.equal(other.status, 403, 'red\'s token on blue\'s session');
  await other.text();
  const none = await list(null);
  assert.equal(none.status, 403, 'no token on blue\'s session');
  await none.text();
  const wrong = await list('0'.repeat(64));
  assert.equal(wrong.status, 401, 'an unknown token');
  await wrong.text();
  const mine = await list(gw.tokens.agent1);
  assert.equal(mine.status, 200);
  await mine.text();
});

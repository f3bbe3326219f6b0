// ratings.test.mjs — the ratings through the official MCP TypeScript SDK client
// over stdio: kdapp_get_ratings (its outputSchema checked), the resource
// kdapp://ratings (listed, read, and its subscriber told of the block that
// finishes a game), a game between the two granted keys moving them 10.00
// each way, a game against oneself rating nothing, and an unknown type
// answered with an error result that names it.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { ResourceUpdatedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

import { scratch, stdioClient, discoverTools, call, move, Signal } from './lib/harness.mjs';

let dirs;
let client;

before(async () => {
  dirs = scratch('ratings');
  client = await stdioClient(dirs);
  await discoverTools(client);
});

after(async () => {
  await client?.close();
  dirs?.cleanup();
});

const X_WINS = [[0, 0, 'X'], [1, 0, 'O'], [0, 1, 'X'], [1, 1, 'O'], [0, 2, 'X']].map(([row, col, player]) => ({ row, col, player }));

async function playOut(id, moves) {
  for (const m of moves) {
    const r = await call(client, 'kdapp_execute_command', move(id, m));
    assert.equal(r.structuredContent.legal, true, `move ${JSON.stringify(m)}: ${r.content[0].text}`);
  }
}

test('kdapp_get_ratings and kdapp://ratings follow the finished games', { timeout: 60000 }, async () => {
  const { resources } = await client.listResources();
  assert.ok(resources.some((r) => r.uri === 'kdapp://ratings'), 'kdapp://ratings is listed');
  const empty = (await call(client, 'kdapp_get_ratings')).structuredContent;
  assert.deepEqual(empty.ratings, [], 'no rated games yet');
  assert.equal(empty.formula.k, 20);
  assert.equal(empty.formula.start, 1500);

  const keys = Object.fromEntries((await call(client, 'kdapp_get_agent_pubkeys')).structuredContent.agents
    .map((a) => [a.name, a.pubkey]));

  // a game against oneself: finished, rates nothing
  const self = (await call(client, 'kdapp_start_episode', { type: 'tictactoe', participants: ['agent1', 'agent1'] }))
    .structuredContent.episode_id;
  await playOut(self, X_WINS);
  assert.deepEqual((await call(client, 'kdapp_get_ratings')).structuredContent.ratings, [], 'self-play is not rated');

  const id = (await call(client, 'kdapp_start_episode', { type: 'tictactoe', participants: ['agent1', 'agent2'] }))
    .structuredContent.episode_id;
  await playOut(id, X_WINS.slice(0, -1));
  const signal = new Signal();
  let updates = 0;
  client.setNotificationHandler(ResourceUpdatedNotificationSchema, (n) => {
    if (n.params.uri === 'kdapp://ratings') { updates++; signal.kick(); }
  });
  await client.subscribeResource({ uri: 'kdapp://ratings' });
  await playOut(id, X_WINS.slice(-1));
  await signal.until(() => updates > 0, 'kdapp://ratings updated after the winning move');

  const r = await call(client, 'kdapp_get_ratings', { type: 'tictactoe' });
  const by = Object.fromEntries(r.structuredContent.ratings.map((e) => [e.key, e]));
  assert.equal(by[keys.agent1]?.rating_x100, 151000, `agent1 won: ${r.content[0].text}`);
  assert.equal(by[keys.agent2]?.rating_x100, 149000, 'agent2 lost');
  assert.equal(by[keys.agent1].wins, 1);
  assert.equal(by[keys.agent2].losses, 1);
  assert.equal(r.structuredContent.games_rated, 1);
  assert.match(r.content[0].text, /Tic-tac-toe/);
  assert.equal(r.structuredContent.ratings[0].key, keys.agent1, 'the higher rating first');

  const res = await client.readResource({ uri: 'kdapp://ratings' });
  assert.equal(res.contents[0].mimeType, 'application/json');
  assert.deepEqual(JSON.parse(res.contents[0].text).ratings, r.structuredContent.ratings, 'the resource is the tool');

  const other = (await call(client, 'kdapp_get_ratings', { type: 'chess' })).structuredContent;
  assert.deepEqual(other.ratings, [], 'no chess games');
});

test('an unknown type is an error result that names it', { timeout: 10000 }, async () => {
  const r = await client.callTool({ name: 'kdapp_get_ratings', arguments: { type: 'nosuchgame' } });
  assert.equal(r.isError, true);
  assert.match(r.content[0].text, /unknown episode type 'nosuchgame'/);
});

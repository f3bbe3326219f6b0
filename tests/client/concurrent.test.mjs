// concurrent.test.mjs — 24 agents at once, each in its own Streamable HTTP
// session, against `kdapp mcp --http` attached to `kdapp up` and against the
// embedded default (`kdapp mcp --http` alone). All 24 kdapp_start_episode
// calls are in flight together, then every agent plays a game to X's win,
// the 24 games interleaved. Every answer must be true: each start and each
// legal move is confirmed; an episode a client was told exists is listed by
// kdapp_list_episodes and is in the store (`kdapp list`), and one it was
// told was not created is in neither; the store's board holds exactly the
// confirmed moves.
//
// Attached, the gateway's HTTP threads share one devnet client: before each
// request had its own NNG context, one thread's request cancelled another's
// wait ("Operation canceled") although the devnet had queued it.
import { test } from 'node:test';
import assert from 'node:assert/strict';

import {
  withGateway, withAgents, listedEpisodes, storeEpisodes, move,
} from './lib/harness.mjs';

const AGENTS = 24;
/* The agents are one tokenless loopback client: its shares must hold them all, each with its GET stream
 * (else the gateway sheds the idle sessions of the heaviest client, by design: http_share_test.c). */
const SHARES = { env: { KDAPP_MCP_SESSIONS_PER_CLIENT: String(2 * AGENTS), KDAPP_MCP_STREAMS_PER_CLIENT: String(2 * AGENTS) } };
/* X wins along the top row on move 5 (classic mode). */
const WIN = [[0, 0, 'X'], [1, 0, 'O'], [0, 1, 'X'], [1, 1, 'O'], [0, 2, 'X']].map(([row, col, player]) => ({ row, col, player }));

const text = (r) => (r.error ? `threw ${r.error.message}` : r.content?.[0]?.text ?? JSON.stringify(r));

async function callRaw(client, name, args) {
  try {
    return await client.callTool({ name, arguments: args }, undefined, { timeout: 90000 });
  } catch (error) {
    return { error };
  }
}

/** One agent: its start answer, then (when started) its moves' answers in order. */
async function agent(client, id, started) {
  const a = { id, start: started, moves: [] };
  if (started.error || started.isError) return a;
  for (const m of WIN) {
    const r = await callRaw(client, 'kdapp_execute_command', move(id, m));
    a.moves.push({ m, r });
    if (r.error || r.isError || r.structuredContent?.legal !== true) break;
  }
  return a;
}

/** Runs the agents against the gateway at `url`; returns every answer that was not true. */
async function agentsAgainst(url, dirs) {
  return withAgents(url, AGENTS, 'agent', async (clients, ids) => {
    const starts = await Promise.all(clients.map((c, i) => callRaw(c, 'kdapp_start_episode', { episode_id: ids[i] })));
    const agents = await Promise.all(clients.map((c, i) => agent(c, ids[i], starts[i])));

    const listed = await listedEpisodes(clients[0]);
    const stored = storeEpisodes(dirs);
    const problems = [];
    const created = new Set();
    for (const a of agents) {
      const s = a.start;
      if (!s.error && !s.isError) {
        created.add(a.id);
        if (s.structuredContent?.episode_id !== a.id) problems.push(`episode ${a.id}: the start answered ${text(s)}`);
        if (!listed.has(a.id)) problems.push(`episode ${a.id} was confirmed but kdapp_list_episodes does not list it`);
        if (!stored.has(a.id)) problems.push(`episode ${a.id} was confirmed but is not in the store`);
      } else {
        problems.push(`episode ${a.id}: the start was not confirmed: ${text(s)}`);
        if (/was not created/.test(text(s)) && (listed.has(a.id) || stored.has(a.id)))
          problems.push(`episode ${a.id}: told "not created", yet it exists`);
        continue;
      }
      let confirmed = 0;
      for (const { m, r } of a.moves) {
        if (r.error || r.isError || r.structuredContent?.legal !== true) {
          problems.push(`episode ${a.id}: legal move ${JSON.stringify(m)} was not confirmed: ${text(r)}`);
          break;
        }
        confirmed++;
        if (r.structuredContent.view.board[m.row][m.col] !== (m.player === 'X' ? 1 : 2))
          problems.push(`episode ${a.id}: the confirmed view lacks ${JSON.stringify(m)}`);
      }
      const v = stored.get(a.id);
      if (v && v.move_count !== confirmed)
        problems.push(`episode ${a.id}: ${confirmed} moves confirmed, the store has ${v.move_count}`);
      if (v && confirmed === WIN.length && v.status !== 'x_won')
        problems.push(`episode ${a.id}: the store says ${v.status}, not x_won`);
    }
    for (const id of listed.keys())
      if (!created.has(id)) problems.push(`kdapp_list_episodes lists episode ${id}, which no client was told exists`);
    return problems;
  });
}

const checkAgents = async (gw, dirs) => {
  const problems = await agentsAgainst(gw.url, dirs);
  assert.deepEqual(problems, [], `untrue answers:\n${problems.join('\n')}\ngateway stderr:\n${gw.log.text.slice(-3000)}`);
};

test(`${AGENTS} agents at once, gateway attached to \`kdapp up\``, { timeout: 150000 }, () =>
  withGateway('concurrent-up', { withUp: true, gatewayOpts: () => SHARES }, async (gw, dirs) => {
    await gw.log.signal.until(() => /attached to the engine/.test(gw.log.text), 'the gateway to attach to `kdapp up`');
    await checkAgents(gw, dirs);
  }));

test(`${AGENTS} agents at once, embedded gateway`, { timeout: 150000 }, () =>
  withGateway('concurrent-embedded', { gatewayOpts: () => SHARES }, checkAgents));

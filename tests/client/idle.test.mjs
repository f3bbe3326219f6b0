// idle.test.mjs — `kdapp mcp --http` beside hundreds of connections that
// send half a request and wait. Before, 128 of them locked every client
// out (each new connection was reset at once) and they never timed out.
// Here 300 of them are held while the official SDK client plays: every
// call is served (within a generous bound), the gateway closes the
// half-open connections once they have been silent for its timeout
// (KDAPP_MCP_TIMEOUT_S, 3 s here), and an event stream that stays quiet
// all that time is not cut: it carries keepalives and still delivers.
//
// Bounded: loopback only, 300 sockets, every wait has a deadline, and the
// sockets and the gateway are closed in after().
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import net from 'node:net';
import http from 'node:http';

import { scratch, httpGateway, httpClient, discoverTools, call, play, Signal, GAME, CAP } from './lib/harness.mjs';

const HALF_OPEN = 300;
const TIMEOUT_S = 3;
const PROTOCOL = '2025-11-25';

let dirs;
let gw;
let client;
const sockets = [];
let stream;

before(async () => {
  dirs = scratch('idle');
  gw = await httpGateway(dirs, { env: { KDAPP_MCP_TIMEOUT_S: String(TIMEOUT_S) } });
});

after(async () => {
  for (const s of sockets) s.destroy();
  stream?.req.destroy();
  await client?.close().catch(() => {});
  const r = await gw?.stop();
  if (r && r.code !== 0) console.error(`gateway exit ${JSON.stringify(r)}:\n${gw.log.text}`);
  dirs?.cleanup();
});

/** A connection that sends half the headers of a POST, then nothing; resolves once connected. */
function halfOpen(closes) {
  return new Promise((resolve, reject) => {
    const s = net.connect({ host: gw.url.hostname, port: Number(gw.url.port) });
    s.closedByServer = false;
    s.once('connect', () => {
      s.write(`POST /mcp HTTP/1.1\r\nHost: ${gw.url.host}\r\nContent-Type: appli`);
      s.on('error', () => {}); // a reset counts as a close
      resolve(s);
    });
    s.once('error', reject);
    s.on('data', () => {}); // an answer before the close, if any
    s.on('close', () => { s.closedByServer = true; closes.kick(); });
  });
}

/** One raw JSON-RPC POST; resolves {status, headers, body}. */
function post(sid, message) {
  return new Promise((resolve, reject) => {
    const body = JSON.stringify(message);
    const headers = {
      'Content-Type': 'application/json', Accept: 'application/json, text/event-stream',
      'MCP-Protocol-Version': PROTOCOL, 'Content-Length': Buffer.byteLength(body),
    };
    if (sid) headers['Mcp-Session-Id'] = sid;
    const req = http.request(gw.url, { method: 'POST', headers, agent: false }, (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (d) => { text += d; });
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: text }));
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** A session of its own, subscribed to `uri`, with one raw GET event stream (so every message reaches it). */
async function watch(uri) {
  const init = await post(null, {
    jsonrpc: '2.0', id: 1, method: 'initialize',
    params: { protocolVersion: PROTOCOL, capabilities: {}, clientInfo: { name: 'idle-watcher', version: '1' } },
  });
  assert.equal(init.status, 200, init.body);
  const sid = init.headers['mcp-session-id'];
  assert.equal((await post(sid, { jsonrpc: '2.0', method: 'notifications/initialized' })).status, 202);
  const sub = await post(sid, { jsonrpc: '2.0', id: 2, method: 'resources/subscribe', params: { uri } });
  assert.equal(sub.status, 200, sub.body);
  const st = { text: '', ended: false, signal: new Signal() };
  st.req = http.request(gw.url, {
    method: 'GET',
    agent: false,
    headers: { Accept: 'text/event-stream', 'Mcp-Session-Id': sid, 'MCP-Protocol-Version': PROTOCOL },
  }, (res) => {
    st.status = res.statusCode;
    res.setEncoding('utf8');
    res.on('data', (d) => { st.text += d; st.signal.kick(); });
    res.on('close', () => { st.ended = true; st.signal.kick(); });
  });
  st.req.on('error', () => { st.ended = true; st.signal.kick(); });
  st.req.end();
  await st.signal.until(() => st.text.includes(': stream open'), 'the event stream to open');
  st.openedAt = Date.now();
  return st;
}

/** Runs f(): it must be answered (a locked-out call fails, or meets the
 * client's request timeout). How fast is a benchmark's question, never a
 * test's (kdapp bench --only mcp prints it). */
async function served(what, f) {
  try {
    return await f();
  } catch (e) {
    throw new Error(`${what} was not served: ${e.message}`);
  }
}

test('hundreds of half-open connections lock no agent out and time out; a quiet stream lives on',
  { timeout: 120000 }, async () => {
    client = await httpClient(gw.url, 'idle-player', gw.token);
    await discoverTools(client);
    const id = (await call(client, 'kdapp_start_episode', { cap: CAP })).structuredContent.episode_id;
    const uri = `kdapp://episodes/${id}`;
    stream = await watch(uri);

    const closes = new Signal();
    for (let i = 0; i < HALF_OPEN; i++) sockets.push(await halfOpen(closes));

    // Every call is served beside them.
    for (let i = 0; i < 5; i++) {
      await served(`list ${i}`, () => call(client, 'kdapp_list_episodes'));
      await served(`state ${i}`, () => call(client, 'kdapp_get_episode_state', { episode_id: id }));
    }
    await served('a new session', async () => {
      const c = await httpClient(gw.url, 'late', gw.token);
      await c.ping();
      await c.close();
    });

    // The gateway closes every half-open connection once it has been silent for the timeout.
    await closes.until(() => sockets.every((s) => s.closedByServer),
      `the gateway to close all ${HALF_OPEN} half-open connections`, 60000);

    // The quiet stream outlived the timeout, with keepalives, and still delivers.
    const openMs = Date.now() - stream.openedAt;
    assert.ok(openMs > TIMEOUT_S * 1000, `the stream has been open ${openMs} ms`);
    assert.equal(stream.ended, false, 'the quiet event stream is still open');
    assert.ok(/: keepalive/.test(stream.text), `it carried keepalives:\n${stream.text}`);
    await served('a move', () => play(client, id, GAME[0]));
    await stream.signal.until(() => stream.text.includes('notifications/resources/updated'),
      'the stream to deliver the update');
    assert.ok(stream.text.includes(uri));
  });

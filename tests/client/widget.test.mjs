// widget.test.mjs — the MCP App widget (SEP-1865) of `kdapp mcp`: the
// server offers the extension, the tools that return a board name
// ui://kdapp/board.html in their _meta, and the resource is one
// self-contained document. Then the widget runs in Debian's chromium inside
// a host page whose host side of the MCP Apps protocol is the
// @modelcontextprotocol/ext-apps AppBridge (here in Node, its messages
// relayed to the widget's sandboxed iframe by postMessage): for a tool
// result of each type it draws the board `kdapp show --json` reads from the
// store, reports its size, shows a refused move without changing the
// board, and logs no error. The OpenAI Apps SDK form (text/html+skybridge)
// draws from window.openai.toolOutput and redraws on openai:set_globals.
// Screenshots go to $KD_SCREENSHOTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { AppBridge } from '@modelcontextprotocol/ext-apps/app-bridge';

import { scratch, stdioClient, discoverTools, call } from './lib/harness.mjs';
import {
  BOARD_TYPES, launchBrowser, watchedPage, screenshot, drawnBoard, expectedBoard, storedView, startEachType, playFirstLegal,
} from './lib/browser.mjs';

const WIDGET = 'ui://kdapp/board.html';
const SKYBRIDGE = 'ui://kdapp/board-skybridge.html';
const BOARD_TOOLS = ['kdapp_start_episode', 'kdapp_execute_command', 'kdapp_get_episode_state'];
let dirs;
let client;
let tools;
let browser;
let ids;

before(async () => {
  dirs = scratch('widget');
  client = await stdioClient(dirs);
  tools = await discoverTools(client);
  browser = await launchBrowser();
  ids = await startEachType(client, 3);
});

after(async () => {
  await browser?.close();
  await client?.close();
  dirs?.cleanup();
});

async function widgetHtml(uri) {
  const { contents } = await client.readResource({ uri });
  assert.equal(contents.length, 1);
  return contents[0];
}

test('the server offers MCP Apps; board tools name the widget; the widget is one self-contained document', async () => {
  const caps = client.getServerCapabilities();
  assert.deepEqual(caps.extensions?.['io.modelcontextprotocol/ui'], {}, `capabilities.extensions: ${JSON.stringify(caps)}`);
  for (const t of tools) {
    if (BOARD_TOOLS.includes(t.name)) {
      assert.equal(t._meta?.ui?.resourceUri, WIDGET, `${t.name}: _meta.ui.resourceUri`);
      assert.equal(t._meta?.['openai/outputTemplate'], SKYBRIDGE, `${t.name}: openai/outputTemplate`);
    } else {
      assert.equal(t._meta, undefined, `${t.name} returns no board`);
    }
  }
  const { resources } = await client.listResources();
  assert.equal(resources.find((r) => r.uri === WIDGET)?.mimeType, 'text/html;profile=mcp-app');
  assert.equal(resources.find((r) => r.uri === SKYBRIDGE)?.mimeType, 'text/html+skybridge');
  for (const [uri, mime] of [[WIDGET, 'text/html;profile=mcp-app'], [SKYBRIDGE, 'text/html+skybridge']]) {
    const c = await widgetHtml(uri);
    assert.equal(c.mimeType, mime);
    assert.match(c.text, /^<!DOCTYPE html>/);
    assert.doesNotMatch(c.text, /\b(src|href)\s*=|@import|url\(|kdapp:(styles|scripts)/, `${uri} loads nothing and has no marks left`);
    for (const [type] of BOARD_TYPES) assert.ok(c.text.includes(`kdapp.renderers.${type} =`), `${uri} draws ${type}`);
  }
  assert.deepEqual((await widgetHtml(WIDGET))._meta?.ui?.csp, { connectDomains: [], resourceDomains: [] });
  // structuredContent stays small (a board and its facts)
  for (const [type] of BOARD_TYPES) {
    const r = await call(client, 'kdapp_get_episode_state', { episode_id: ids[type] });
    const size = JSON.stringify(r.structuredContent).length;
    console.log(`widget: ${type} structuredContent is ${size} bytes`);
    assert.ok(size < 8192, `${type}: structuredContent is ${size} bytes`);
  }
});

/** A transport for AppBridge that relays JSON-RPC messages to and from the widget's iframe in `page`. */
class IframeRelay {
  constructor(page) { this.page = page; }
  async start() {}
  async send(message) {
    await this.page.evaluate((m) => document.getElementById('app').contentWindow.postMessage(m, '*'), message);
  }
  async close() { this.onclose?.(); }
}

/** A host page with the widget in a sandboxed iframe, its host side an AppBridge; resolves once
 *  the widget has initialised, with the page, the bridge and the sizes the widget reported. */
async function hostWidget(html) {
  const page = await watchedPage(browser);
  const bridge = new AppBridge(null, { name: 'kdapp-test-host', version: '1.0.0' }, { openLinks: {} },
    { hostContext: { theme: 'light', displayMode: 'inline', platform: 'web' } });
  const relay = new IframeRelay(page);
  const sizes = [];
  bridge.onsizechange = (s) => sizes.push(s);
  const initialised = new Promise((resolve) => { bridge.oninitialized = resolve; });
  await page.exposeFunction('toHost', (m) => relay.onmessage?.(m));
  await page.setContent('<!DOCTYPE html><title>host</title><iframe id="app" sandbox="allow-scripts" style="width:620px;height:640px;border:1px solid #ccc"></iframe>');
  await page.evaluate(() => window.addEventListener('message', (e) => {
    if (e.source === document.getElementById('app').contentWindow) window.toHost(e.data);
  }));
  await bridge.connect(relay);
  await page.evaluate((h) => { document.getElementById('app').srcdoc = h; }, html);
  await initialised;
  const frame = page.frames().find((f) => f !== page.mainFrame());
  return { page, bridge, frame, sizes };
}

function waitForTitle(frame, text) {
  return frame.waitForFunction((t) => document.getElementById('title').textContent.includes(t), { timeout: 10000 }, text);
}

test('inside an MCP Apps host the widget draws each type from the tool result', { timeout: 90000 }, async () => {
  const html = (await widgetHtml(WIDGET)).text;
  for (const [type] of BOARD_TYPES) {
    const id = ids[type];
    const { page, bridge, frame, sizes } = await hostWidget(html);
    const args = { episode_id: id };
    const result = await client.callTool({ name: 'kdapp_get_episode_state', arguments: args });
    await bridge.sendToolInput({ arguments: args });
    await bridge.sendToolResult(result);
    await waitForTitle(frame, `episode ${id} (${type})`);
    const drawn = await drawnBoard(frame);
    assert.deepEqual(drawn.tokens, expectedBoard(storedView(dirs, id)), `${type}: the widget draws the stored board`);
    await screenshot(await page.$('#app'), `widget-${type}`);
    const sized = () => sizes.some((s) => s.width > 0 && s.height > 0);
    for (let i = 0; i < 200 && !sized(); i++) await new Promise((r) => setTimeout(r, 50)); // bounded: 10 s
    assert.ok(sized(), `${type}: the widget reports its size (${JSON.stringify(sizes)})`);
    assert.deepEqual(page.problems, [], `${type}: the widget logs no error`);
    await bridge.teardownResource({});
    await page.close();
  }
});

test('a refused move is shown as refused, on the unchanged board', { timeout: 30000 }, async () => {
  const id = ids.tictactoe;
  const { page, bridge, frame } = await hostWidget((await widgetHtml(WIDGET)).text);
  const before = storedView(dirs, id);
  const taken = before.recent_moves[0];
  const args = { episode_id: id, command: { row: taken.row, col: taken.col } };
  const result = await client.callTool({ name: 'kdapp_execute_command', arguments: args });
  assert.equal(result.structuredContent.legal, false, JSON.stringify(result.structuredContent));
  await bridge.sendToolInput({ arguments: args });
  await bridge.sendToolResult(result);
  await frame.waitForFunction(() => !document.getElementById('error').hidden, { timeout: 10000 });
  assert.match(await frame.$eval('#error', (e) => e.textContent), /^refused: /);
  assert.deepEqual((await drawnBoard(frame)).tokens, expectedBoard(before), 'the board is the one before the move');
  assert.deepEqual(page.problems, []);
  await page.close();
});

test('the OpenAI Apps SDK form draws window.openai.toolOutput and redraws on openai:set_globals', { timeout: 30000 }, async () => {
  const html = (await widgetHtml(SKYBRIDGE)).text;
  const id = ids.chess;
  const first = (await call(client, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
  const page = await watchedPage(browser, { width: 620, height: 640 });
  await page.evaluateOnNewDocument((sc) => { window.openai = { toolOutput: sc }; }, first);
  await page.goto(`data:text/html;charset=utf-8,${encodeURIComponent(html)}`); // a new document: openai is set first
  await waitForTitle(page, `episode ${id} (chess)`);
  assert.deepEqual((await drawnBoard(page)).tokens, expectedBoard(first));
  await screenshot(page, 'widget-skybridge-chess');

  const moved = { legal: true, view: await playFirstLegal(client, id) }; // as kdapp_execute_command answers
  await page.evaluate((sc) => {
    window.openai.toolOutput = sc;
    window.dispatchEvent(new CustomEvent('openai:set_globals', { detail: { globals: { toolOutput: sc } } }));
  }, moved);
  await page.waitForFunction((n) => document.getElementById('facts').textContent.includes(`moves${n}`), { timeout: 10000 }, moved.view.move_count);
  assert.deepEqual((await drawnBoard(page)).tokens, expectedBoard(storedView(dirs, id)));
  assert.deepEqual(page.problems, []);
  await page.close();
});

// page.test.mjs — the board page of `kdapp mcp --http` in a real browser
// (Debian's chromium, headless, through puppeteer-core): for each type the
// page draws the same board as `kdapp show --json` reads from the store; a
// move made through MCP appears on the open page; a devnet reorg brings an
// evicted mark back, highlighted, and the undone move fades; the page's own
// requests carry the bearer token only in a header (never in an address or
// a Referer), a page without the token says so, and a foreign origin gets a
// 403; no page logs an error. Screenshots go to $KD_SCREENSHOTS.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';

import { scratch, httpGateway, httpClient, discoverTools, call, CAP, GAME, move } from './lib/harness.mjs';
import {
  FOREIGN_HOST, BOARD_TYPES, launchBrowser, watchedPage, screenshot, drawnBoard, expectedBoard, storedView, startEachType, playFirstLegal,
} from './lib/browser.mjs';

let dirs;
let gw;
let client;
let browser;

before(async () => {
  dirs = scratch('page');
  gw = await httpGateway(dirs, { blockMs: 20 });
  client = await httpClient(gw.url, 'page-test', gw.token);
  await discoverTools(client);
  browser = await launchBrowser();
});

after(async () => {
  await browser?.close();
  await client?.close();
  await gw?.stop();
  dirs?.cleanup();
});

/** Waits until the page's facts say it reflects log position `seq`. */
function waitForSeq(page, seq) {
  return page.waitForFunction((want) => {
    const dt = [...document.querySelectorAll('#facts dt')].find((d) => d.textContent === 'position');
    return dt && dt.nextElementSibling.textContent.startsWith('log entry ' + want + ',');
  }, { timeout: 10000 }, seq);
}

test('for each type the page draws the board kdapp show --json reads from the store', { timeout: 60000 }, async () => {
  const ids = await startEachType(client, 3);
  const list = await watchedPage(browser);
  await list.goto(`${gw.base}/`);
  await list.waitForFunction((n) => document.querySelectorAll('#episodes tbody tr').length === n, { timeout: 10000 }, BOARD_TYPES.length);
  const rows = await list.$$eval('#episodes tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  for (const [type] of BOARD_TYPES) assert.ok(rows.some((r) => r[0] === String(ids[type]) && r[1] === type && r[4] === '3'), `the list shows ${type}: ${JSON.stringify(rows)}`);
  await screenshot(list, 'page-list');
  assert.deepEqual(list.problems, [], 'the list page logs no error');
  await list.close();

  for (const [type] of BOARD_TYPES) {
    const view = storedView(dirs, ids[type]);
    const page = await watchedPage(browser);
    await page.goto(`${gw.base}/episodes/${ids[type]}`);
    await waitForSeq(page, view.log_seq);
    const drawn = await drawnBoard(page);
    assert.deepEqual(drawn.tokens, expectedBoard(view), `${type}: the page draws the stored board`);
    assert.match(await page.$eval('#title', (e) => e.textContent), new RegExp(`episode ${ids[type]} \\(${type}\\)`));
    await screenshot(page, `page-${type}`);
    assert.deepEqual(page.problems, [], `${type}: the page logs no error`);
    await page.close();
  }
});

test('a move through MCP appears on the open page; a reorg brings the evicted mark back', { timeout: 60000 }, async () => {
  const id = (await call(client, 'kdapp_start_episode', { cap: CAP })).structuredContent.episode_id;
  const page = await watchedPage(browser);
  await page.goto(`${gw.base}/episodes/${id}`);
  await page.waitForSelector('#drawn .cell');
  assert.equal(await page.$eval('#updates-title', (e) => e.hidden), true, 'no heading over no updates');
  // every board the page draws, as it draws it (a rollback is soon followed by the re-included move)
  await page.evaluate(() => {
    window.drawnBoards = [];
    const take = () => {
      const cells = [...document.querySelectorAll('#drawn .cell')];
      window.drawnBoards.push({ at: performance.now(), tokens: cells.map((d) => (d.classList.contains('gone') ? '' : d.textContent)),
        back: cells.flatMap((d, i) => (d.classList.contains('back') ? [i] : [])), gone: cells.flatMap((d, i) => (d.classList.contains('gone') ? [i] : [])) });
    };
    new MutationObserver(take).observe(document.getElementById('board'), { childList: true });
  });
  let v;
  for (const m of GAME.slice(0, 7)) {
    const r = await call(client, 'kdapp_execute_command', move(id, m));
    assert.equal(r.structuredContent.legal, true, r.content[0].text);
    v = r.structuredContent.view;
    await waitForSeq(page, v.log_seq); // the move appears on the open page
    assert.deepEqual((await drawnBoard(page)).tokens, expectedBoard(v), `move ${v.move_count} is drawn`);
  }
  assert.equal(v.board[0][0], 0, 'move 7 evicted X(0,0)');
  // the page says the rule in force in words, and what its marks mean
  const n = v.next_to_remove;
  assert.equal(await page.$eval('#rule', (e) => e.textContent),
    `at most ${CAP} marks; ${n.player} at (${n.row},${n.col}) goes next (three in a row wins; no draw)`);
  const legend = await page.$$eval('#legend dd', (dds) => dds.map((d) => d.textContent));
  assert.deepEqual(legend, ['the last move', 'a winning line', 'the mark the next move removes (the oldest)',
    'a mark gone: removed by the cap, or its move undone by a reorg', 'a mark back on the board after a rollback']);
  const swatches = await page.$$eval('#legend dt .cell', (cs) => cs.map((c) => c.className));
  assert.deepEqual(swatches, ['cell last', 'cell win', 'cell fade', 'cell gone', 'cell back'], 'each drawn as the board draws it');
  assert.equal(await page.$eval('#loading', (e) => e.hidden), true, 'the loading line is gone');
  const afterMoves = await page.evaluate(() => window.drawnBoards.length);

  const reorg = await call(client, 'kdapp_simulate_reorg', { depth: 1 });
  assert.equal(reorg.structuredContent.reverted, 1, reorg.content[0].text);
  const answeredAt = await page.evaluate(() => performance.now());
  const back = await page.waitForFunction((from) => window.drawnBoards.slice(from).find((b) => b.back.includes(0)),
    { timeout: 10000 }, afterMoves).then((h) => h.jsonValue());
  assert.equal(back.tokens[0], 'X', 'X(0,0) is back on the page');
  assert.deepEqual(back.back, [0], 'and highlighted as back');
  assert.ok(back.gone.includes(1), 'the undone move X(0,1) fades out');
  // (negative: drawn before the tool's answer reached this client)
  console.log(`page: the rollback was drawn ${(back.at - answeredAt).toFixed(0)} ms after the reorg was answered`);
  // the devnet re-includes move 7: the page ends on the same board as the store (read once the
  // store has it again: read at once, it could still be the rolled-back board the page has left)
  let stored = storedView(dirs, id);
  for (const until = Date.now() + 10000; stored.move_count < v.move_count && Date.now() < until;) {
    await new Promise((r) => setTimeout(r, 20)); // a poll interval, bounded above
    stored = storedView(dirs, id);
  }
  assert.equal(stored.move_count, v.move_count, 'the devnet re-included move 7');
  await waitForSeq(page, stored.log_seq);
  assert.deepEqual((await drawnBoard(page)).tokens, expectedBoard(stored));
  await screenshot(page, 'page-tictactoe-stress');
  assert.deepEqual(page.problems, [], 'the page logs no error');
  await page.close();
});

test('the token travels only in a header; without it the page says so; a foreign origin gets 403', { timeout: 60000 }, async () => {
  const token = 'page-browser-token-5678';
  const tdirs = scratch('page-token');
  const tgw = await httpGateway(tdirs, { bind: '0.0.0.0', env: { KDAPP_MCP_TOKEN: token } });
  let foreign;
  try {
    const page = await watchedPage(browser);
    const requests = [];
    page.on('request', (r) => requests.push({ url: r.url(), headers: r.headers() }));
    await page.goto(`${tgw.base}/#token=${token}`);
    await page.waitForFunction(() => document.getElementById('live').textContent === 'live', { timeout: 10000 });
    assert.equal(await page.evaluate(() => location.hash), '', 'the token is taken out of the address bar');
    assert.equal(await page.$eval('#error', (e) => e.hidden), true, 'the list loads with the token');
    const api = requests.filter((r) => new URL(r.url).pathname.startsWith('/api/'));
    assert.ok(api.length >= 2, 'the page asked for the list and the events');
    for (const r of api) assert.equal(r.headers.authorization, `Bearer ${token}`, `${r.url} carries the token`);
    for (const r of requests) {
      const sent = new URL(r.url); // what goes on the wire: the fragment never does
      assert.ok(!(sent.pathname + sent.search).includes(token), `no address carries the token: ${r.url}`);
      assert.ok(!(r.headers.referer || '').includes(token), `no Referer carries the token: ${r.url}`);
    }
    assert.deepEqual(page.problems, [], 'the page logs no error');
    await page.close();

    // a new browser context has no token: the page says how to give it
    const ctx = await browser.createBrowserContext();
    const bare = await ctx.newPage();
    await bare.goto(`${tgw.base}/`);
    await bare.waitForFunction(() => !document.getElementById('error').hidden, { timeout: 10000 });
    assert.match(await bare.$eval('#error', (e) => e.textContent), /bearer token is required.*#token=/);
    await ctx.close();

    // a page from a foreign origin may not read the data or the events: its fetches carry its
    // Origin (CORS mode; a no-cors GET gets an opaque answer the page cannot read anyway). A
    // loopback origin on another port is let in, as on /mcp, for local browser clients.
    foreign = createServer((req, res) => { res.writeHead(200, { 'Content-Type': 'text/html' }); res.end('<!DOCTYPE html><title>elsewhere</title>'); });
    await new Promise((resolve) => foreign.listen(0, '127.0.0.1', resolve));
    const other = await watchedPage(browser);
    await other.goto(`http://${FOREIGN_HOST}:${foreign.address().port}/`);
    // the statuses from the DevTools protocol's raw answers (CORS hides them from the page);
    // a request's events may come in either order
    const urls = new Map();
    const codes = new Map();
    const cdp = await other.createCDPSession();
    await cdp.send('Network.enable');
    cdp.on('Network.requestWillBeSent', ({ requestId, request }) => urls.set(requestId, request.url));
    cdp.on('Network.responseReceivedExtraInfo', ({ requestId, statusCode }) => codes.set(requestId, statusCode));
    const statuses = () => [...codes].filter(([id]) => urls.get(id)?.startsWith(gw.base))
      .map(([id, code]) => [new URL(urls.get(id)).pathname, code]).sort();
    await other.evaluate(async (base) => {
      for (const p of ['/api/episodes', '/api/events']) await fetch(base + p).catch(() => {});
    }, gw.base);
    // the protocol's events may come after the page's fetches settle: wait for both (bounded: 10 s)
    for (let i = 0; i < 200 && statuses().length < 2; i++) await new Promise((r) => setTimeout(r, 50));
    assert.deepEqual(statuses(), [['/api/episodes', 403], ['/api/events', 403]], 'the foreign origin is refused');
    await other.close();
  } finally {
    foreign?.close();
    await tgw.stop();
    tdirs.cleanup();
  }
});

test('a game that draws shows the proof of every draw, read from the log (kdapp audit)', { timeout: 60000 }, async () => {
  const started = await call(client, 'kdapp_start_episode', { type: 'dice' });
  const id = started.structuredContent.episode_id;
  const roll = await call(client, 'kdapp_execute_command', { episode_id: id, command: { roll: '3d6+2' } });
  assert.equal(roll.structuredContent.legal, true, roll.content[0].text);
  const page = await watchedPage(browser);
  await page.goto(`${gw.base}/episodes/${id}`);
  await page.waitForSelector('#proof:not([hidden])', { timeout: 10000 });
  await page.click('#proof summary');
  // the house's reveal comes by itself; the proof is read again on each opening
  const deadline = Date.now() + 15000;
  let text = '';
  while (!/verdict: ok/.test(text) || !/^draw 1 /m.test(text)) {
    assert.ok(Date.now() < deadline, `the proof of the roll within 15 s: ${text}`);
    await page.click('#proof summary'); // close
    await page.click('#proof summary'); // and open again: a fresh audit
    await page.waitForFunction(() => document.getElementById('proof-text').textContent !== '…', { timeout: 10000 });
    text = await page.$eval('#proof-text', (e) => e.textContent);
  }
  assert.match(text, /verifies under the house's key [0-9a-f]{66}: yes/);
  assert.match(text, /outcome +\{"roll":"3d6\+2","dice":\[\d,\d,\d\],"total":\d+\}/);
  await screenshot(page, 'page-dice-proof');
  assert.deepEqual(page.problems, [], 'the page logs no error');
  await page.close();
});

test("hold'em: the page draws the table (board, pot, stacks, hole cards face down); the seat's own view shows its own two; the last hand's shown cards", { timeout: 60000 }, async () => {
  const started = await call(client, 'kdapp_start_episode', { type: 'holdem' });
  const id = started.structuredContent.episode_id;
  // the seats' shuffles and locks come from the gateway's duties thread: wait for a seat to act
  const deadline = Date.now() + 20000;
  let v = started.structuredContent.view;
  while (!v.to_act) {
    assert.ok(Date.now() < deadline, `a seat to act within 20 s: ${JSON.stringify(v.owes)}`);
    await new Promise((r) => setTimeout(r, 50)); // polling a condition, bounded above
    v = (await call(client, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
  }
  const page = await watchedPage(browser);
  await page.goto(`${gw.base}/episodes/${id}`);
  await page.waitForSelector('#drawn.holdem', { timeout: 10000 });
  const table = await page.$eval('#drawn', (t) => ({
    seats: [...t.querySelectorAll('.seat')].map((s) => ({
      name: s.dataset.seat, stack: s.querySelector('.stack').textContent, backs: s.querySelectorAll('.card.back').length,
    })),
    board: t.querySelectorAll('.middle .card').length,
    pot: t.querySelector('.pot').textContent,
  }));
  assert.deepEqual(table.seats.map((s) => s.name), ['seat1', 'seat0']);
  for (const s of table.seats) {
    assert.equal(s.backs, 2, `${s.name}'s hole cards are face down on the public page`);
    assert.equal(s.stack, `stack ${v.stacks[v.seats.indexOf(s.name)]}`);
  }
  assert.equal(table.board, 5, 'five board places');
  assert.equal(table.pot, `pot ${v.pot}`);
  await screenshot(page, 'page-holdem');
  assert.deepEqual(page.problems, [], 'the page logs no error');
  await page.close();

  // the renderer draws a seat's own two in that seat's own (granted) view
  const own = (await call(client, 'kdapp_get_episode_state', { episode_id: id, player: 'seat0' })).structuredContent;
  assert.equal(own.own_secret.seat, 'seat0');
  assert.equal(own.own_secret.hole.length, 2);
  const drawn = await browser.newPage();
  await drawn.goto(`${gw.base}/episodes/${id}`);
  await drawn.waitForSelector('#drawn.holdem', { timeout: 10000 });
  const faces = await drawn.evaluate((view) => {
    const t = kdapp.renderers.holdem(view);
    return [...t.querySelectorAll('.seat')].map((s) => [...s.querySelectorAll('.card')].map((c) => c.textContent));
  }, own);
  assert.equal(faces[1].filter((c) => c.trim()).length, 2, `seat0 sees its own two: ${JSON.stringify(faces)}`);
  assert.equal(faces[0].filter((c) => c.trim()).length, 0, 'never the other seat\'s');
  // the line of what the last hand showed: a shown hand with its value; a fold or a muck shows nothing
  const lines = await drawn.evaluate((view) => {
    const line = (last) => kdapp.renderers.holdem({ ...view, last_hand: last }).querySelector('.street').textContent;
    return [
      line({ board: ['Qs', 'Jh', '2c', '7d', '9s'], shown: { seat0: ['Ah', 'Ad'] }, hand_values: { seat0: 'a pair of aces' } }),
      line({ board: ['Qs', 'Jh', '2c', null, null], shown: null, hand_values: null }),
      line(undefined),
    ];
  }, own);
  assert.match(lines[0], /seat0 showed Ah Ad \(a pair of aces\)/, lines[0]);
  assert.doesNotMatch(lines[1], /showed/, 'a folded hand shows nothing');
  assert.doesNotMatch(lines[2], /showed/, 'before any hand settled');
  await drawn.close();
});

/** The state of episode `id` once `done(view)` holds (the house's reveals and the seats' answers come by
 *  themselves), polled for at most 15 s. */
async function settled(id, done, what) {
  const deadline = Date.now() + 15000;
  for (;;) {
    const v = (await call(client, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
    if (done(v)) return v;
    assert.ok(Date.now() < deadline, `${what} within 15 s: ${JSON.stringify(v).slice(0, 400)}`);
    await new Promise((r) => setTimeout(r, 25)); // polling a condition, bounded above
  }
}

/** Opens episode `id`'s page once the store has settled on `view`; `check(page, stored)` reads the drawing. */
async function drawnPage(type, id, check) {
  const stored = storedView(dirs, id);
  const page = await watchedPage(browser);
  await page.goto(`${gw.base}/episodes/${id}`);
  await waitForSeq(page, stored.log_seq);
  await page.waitForSelector(`#drawn.${type === 'dice' ? 'dice-table' : type}`, { timeout: 10000 });
  await check(page, stored);
  await screenshot(page, `page-${type}`);
  assert.deepEqual(page.problems, [], `${type}: the page logs no error`);
  return page;
}

const E = (d) => d.repeat(64);

test('the games of chance are drawn: dice, roulette (bets and the winning pocket), slots, blackjack', { timeout: 60000 }, async () => {
  // dice: the faces of the last roll, its spec and total; a pending roll waits for the house
  const dice = (await call(client, 'kdapp_start_episode', { type: 'dice' })).structuredContent.episode_id;
  const asked = await call(client, 'kdapp_execute_command', { episode_id: dice, command: { roll: '3d6+2', entropy: E('4') } });
  assert.equal(asked.structuredContent.legal, true, asked.content[0].text);
  await settled(dice, (v) => v.last_roll, 'the roll revealed');
  let page = await drawnPage('dice', dice, async (p, v) => {
    const roll = await p.$eval('#drawn .roll.last', (r) => ({
      spec: r.querySelector('.spec').textContent, faces: [...r.querySelectorAll('.die')].map((d) => Number(d.dataset.face)),
      pips: [...r.querySelectorAll('.die')].map((d) => d.querySelectorAll('.pip').length), total: r.querySelector('.total').textContent,
    }));
    assert.equal(roll.spec, '#1 3d6+2');
    assert.deepEqual(roll.faces, v.last_roll.dice, 'the dice of the last roll');
    assert.deepEqual(roll.pips, v.last_roll.dice, 'each d6 drawn with its pips');
    assert.equal(roll.total, `= ${v.last_roll.total}`);
  });
  const waiting = await page.evaluate((view) => {
    const t = kdapp.renderers.dice(view);
    return { dice: t.querySelectorAll('.roll.pending .die.waiting').length, text: t.querySelector('.roll.pending .total').textContent };
  }, asked.structuredContent.view);
  assert.deepEqual(waiting, { dice: 3, text: "waiting for the house's reveal" }, 'a pending roll waits for the house');
  await page.close();

  // roulette: the bets on the table marked, the winning pocket of the last spin highlighted
  const rou = (await call(client, 'kdapp_start_episode', { type: 'roulette' })).structuredContent.episode_id;
  const bets = [{ kind: 'straight', number: 17, amount: 10 }, { kind: 'corner', number: 25, amount: 4 }, { kind: 'red', amount: 5 }, { kind: 'dozen', number: 3, amount: 2 }];
  const placed = await call(client, 'kdapp_execute_command', { episode_id: rou, command: { bets, entropy: E('5') } });
  assert.equal(placed.structuredContent.legal, true, placed.content[0].text);
  await settled(rou, (v) => v.last_pocket !== null, 'the spin revealed');
  page = await drawnPage('roulette', rou, async (p, v) => {
    const drawn = await p.$eval('#drawn', (t) => ({
      pockets: t.querySelectorAll('.box.pocket').length, win: [...t.querySelectorAll('.box.win')].map((b) => b.dataset.place),
      reds: [...t.querySelectorAll('.box.pocket.red')].map((b) => Number(b.dataset.place)), chips: t.querySelectorAll('.chip').length,
      facts: t.textContent,
    }));
    assert.equal(drawn.pockets, 38, '0, 00 and 1..36');
    assert.deepEqual(drawn.win, [String(v.last_pocket)], 'the winning pocket is highlighted');
    assert.deepEqual(drawn.reds, [1, 3, 5, 7, 9, 12, 14, 16, 18, 19, 21, 23, 25, 27, 30, 32, 34, 36]);
    assert.equal(drawn.chips, 0, 'no bet left on the table after the spin');
    assert.match(drawn.facts, new RegExp(`chips ${v.chips} \\(started with ${v.start_chips}\\)`));
  });
  const table = await page.evaluate((view) => {
    const t = kdapp.renderers.roulette(view);
    return {
      chips: [...t.querySelectorAll('.chip')].map((c) => [c.parentElement.dataset.place, c.textContent]),
      covered: [...t.querySelectorAll('.covered')].map((b) => b.dataset.place),
    };
  }, placed.structuredContent.view);
  assert.deepEqual(table.chips, [['17', '10'], ['25', '4'], ['dozen 3', '2'], ['red', '5']], 'a chip on the place of each bet');
  assert.deepEqual(table.covered, ['17', '25', '26', '28', '29'], 'the pockets of the inside bets');
  await page.close();

  // slots: the symbols at the three stops, bet and win, credits
  const slots = (await call(client, 'kdapp_start_episode', { type: 'slots' })).structuredContent.episode_id;
  await playFirstLegal(client, slots);
  await settled(slots, (v) => v.last_symbols, 'the reels revealed');
  page = await drawnPage('slots', slots, async (p, v) => {
    const reels = await p.$$eval('#drawn .reel', (rs) => rs.map((r) => [r.dataset.symbol, r.querySelector('.stop').textContent]));
    assert.deepEqual(reels, v.last_symbols.map((s, i) => [s, `stop ${v.last_stops[i]}`]), 'the symbols at the stops');
    const text = await p.$eval('#drawn', (t) => t.textContent);
    assert.match(text, new RegExp(`bet ${v.last_bet}, ${v.last_win > 0 ? `the line pays ${v.last_win}` : 'no win'}`));
    assert.match(text, new RegExp(`credits ${v.credits} \\(started with ${v.start_credits}\\)`));
    assert.equal(await p.$$eval('#drawn .line.paying', (l) => l.length), v.last_win > 0 ? 1 : 0);
  });
  await page.close();

  // blackjack: the player's hand and the dealer's cards as cards, totals, the shoe, who acts
  const bj = (await call(client, 'kdapp_start_episode', { type: 'blackjack' })).structuredContent.episode_id;
  const bet = await call(client, 'kdapp_execute_command', { episode_id: bj, command: { action: 'bet', amount: 10, entropy: E('1') } });
  assert.equal(bet.structuredContent.legal, true, bet.content[0].text);
  await settled(bj, (v) => v.players[0].await === 'player' || v.players[0].await === 'idle', 'the deal');
  page = await drawnPage('blackjack', bj, async (p, v) => {
    const pl = v.players[0];
    const drawn = await p.$eval('#drawn', (t) => ({
      hand: [...t.querySelectorAll('.hand .card')].map((c) => c.textContent), dealer: [...t.querySelectorAll('.dealer .card')].length,
      totals: [...t.querySelectorAll('.hand .total, .dealer .total')].map((c) => c.textContent), text: t.textContent,
    }));
    const face = (c) => c.slice(0, -1) + { S: '♠', H: '♥', D: '♦', C: '♣' }[c.slice(-1)];
    assert.deepEqual(drawn.hand, pl.hands[0].cards.map(face), 'the hand drawn as cards');
    assert.equal(drawn.dealer, pl.dealer.cards.length, "the dealer's cards");
    const total = (h) => (h.cards.length === 2 && h.total === 21 ? 'blackjack' : `${h.soft ? 'soft ' : ''}${h.total}`);
    assert.deepEqual(drawn.totals, [total(pl.dealer), total(pl.hands[0])], 'the totals of the dealer and the hand');
    // a two-card 21 is labelled blackjack, not soft 21 (a split hand's is not a blackjack)
    const labels = await p.evaluate((view) => {
      const pl0 = view.players[0];
      const bj = { ...pl0, await: 'idle', hands: [{ cards: ['AS', 'KD'], total: 21, soft: true, bet: 10, doubled: false, outcome: 'blackjack' }] };
      const split = { ...bj, hands: [bj.hands[0], { ...bj.hands[0], cards: ['AH', 'QC'] }] };
      const t = (pv) => [...kdapp.renderers.blackjack({ ...view, players: [pv] }).querySelectorAll('.hand .total')].map((e) => e.textContent);
      return { one: t(bj), split: t(split) };
    }, v);
    assert.deepEqual(labels, { one: ['blackjack'], split: ['soft 21', 'soft 21'] });
    assert.match(drawn.text, new RegExp(`shoe ${v.shoe.left} of ${v.shoe.of} cards`));
    assert.match(drawn.text, pl.await === 'player' ? /player1 to act/ : /player1 to bet/);
  });
  await page.close();
});

test('sea battle: both seas with their shots; a fleet only in its own seat\'s view, never on the public page', { timeout: 60000 }, async () => {
  const id = (await call(client, 'kdapp_start_episode', { type: 'seabattle' })).structuredContent.episode_id;
  // blue sinks red's two-cell ship and hits another (this client holds both seats' grants, so it can
  // read red's fleet); red shoots its first legal cells; each shot answered by the gateway's duties thread
  const red = (await call(client, 'kdapp_get_episode_state', { episode_id: id, player: 'red' })).structuredContent.own_secret;
  const two = red.ships.find((sh) => sh.length === 2), other = red.ships.find((sh) => sh.length > 2);
  const targets = [...two.cells, other.cells[0]];
  for (let v = null, i = 0; targets.length; i++) {
    assert.ok(i < 12, `blue's shots within 12 moves: ${targets}`);
    v = (await call(client, 'kdapp_get_episode_state', { episode_id: id })).structuredContent;
    if (v.shooter === 'blue') {
      const r = await call(client, 'kdapp_execute_command', { episode_id: id, command: { shot: targets.shift() } });
      assert.equal(r.structuredContent.legal, true, r.content[0].text);
    } else {
      await playFirstLegal(client, id);
    }
    await settled(id, (x) => x.pending_shot === null, `the answer to shot ${i + 1}`);
  }
  const page = await drawnPage('seabattle', id, async (p, v) => {
    const seas = await p.$$eval('#drawn .sea-box', (bs) => bs.map((b) => ({
      name: b.dataset.sea, cells: [...b.querySelectorAll('.cell')].map((c) => c.className.replace(/^cell /, '').split(' ')[0]),
    })));
    const kind = { '.': 'water', o: 'miss', x: 'hit', '#': 'sunk', '?': 'pending' };
    assert.deepEqual(seas.map((s) => s.name), ['blue', 'red']);
    for (const s of seas) assert.deepEqual(s.cells, v[`board_${s.name}`].flatMap((row) => [...row].map((ch) => kind[ch])), `${s.name}'s sea as the view has it`);
    assert.deepEqual(seas[1].cells.filter((c) => c === 'sunk' || c === 'hit').sort(), ['hit', 'sunk', 'sunk'], "red's sunk ship and the hit");
    assert.deepEqual(v.sunk.red, [two.id]);
    assert.equal(await p.$$eval('#drawn .ship', (c) => c.length), 0, 'the public page shows no fleet');
    // the legend says what each mark of the seas means, each drawn as the seas draw it
    const legend = await p.$$eval('#legend dt', (dts) => dts.map((dt) => [dt.querySelector('.cell').className, dt.nextElementSibling.textContent]));
    assert.deepEqual(legend, [['cell water', 'water not shot at'], ['cell miss', 'a miss'], ['cell hit', 'a hit'],
      ['cell sunk', 'a cell of a sunk ship'], ['cell pending', 'a shot waiting for its answer']]);
  });
  // the renderer draws a seat's own fleet in that seat's own (granted) view, on its own sea only
  const own = (await call(client, 'kdapp_get_episode_state', { episode_id: id, player: 'blue' })).structuredContent;
  assert.equal(own.own_secret.seat, 'blue');
  const ships = await page.evaluate((view) => {
    const t = kdapp.renderers.seabattle(view);
    return [...t.querySelectorAll('.sea-box')].map((b) => [...b.querySelectorAll('.cell')].map((c) => c.dataset.ship || '.').join(''));
  }, own);
  assert.equal(ships[0], own.own_secret.fleet.join('').replace(/[^1-9]/g, '.'), "blue's fleet on blue's sea");
  assert.equal(ships[1], '.'.repeat(100), "never on red's");
  assert.equal(await page.$$eval('#drawn .ship', (c) => c.length), 0, 'and still no fleet on the public page');
  await page.close();
});

test('the page says how a game ended in words, and marks a winning line and a checkmated king', { timeout: 30000 }, async () => {
  const page = await watchedPage(browser);
  await page.goto(`${gw.base}/`);
  await page.waitForFunction(() => typeof kdapp !== 'undefined');
  for (const src of ['/types/tictactoe.js', '/types/fourinarow.js', '/types/chess.js']) await page.addScriptTag({ url: `${gw.base}${src}` });
  const got = await page.evaluate(() => {
    const base = { episode_id: 1, deleted: false, last_event: 'command', seats: ['X', 'O'] };
    const wins = (t) => [...t.querySelectorAll('.win')].map((c) => c.dataset.row + ',' + c.dataset.col);
    const ttt = { ...base, type: 'tictactoe', phase: 'won', winner: 1, to_move: null, status: 'o_won', cap: null,
      board: [[2, 1, 1], [2, 1, 0], [2, 0, 0]], recent_moves: [], next_to_remove: null };
    const fiar = { ...base, type: 'fourinarow', seats: ['red', 'yellow'], phase: 'won', winner: 0, to_move: null, status: 'red_won',
      last_column: 3, board: [[0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0], [0, 0, 0, 0, 0, 0, 0],
        [2, 2, 2, 0, 0, 0, 0], [1, 1, 1, 1, 0, 0, 0]] };
    const mate = { ...base, type: 'chess', seats: ['white', 'black'], phase: 'won', winner: 1, to_move: null, status: 'checkmate',
      check: true, current: 'white', fen: 'rnb1kbnr/pppp1ppp/8/4p3/6Pq/5P2/PPPPP2P/RNBQKBNR w KQkq - 1 3', last_move: { uci: 'd8h4', san: 'Qh4#' } };
    const mated = [...kdapp.renderers.chess(mate).querySelectorAll('.mated')].map((c) => c.dataset.row + ',' + c.dataset.col + c.textContent);
    return {
      words: [kdapp.turn(ttt), kdapp.turn(fiar), kdapp.turn(mate), kdapp.turn({ ...base, phase: 'draw', winner: null, status: 'stalemate' }),
        kdapp.turn({ ...base, phase: 'won', winner: 0, seats: ['player', 'house'], status: 'house_forfeit' })],
      ttt: wins(kdapp.renderers.tictactoe(ttt, null)), fiar: wins(kdapp.renderers.fourinarow(fiar, null)), mated,
      rule: kdapp.rule(mate), classic: kdapp.rule(ttt),
    };
  });
  assert.deepEqual(got.words, ['O won', 'red won', 'black won (checkmate)', 'a draw (stalemate)', 'player won (house forfeit)'], 'no code words');
  assert.deepEqual(got.ttt, ['0,0', '1,0', '2,0'], "O's column is marked");
  assert.deepEqual(got.fiar, ['5,0', '5,1', '5,2', '5,3'], 'the four in a row is marked');
  assert.deepEqual(got.mated, ['7,4♚'], "white's king on e1 is marked checkmated");
  assert.equal(got.rule, 'checkmate: the king in check has no move out of it');
  assert.equal(got.classic, 'classic: three in a row wins; a full board is a draw');
  assert.deepEqual(page.problems, [], 'the page logs no error');
  await page.close();
});

test('the ratings table on / follows a finished game, as kdapp_get_ratings says', { timeout: 60000 }, async () => {
  const page = await watchedPage(browser);
  await page.goto(`${gw.base}/`);
  await page.waitForSelector('#ratings');
  const before = (await call(client, 'kdapp_get_ratings')).structuredContent.ratings;
  const id = (await call(client, 'kdapp_start_episode', { type: 'tictactoe', participants: ['agent1', 'agent2'] }))
    .structuredContent.episode_id;
  for (const [row, col, player] of [[0, 0, 'X'], [1, 0, 'O'], [0, 1, 'X'], [1, 1, 'O'], [0, 2, 'X']]) {
    const r = await call(client, 'kdapp_execute_command', move(id, { row, col, player }));
    assert.equal(r.structuredContent.legal, true, r.content[0].text);
  }
  const want = (await call(client, 'kdapp_get_ratings')).structuredContent.ratings;
  assert.notDeepEqual(want, before, 'the finished game changed the ratings');
  const rows = want.map((e) => [e.type, e.key.slice(0, 16) + '…', String(e.rating), String(e.games), String(e.wins),
    String(e.draws), String(e.losses)]);
  await page.waitForFunction((n, first) => {
    const trs = document.querySelectorAll('#ratings tbody tr');
    return trs.length === n && trs[0].children[2].textContent === first;
  }, { timeout: 10000 }, rows.length, rows[0][2]);
  const drawn = await page.$$eval('#ratings tbody tr', (trs) => trs.map((tr) => [...tr.children].map((td) => td.textContent)));
  assert.deepEqual(drawn, rows, 'the table is the tool\'s answer');
  assert.equal(await page.$eval('#ratings-empty', (p) => p.hidden), true);
  await screenshot(page, 'ratings');
});

test('the lobby: an open table with its seats and how to join; joined from a second session it leaves the lobby and shows as a game; a hostile table shows as text', { timeout: 30000 }, async () => {
  const page = await watchedPage(browser, { width: 1100 });
  await page.goto(`${gw.base}/#token=${gw.token}`); // the grant's token: the page marks its keys as yours
  await page.waitForFunction(() => !document.getElementById('lobby-empty').hidden, { timeout: 10000 });
  assert.match(await page.$eval('#lobby-empty', (p) => p.textContent),
    /kdapp_start_episode \{"type": TYPE, "participants": \["agent1", "open"\]\}.*kdapp play --open --type TYPE \(kdapp:\/\/types lists the types\)/, 'an empty lobby says how to open a table');

  const keys = (await call(client, 'kdapp_get_agent_pubkeys')).structuredContent.agents;
  const opened = await call(client, 'kdapp_start_episode', { type: 'tictactoe', participants: ['agent1', 'open'] });
  assert.ok(!opened.isError, opened.content[0].text);
  const { episode_id: id, table } = opened.structuredContent;
  await page.waitForSelector(`#table-${id}`, { timeout: 10000 }); // the "tables" event brought it
  const row = await page.$eval(`#table-${id}`, (tr) => [...tr.children].map((td) => td.textContent));
  assert.equal(row[0], String(id));
  assert.equal(row[1], 'tictactoe');
  assert.equal(await page.$eval(`#table-${id} .seats`, (td) => [...td.children].map((s) => s.textContent).join(' | ')),
    `X: ${keys[0].pubkey.slice(0, 8)}… (yours) | O: open`, 'who sits where; the grant\'s own key marked');
  const [deadline, left] = await page.$$eval(`#table-${id} .deadline div`, (ds) => ds.map((d) => d.textContent));
  assert.equal(deadline, `DAA score ${table.deadline_daa}`, 'the deadline');
  const [, togo, tip] = /^(\d+) to go \(the tip at (\d+)\)$/.exec(left) ?? [];
  assert.equal(Number(togo) + Number(tip), table.deadline_daa, `how far away: ${left}`);
  assert.deepEqual(await page.$$eval(`#table-${id} .join code`, (cs) => cs.map((c) => c.textContent)),
    [`kdapp_join_episode {"episode_id":${id}}`, `kdapp play --join ${id}`], 'how to join');
  assert.equal(await page.$eval('#lobby-empty', (p) => p.hidden), true);
  // a hold'em table beside it: its terms in short (the seat's commitment cut, the open seat's zeros left out)
  const holdem = await call(client, 'kdapp_start_episode', { type: 'holdem', participants: ['agent1', 'open'], params: { hand_limit: 1 } });
  assert.ok(!holdem.isError, holdem.content[0].text);
  const hid = holdem.structuredContent.episode_id;
  await page.waitForSelector(`#table-${hid}`, { timeout: 10000 });
  assert.match(await page.$eval(`#table-${hid} .terms`, (td) => td.textContent), /hand_limit=1/);
  await screenshot(page, 'page-lobby');
  // its creator cancels it: it leaves the lobby
  const cancelled = await call(client, 'kdapp_cancel_table', { episode_id: hid });
  assert.ok(!cancelled.isError, cancelled.content[0].text);
  await page.waitForFunction((n) => !document.getElementById(`table-${n}`), { timeout: 10000 }, hid);

  // a second session sits down with the grant's other key: the game starts, the table leaves the lobby
  const joiner = await httpClient(gw.url, 'page-joiner', gw.token);
  try {
    const joined = await call(joiner, 'kdapp_join_episode', { episode_id: id, signer: 'agent2' });
    assert.ok(!joined.isError && joined.structuredContent.started, joined.content[0].text);
  } finally {
    await joiner.close();
  }
  await page.waitForFunction((n) => !document.getElementById(`table-${n}`) && document.getElementById(`ep-${n}`),
    { timeout: 10000 }, id);
  assert.equal(await page.$eval(`#ep-${id}`, (tr) => tr.children[1].textContent), 'tictactoe', 'the started game is listed');
  assert.equal(await page.$eval('#lobby-empty', (p) => p.hidden), false, 'the lobby is empty again');

  // whatever a creator chose (type, params, keys) is set as text, never as markup
  const hostile = '<img src=x id=pwned onerror="window.pwned=1"><script>window.pwned=2</script>';
  const shown = await page.evaluate((h) => {
    document.dispatchEvent(new CustomEvent('kdapp-tables', { detail: { daa_score: 5, tables: [{
      episode_id: 999, type: h, creation_daa: 1, deadline_daa: 9, params: { fen: h, house: { note: h } },
      seats: [{ seat: 0, name: h, key: h, open: false }, { seat: 1, name: 'O', key: null, open: true }] }] } }));
    const tr = document.getElementById('table-999');
    return { injected: document.querySelectorAll('#lobby img, #lobby script, #pwned').length, pwned: window.pwned ?? null,
      type: tr.children[1].textContent, terms: tr.children[2].textContent, title: tr.children[2].title, seat: tr.querySelector('.seat').textContent };
  }, hostile);
  assert.deepEqual({ injected: shown.injected, pwned: shown.pwned }, { injected: 0, pwned: null }, 'no element made from the chain\'s text');
  assert.equal(shown.type, hostile);
  assert.ok(shown.terms.startsWith(`fen=${JSON.stringify(hostile)}`.slice(0, 40)), shown.terms);
  assert.equal(shown.title, JSON.stringify({ fen: hostile, house: { note: hostile } }), 'the whole params in the title, as text');
  assert.ok(shown.seat.startsWith(`${hostile}: <img src`), shown.seat);
  assert.deepEqual(page.problems, [], 'the page logs no error');
  await page.close();
});

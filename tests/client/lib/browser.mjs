// browser.mjs — Debian's chromium, headless, for the board page and widget
// tests (driven with puppeteer-core; tools/scripts/check.sh installs both),
// and what those tests compare: the board a page drew, cell by cell, and the
// board a view describes, read from the store by `kdapp show --json`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import puppeteer from 'puppeteer-core';

import { KDAPP, CAP, call } from './harness.mjs';

export const CHROMIUM = process.env.KD_CHROMIUM || '/usr/bin/chromium';
/** A host name the browser resolves to 127.0.0.1 while its pages have a foreign origin. */
export const FOREIGN_HOST = 'elsewhere.test';

/** A headless chromium; throws a clear error when it is not installed. */
export async function launchBrowser() {
  if (!existsSync(CHROMIUM))
    throw new Error(`chromium is not installed at ${CHROMIUM} (tools/scripts/check.sh installs Debian's chromium; KD_CHROMIUM names another)`);
  return puppeteer.launch({
    executablePath: CHROMIUM,
    headless: true,
    // no sandbox: CI runs as root, where chromium's sandbox cannot start
    // elsewhere.test: a name for a foreign (non-loopback) origin, served from 127.0.0.1
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage', '--no-first-run', '--font-render-hinting=none',
      '--host-resolver-rules=MAP elsewhere.test 127.0.0.1'],
  });
}

/** A new page that keeps every console error and uncaught exception, of any frame, in page.problems. */
export async function watchedPage(browser, { width = 900, height = 700 } = {}) {
  const page = await browser.newPage();
  await page.setViewport({ width, height });
  page.problems = [];
  page.on('console', (m) => { if (m.type() === 'error') page.problems.push(`console: ${m.text()}`); });
  page.on('pageerror', (e) => page.problems.push(`exception: ${e.message}`));
  return page;
}

/** Writes a PNG of the page (or of one element) to $KD_SCREENSHOTS/NAME.png when that is set. */
export async function screenshot(target, name) {
  const dir = process.env.KD_SCREENSHOTS;
  if (!dir) return null;
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name}.png`);
  await target.screenshot({ path });
  return path;
}

/** The board drawn in `frame` (#drawn), one token per cell in row-major order: the cell's text and
 *  the colour of its piece or disc ("X", ":red", "♜:b"); a faded ghost of a mark that is gone counts
 *  as empty. Also which cells are highlighted as back (after a rollback) and as gone. */
export function drawnBoard(frame) {
  return frame.evaluate(() => {
    const cells = [...document.querySelectorAll('#drawn .cell')];
    const colour = (d) => {
      const disc = d.querySelector('.disc');
      if (disc) return disc.classList.contains('red') ? 'red' : 'yellow';
      return d.classList.contains('piece-w') ? 'w' : d.classList.contains('piece-b') ? 'b' : '';
    };
    // a checkers piece is a drawn disc: a man, or a king (a ring and a crown), never a glyph alike the other
    const piece = (d) => (d.querySelector('.king') ? 'king' : d.querySelector('.man') ? 'man' : d.textContent);
    return {
      tokens: cells.map((d) => (d.classList.contains('gone') ? '' : piece(d) + (colour(d) ? `:${colour(d)}` : ''))),
      back: cells.flatMap((d, i) => (d.classList.contains('back') ? [i] : [])),
      gone: cells.flatMap((d, i) => (d.classList.contains('gone') ? [i] : [])),
    };
  });
}

const CHECKERS = { w: 'man:w', W: 'king:w', b: 'man:b', B: 'king:b' };
const CHESS = { K: '♚', Q: '♛', R: '♜', B: '♝', N: '♞', P: '♟' };

/** The tokens drawnBoard() must find for `view` (an enriched view), by its type. */
export function expectedBoard(view) {
  switch (view.type) {
    case 'tictactoe':
      return view.board.flat().map((p) => ['', 'X', 'O'][p]);
    case 'fourinarow':
      return view.board.flat().map((p) => ['', ':red', ':yellow'][p]);
    case 'checkers':
      return view.board.flatMap((row) => [...row].map((ch) => CHECKERS[ch] || ''));
    case 'chess':
      return view.fen.split(' ')[0].split('/').flatMap((rank) => [...rank].flatMap((ch) =>
        (ch >= '1' && ch <= '8' ? Array(Number(ch)).fill('') : [`${CHESS[ch.toUpperCase()]}:${ch === ch.toUpperCase() ? 'w' : 'b'}`])));
    default:
      throw new Error(`no expected board for type ${view.type}`);
  }
}

/** An episode's view as the store has it (`kdapp show --json`, read-only beside the running gateway). */
export function storedView(dirs, id) {
  return JSON.parse(execFileSync(KDAPP, ['show', '--data', dirs.data, '--json', String(id)], { encoding: 'utf8' }));
}

/** The types with a renderer, each with the kdapp_start_episode arguments of a game (tic-tac-toe in stress mode). */
export const BOARD_TYPES = [
  ['tictactoe', { cap: CAP }],
  ['fourinarow', { type: 'fourinarow' }],
  ['checkers', { type: 'checkers' }],
  ['chess', { type: 'chess' }],
];

/** Plays the first legal move of the seat to move in episode `id`; returns the new view. */
export async function playFirstLegal(client, id) {
  const legal = await call(client, 'kdapp_legal_moves', { episode_id: id });
  const r = await call(client, 'kdapp_execute_command', { episode_id: id, command: legal.structuredContent.moves[0].command });
  if (r.structuredContent.legal !== true) throw new Error(`the first legal move was refused: ${r.content[0].text}`);
  return r.structuredContent.view;
}

/** Starts a game of each of BOARD_TYPES and plays `plies` first legal moves in each; their ids by type. */
export async function startEachType(client, plies) {
  const ids = {};
  for (const [type, args] of BOARD_TYPES) {
    ids[type] = (await call(client, 'kdapp_start_episode', args)).structuredContent.episode_id;
    for (let i = 0; i < plies; i++) await playFirstLegal(client, ids[type]);
  }
  return ids;
}

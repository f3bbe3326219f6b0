#!/usr/bin/env node
// chessjs_perft.mjs — chess.js's own perft, as a `kdapp bench --peer`
// (the peer protocol: README, "Benchmarks").
//
//   node chessjs_perft.mjs [DEPTH [PARAMS_JSON]]
//
// DEPTH and PARAMS_JSON default to the bench's environment,
// KDAPP_PERFT_DEPTH and KDAPP_PERFT_PARAMS; the params are the episode's
// creation params, whose "fen" member (when present) is the start position
// (else the standard one). Prints one line, `nodes N seconds S`: the count of
// chess.perft(DEPTH) and the time it took (process.hrtime, the perft call
// only: not node's start-up or loading chess.js).
//
// chess.js comes from tests/client/node_modules (`npm ci` in tests/client),
// or from the directory named by KDAPP_CHESSJS_DIR.
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

function fail(message) {
  process.stderr.write(`chessjs_perft: ${message}\n`);
  process.exit(2);
}

const here = dirname(fileURLToPath(import.meta.url));
const clientDir = process.env.KDAPP_CHESSJS_DIR || join(here, '..', '..', '..', 'tests', 'client');
let Chess;
try {
  ({ Chess } = createRequire(join(clientDir, 'package.json'))('chess.js'));
} catch (e) {
  fail(`cannot load chess.js from ${clientDir}/node_modules (run 'npm ci' in tests/client): ${e.message}`);
}

const depthText = process.argv[2] ?? process.env.KDAPP_PERFT_DEPTH;
const paramsText = process.argv[3] ?? process.env.KDAPP_PERFT_PARAMS ?? '';
if (depthText === undefined || !/^[0-9]+$/.test(depthText)) fail(`the depth must be a whole number, not '${depthText ?? ''}'`);
const depth = Number(depthText);
let fen;
if (paramsText.trim() !== '') {
  let params;
  try {
    params = JSON.parse(paramsText);
  } catch (e) {
    fail(`the params are not JSON: ${e.message}`);
  }
  if (params === null || typeof params !== 'object' || Array.isArray(params)) fail('the params must be a JSON object');
  if (params.fen !== undefined && typeof params.fen !== 'string') fail('"fen" must be a string');
  fen = params.fen;
}

let chess;
try {
  chess = fen === undefined ? new Chess() : new Chess(fen);
} catch (e) {
  fail(`the FEN is not valid: ${e.message}`);
}
const start = process.hrtime.bigint();
const nodes = depth === 0 ? 1 : chess.perft(depth); // chess.js counts nothing at depth 0
const seconds = Number(process.hrtime.bigint() - start) / 1e9;
process.stdout.write(`nodes ${nodes} seconds ${seconds.toFixed(6)}\n`);

// conformance.test.mjs — the MCP conformance suite
// (@modelcontextprotocol/conformance, pinned in package.json) against
// `kdapp mcp --http`: each scenario runs the suite's CLI against the
// gateway's /mcp URL and must end with every check SUCCESS (no FAILURE, no
// WARNING). The CLI saves its checks as JSON under -o DIR; a failure prints
// them with the gateway's stderr.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

import { scratch, httpGateway } from './lib/harness.mjs';

const SCENARIOS = [
  'server-initialize', 'ping', 'tools-list', 'logging-set-level', 'resources-list', 'resources-subscribe',
  'resources-unsubscribe', 'server-sse-multiple-streams', 'dns-rebinding-protection',
];

const require = createRequire(import.meta.url);
const pkg = require.resolve('@modelcontextprotocol/conformance/package.json');
const CLI = join(dirname(pkg), require(pkg).bin.conformance);

let dirs;
let gw;

before(async () => {
  const [major, minor] = process.versions.node.split('.').map(Number);
  assert.ok(major > 20 || (major === 20 && minor >= 18),
    `the conformance suite 0.1.13 needs Node >= 20.18 (its undici 7 does); this is Node ${process.versions.node}`);
  dirs = scratch('conformance');
  gw = await httpGateway(dirs, { blockMs: 20 });
});

after(async () => {
  await gw?.stop();
  dirs?.cleanup();
});

function runScenario(scenario, outDir) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI, 'server', '--url', gw.url.href, '--scenario', scenario, '-o', outDir],
      { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' } });
    let out = '';
    child.stdout.on('data', (d) => { out += d; });
    child.stderr.on('data', (d) => { out += d; });
    const timer = setTimeout(() => child.kill('SIGKILL'), 60000);
    child.on('error', reject);
    child.on('exit', (code, signal) => { clearTimeout(timer); resolve({ code, signal, out }); });
  });
}

for (const scenario of SCENARIOS) {
  test(`conformance: ${scenario}`, { timeout: 70000 }, async () => {
    const outDir = join(dirs.dir, 'results', scenario);
    const r = await runScenario(scenario, outDir);
    const runs = (() => { try { return readdirSync(outDir); } catch { return []; } })();
    const explain = () => `conformance ${scenario}: exit ${r.code ?? r.signal}\n${r.out}\n--- gateway stderr ---\n${gw.log.text}`;
    assert.equal(runs.length, 1, `one result directory (${runs})\n${explain()}`);
    const checks = JSON.parse(readFileSync(join(outDir, runs[0], 'checks.json'), 'utf8'));
    assert.ok(checks.length > 0, `the scenario ran checks\n${explain()}`);
    const bad = checks.filter((c) => c.status === 'FAILURE' || c.status === 'WARNING');
    assert.deepEqual(bad.map((c) => `${c.status} ${c.id}: ${c.errorMessage ?? c.description}`), [], explain());
    assert.equal(r.code, 0, explain());
  });
}

// Deno as a runtime of the package (its npm `deno` binary, tests/js
// devDependencies): the documented imports (the Node entry, which Deno's npm
// resolution picks, and the default entry with init()), planJson's bytes
// against the native golden, and the probe through Deno's own WebGPU (wgpu
// outside a page): a documented reason within timeoutMs, never a crash; and
// the detect-only entry (detect.js) against the default one.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';

const DENO = join(ROOT, 'tests', 'js', 'node_modules', '.bin', 'deno');
const SCRIPT = fileURLToPath(new URL('./deno-check.mjs', import.meta.url));
const REASONS = ['adapter-available', 'no-adapter', 'adapter-request-failed', 'timeout', 'device-request-failed'];

function runDeno(entry) {
  // Deno is a devDependency (scripts/setup.sh installs it with the rest):
  // without it the suite fails, as the WASI suite does without wasmtime.
  assert.ok(existsSync(DENO), `no Deno at ${DENO}: run scripts/setup.sh (npm ci in tests/js)`);
  const r = spawnSync(DENO, ['run', '--allow-read', '--allow-env', SCRIPT, join(ROOT, 'pkg', entry)],
    { timeout: 60_000, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' } });
  assert.equal(r.status, 0, `deno: ${r.stderr}`);
  return JSON.parse(r.stdout.toString());
}

for (const entry of ['node.js', 'index.js']) {
  test(`Deno, ${entry}: planJson gives the golden bytes, probe answers a documented reason in time`, () => {
    const out = runDeno(entry);
    assert.equal(out.planJson, out.golden);
    // detectNative(): no command for Deno here (no platform package beside
    // pkg/), so the core's answer, unsupported-platform, saying why.
    assert.equal(out.native.reason, 'unsupported-platform', JSON.stringify(out.native));
    assert.equal(out.native.isolation, 'not-run');
    assert.match(out.native.detail, entry === 'node.js' ? /no native command for this host/ : /this runtime cannot probe the host/);
    assert.deepEqual(out.native.providers, ['cpu']);
    assert.equal(out.limit.code, 'limit-exceeded');
    assert.ok(out.apiPresent, 'Deno has navigator.gpu');
    for (const report of [out.probe, out.verified]) {
      assert.ok(REASONS.includes(report.reason), report.reason);
      assert.ok(report.elapsedMs <= report.timeoutMs + 100, `${report.elapsedMs} ms`);
    }
    // Deno on this machine answers with llvmpipe; elsewhere it may answer
    // otherwise, but the resolution must follow the probe either way.
    assert.ok(Array.isArray(out.probe.adapter?.features ?? []), 'features are a list when present');
    assert.equal(out.resolved.effective.features.includes('webGpu'), out.probe.reason === 'adapter-available');
    if (out.probe.reason === 'adapter-available') {
      assert.ok(out.probe.adapter.features.every((f) => typeof f === 'string'), 'feature names');
      assert.equal(typeof out.probe.adapter.limits.maxBufferSize, 'number', 'limits in WebGPU spelling');
      // Deno's wgpu gives a PCI vendor id ("65541" for llvmpipe) and no
      // architecture: the message names the adapter by its description.
      const { vendor, description } = out.probe.adapter.info;
      if (/^[0-9]+$/.test(vendor) && description !== '') {
        assert.ok(out.probe.message.endsWith(` ${description}`), out.probe.message);
        assert.ok(!out.probe.message.includes(vendor), out.probe.message);
      }
    }
  });
}

test('Deno: detect({ verify }) answers a verdict within its budget, then from the cache', () => {
  const out = runDeno('index.js');
  const VERDICTS = ['verified', 'wrong-results', 'slower-than-wasm', 'device-lost', 'verify-failed', 'verify-timeout'];
  const [fresh, first, second] = out.decisions;
  for (const { probe } of out.decisions) {
    if (probe.adapter === undefined) {
      assert.ok(REASONS.includes(probe.reason), probe.reason);
      continue;
    }
    assert.ok(VERDICTS.includes(probe.reason), `${probe.reason}: ${probe.message}`);
    assert.ok(probe.verification, 'a verification report');
    assert.ok(probe.verification.elapsedMs <= probe.verification.budgetMs + 500, `${probe.verification.elapsedMs} ms`);
  }
  if (fresh.probe.verification) {
    const v = fresh.probe.verification;
    console.log(`Deno (${fresh.probe.adapter.info.description || fresh.probe.adapter.info.vendor}): ${fresh.probe.reason}, `
      + `gpu ${v.gpuMs} ms against wasm ${v.wasmMs} ms a pass, verified in ${v.elapsedMs} ms; decision ${fresh.ms.toFixed(1)} ms `
      + `fresh, ${second.ms.toFixed(1)} ms from the cache`);
    assert.equal(fresh.probe.verification.cached, false);
    assert.equal(first.probe.verification.cached, false);
    // Only lasting verdicts are kept.
    if (['verified', 'wrong-results', 'slower-than-wasm'].includes(first.probe.reason)) {
      assert.equal(second.probe.verification.cached, true, JSON.stringify(second.probe));
      assert.equal(second.probe.reason, first.probe.reason);
    }
    assert.equal(fresh.change.reason, fresh.probe.reason);
  }
});

test('Deno, detect.js (backend-targets/detect): detect() without init answers a documented reason in time, as index.js does', () => {
  const out = runDeno('detect.js');
  assert.ok(out.apiPresent, 'Deno has navigator.gpu');
  for (const report of [out.probe, out.resolved.probe]) {
    assert.ok(REASONS.includes(report.reason), report.reason);
    assert.ok(report.elapsedMs <= report.timeoutMs + 100, `${report.elapsedMs} ms`);
  }
  assert.equal(out.resolved.effective.features.includes('webGpu'), out.resolved.probe.reason === 'adapter-available');
  const full = runDeno('index.js');
  assert.deepEqual(out.resolved.declared, full.resolved.declared);
  assert.equal(out.resolved.probe.reason, full.resolved.probe.reason);
});

test('Deno without --allow-read: init() says which permission the .wasm needs', () => {
  assert.ok(existsSync(DENO), `no Deno at ${DENO}: run scripts/setup.sh (npm ci in tests/js)`);
  // A static import is loaded without the permission; the .wasm's fetch is not.
  const code = `import init from ${JSON.stringify(pathToFileURL(join(ROOT, 'pkg', 'index.js')).href)};
try { await init(); console.log(JSON.stringify({ ok: true })); }
catch (error) { console.log(JSON.stringify({ code: error.code, message: error.message })); }`;
  // `deno run` with no permission flag (`deno eval` has every permission).
  const dir = mkdtempSync(join(tmpdir(), 'bt-deno-'));
  const script = join(dir, 'main.mjs');
  writeFileSync(script, code);
  const r = spawnSync(DENO, ['run', script], { timeout: 60_000, env: { ...process.env, NO_COLOR: '1', DENO_NO_UPDATE_CHECK: '1' } });
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r.status, 0, `deno: ${r.stderr}`);
  const out = JSON.parse(r.stdout.toString());
  assert.equal(out.code, 'io', JSON.stringify(out));
  assert.match(out.message, /Deno needs the permission to read it: run with --allow-read/);
  assert.doesNotMatch(out.message, /bundler/);
});

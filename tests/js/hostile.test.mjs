// Hostile input (inputs built to exhaust or confuse) through the built package's Node entry
// (pkg/node.js) and the WASI module: the limits and their option, a lone
// surrogate and a symbol-keyed property refused in every entry, limit values
// above 2^53 refused everywhere, the probe with a WebGPU polyfill in Node,
// a module whose memory is exhausted ending in a clean error, and WASI output
// that cannot be written ending non-zero.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NATIVE_BIN, ROOT, WASI_MODULE } from './common.mjs';

const PKG = process.env.BACKEND_TARGETS_PKG ?? join(ROOT, 'pkg');
const api = await import(pathToFileURL(join(PKG, 'node.js')).href);

/** What `fn` throws, as { code, path, message }. */
function thrown(fn) {
  try {
    fn();
  } catch (error) {
    return { code: error.code, path: error.path, message: error.message };
  }
  assert.fail('did not throw');
}

const opsRequest = (n) => JSON.stringify({ ops: Array(n).fill('add') });

test('limits: refused with limit-exceeded at the path, raised by the limits option up to the ceiling', () => {
  const text = opsRequest(10_001);
  for (const call of [() => api.planJson(text), () => api.plan(text), () => api.plan(JSON.parse(text))]) {
    const error = thrown(call);
    assert.equal(error.code, 'limit-exceeded');
    assert.equal(error.path, 'ops');
  }
  const raised = { limits: { ops: 20_000 } };
  assert.equal(JSON.parse(api.planJson(text, raised)).ok, true);
  assert.equal(api.plan(JSON.parse(text), raised).ok, true);
  assert.deepEqual(thrown(() => api.planJson('{}', { limits: { ops: 2e6 } })).path, 'options.limits.ops');
  assert.equal(thrown(() => api.planJson('{}', { limits: { ops: 2e6 } })).code, 'invalid-value');
  assert.equal(thrown(() => api.planJson('{}', { limits: { opz: 1 } })).code, 'unknown-field');
  assert.equal(thrown(() => api.planJson('{}', { limitz: {} })).code, 'unknown-field');
  // The same bytes as the command under the same limits.
  assert.equal(api.planJson(opsRequest(3), { limits: { ops: 3 } }), api.planJson(opsRequest(3)));
});

test('a string longer than the byte limit is refused before it is copied', () => {
  const error = thrown(() => api.planJson(' '.repeat(1001), { limits: { requestBytes: 1000 } }));
  assert.equal(error.code, 'limit-exceeded');
  assert.equal(error.path, '');
});

test('a lone surrogate is refused in every entry, never replaced', () => {
  const capsule = { name: 'bad\uD800name', op: 'add', provider: 'reference', device: 'cpu', trustLevel: 'checked' };
  const request = { ops: ['add'], capsules: [capsule] };
  const text = JSON.stringify(request).replace('\\ud800', '\uD800');
  assert.ok(!text.isWellFormed());
  for (const call of [() => api.planJson(text), () => api.plan(text)]) {
    const error = thrown(call);
    assert.equal(error.code, 'invalid-json');
    assert.equal(error.path, '');
    assert.match(error.message, /lone surrogate at UTF-16 index \d+/);
  }
  const error = thrown(() => api.plan(request));
  assert.equal(error.code, 'wrong-type');
  assert.equal(error.path, 'capsules[0].name');
  assert.match(error.message, /a string with a lone surrogate/);
  // Escaped in the text, JSON's own parser refuses it: the same code as natively.
  assert.equal(thrown(() => api.planJson(JSON.stringify(request))).code, 'invalid-json');
});

test('a symbol-keyed property is refused, not dropped', () => {
  const request = { ops: ['add'], config: { device: 'cpu', [Symbol('x')]: 1 } };
  const error = thrown(() => api.plan(request));
  assert.equal(error.code, 'wrong-type');
  assert.equal(error.path, 'config');
  assert.match(error.message, /symbol-keyed property/);
});

test('limit values above 2^53 - 1 are refused by plan() and planJson() alike', () => {
  const text = '{"ops":[],"availability":{"webGpu":{"limits":{"maxBufferSize":9007199254740992}}}}';
  for (const call of [() => api.planJson(text), () => api.plan(text), () => api.plan(JSON.parse(text))]) {
    const error = thrown(call);
    assert.equal(error.code, 'invalid-value');
    assert.equal(error.path, 'availability.webGpu.limits.maxBufferSize');
  }
});

test('probe() and detect() with a WebGPU polyfill in Node answer no-navigator within timeoutMs', async () => {
  const had = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
  for (const gpu of [{}, { requestAdapter: async () => null }]) {
    Object.defineProperty(globalThis, 'navigator', { value: { gpu }, configurable: true, writable: true });
    try {
      const report = await api.probe({ timeoutMs: 500 });
      assert.equal(report.available, false);
      assert.equal(report.reason, 'no-navigator');
      assert.match(report.message, /polyfill/);
      const resolution = await api.detect({ timeoutMs: 500 });
      assert.equal(resolution.probe.reason, 'no-navigator');
      assert.ok(!resolution.effective.features.includes('webGpu'));
    } finally {
      if (had) Object.defineProperty(globalThis, 'navigator', had);
      else delete globalThis.navigator;
    }
  }
  // The instance still answers.
  assert.equal(api.plan({ ops: ['add'] }).ok, true);
});

test('memory exhausted inside the module ends in a clean error, and the next call answers', { timeout: 240_000 }, async () => {
  // The suites' copy of the package, whose module has the test hooks.
  const api = await import(pathToFileURL(join(ROOT, 'pkg-test', 'node.js')).href);
  // Takes 1 MiB blocks while one output vector grows, until the allocator
  // gives up at the module's 2 GiB: a trap, never an out-of-bounds access.
  let error;
  try {
    api.__exhaustMemoryForTesting();
  } catch (e) {
    error = e;
  }
  assert.ok(error instanceof Error, 'it ends in an error');
  assert.doesNotMatch(String(error.message), /out of bounds/);
  assert.equal(api.plan({ ops: ['add'] }).ok, true);
  // Before, the memory the interrupted call held was never freed, so only
  // a tiny call still answered. Now the call says what happened, as a
  // BackendTargetsError, and the next one runs on a fresh instance: big
  // calls answer too, again and again.
  assert.equal(error.name, 'BackendTargetsError', error.stack);
  assert.equal(error.code, 'limit-exceeded');
  assert.match(error.message, /ran out of memory \(its 2 GiB\)/);
  const big = JSON.stringify({ ops: Array(100_000).fill('add') });
  const limits = { limits: { ops: 100_000, work: 200_000 } };
  for (let round = 0; round < 3; round++) {
    assert.throws(() => api.__exhaustMemoryForTesting(), (e) => e.code === 'limit-exceeded', `round ${round}`);
    for (let i = 0; i < 5; i++) assert.ok(api.planJson(big, limits).length > 10_000_000, `round ${round}, call ${i}`);
  }
});

test('WASI: output that cannot be written is an error, never exit 0', () => {
  const runWasmtime = (args, input, stdio) => spawnSync('wasmtime', ['run', WASI_MODULE, ...args], { input, stdio, maxBuffer: 1 << 28 });
  const probe = spawnSync('wasmtime', ['--version']);
  // scripts/setup.sh installs wasmtime: without it this test fails, never passes empty.
  assert.equal(probe.error, undefined, `wasmtime is missing (scripts/setup.sh installs it): ${probe.error}`);
  // A full device.
  const full = spawnSync('sh', ['-c', `wasmtime run '${WASI_MODULE}' presets > /dev/full`]);
  assert.equal(full.status, 3, full.stderr.toString());
  assert.match(full.stderr.toString(), /error \[output\] at \(top level\): cannot write the output/);
  // A big plan (some 18 MB) is written whole, in pieces.
  const big = JSON.stringify({ ops: Array(100_000).fill('add') });
  const out = runWasmtime(['plan', '--limit', 'ops=100000', '--limit', 'work=200000'], big);
  assert.equal(out.status, 0, out.stderr?.toString());
  assert.ok(out.stdout.length > 10_000_000);
  assert.equal(out.stdout.at(-1), 0x0a);
});

// ------------------------------ WASI streams, large inputs and outputs, the module's bounds

/** Runs `command` under bash with pipefail; returns { status, stderr }. */
function pipeline(command, input) {
  const r = spawnSync('bash', ['-c', `set -o pipefail; ${command}`], { input, maxBuffer: 1 << 20 });
  return { status: r.status, stderr: r.stderr.toString() };
}

const wasiRuntimes = {
  wasmtime: (args) => `wasmtime run '${WASI_MODULE}' ${args}`,
  'node:wasi': (args) => `'${process.execPath}' '${join(ROOT, 'tests', 'js', 'node-wasi-runner.mjs')}' '${WASI_MODULE}' ${args}`,
};

test('WASI: stdout closed by its reader (plan … | head) ends quietly with 13, a full disk with 3 and a line (natively 141 and 3)', () => {
  // 10,000 ops: some 1.8 MB of output, far more than a pipe holds, so the
  // writer is still writing when head has gone.
  const request = JSON.stringify({ ops: Array(10_000).fill('add') });
  const native = pipeline(`'${NATIVE_BIN}' plan | head -c 10 >/dev/null`, request);
  assert.deepEqual(native, { status: 141, stderr: '' });
  for (const [runtime, command] of Object.entries(wasiRuntimes)) {
    const closed = pipeline(`${command('plan')} | head -c 10 >/dev/null`, request);
    assert.deepEqual(closed, { status: 13, stderr: '' }, `${runtime}: a closed pipe`);
    const full = pipeline(`${command('plan')} >/dev/full`, request);
    assert.equal(full.status, 3, `${runtime}: ${full.stderr}`);
    assert.equal(full.stderr, 'backend-targets: error [output] at (top level): cannot write the output: no space left\n', runtime);
  }
});

test('WASI: input above 128 MiB is read as natively, from stdin and from --request (in pieces)', { timeout: 240_000 }, () => {
  // 140 MiB: one op and spaces. Under wasmtime one read carries at most
  // 128 MiB (its hostcall limit); the command reads in 1 MiB pieces. (Not
  // node:wasi: Node 20's garbage collector aborts the process on this input.)
  const dir = mkdtempSync(join(tmpdir(), 'bt-big-'));
  try {
    const file = join(dir, 'request.json');
    writeFileSync(file, `{"ops":["add"]${' '.repeat(140 << 20)}}`);
    const limit = '--limit requestBytes=268435456';
    const native = spawnSync(NATIVE_BIN, ['plan', '--limit', 'requestBytes=268435456', '--request', file]);
    assert.equal(native.status, 0, native.stderr.toString());
    const cases = {
      'wasmtime, stdin': `wasmtime run '${WASI_MODULE}' plan ${limit} < '${file}'`,
      'wasmtime, --request': `wasmtime run --dir '${dir}::/in' '${WASI_MODULE}' plan ${limit} --request /in/request.json`,
    };
    for (const [what, command] of Object.entries(cases)) {
      const r = spawnSync('bash', ['-c', command], { maxBuffer: 1 << 24 });
      assert.equal(r.status, 0, `${what}: ${r.stderr}`);
      assert.ok(r.stdout.equals(native.stdout), `${what}: the native command's bytes`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('plan(object): an object whose JSON is longer than requestBytes is refused before it is written whole or copied', () => {
  const memory = () => api.initSync().memory.buffer.byteLength;
  const before = memory();
  // Some 20 MB of JSON, and a getter JSON.stringify reaches only at the end.
  let reachedTheEnd = false;
  const request = { ops: Array(3_000_000).fill('add'), get explain() { reachedTheEnd = true; return true; } };
  const error = thrown(() => api.plan(request));
  assert.equal(error.code, 'limit-exceeded');
  assert.equal(error.path, '');
  assert.match(error.message, /^\[limit-exceeded\] at \(top level\): \d+ bytes or more as JSON text, more than the limit requestBytes = 16777216/);
  assert.equal(reachedTheEnd, false, 'JSON.stringify stopped at the limit');
  assert.ok(memory() - before < 4 << 20, `the module's memory grew from ${before} to ${memory()} bytes`);
  // Under a raised limit it is written whole, and planned.
  const limits = { limits: { requestBytes: 32 << 20, ops: 1_000_000, work: 2_000_000 } };
  const small = { ops: Array(200_000).fill('add'), get explain() { reachedTheEnd = true; return false; } };
  assert.equal(api.plan(small, limits).ok, true);
  assert.equal(reachedTheEnd, true);
});

test('a request inside every ceiling whose answer cannot fit is refused, naming the combination, and the module keeps answering', { timeout: 600_000 }, () => {
  // A request within every ceiling that once broke the module: 112 MB of text,
  // 100,000 capsules with 1 KB names, 19 configs, 1.9 M units of work. Its
  // answer would be some 2.3 GB; it exhausted the module's 2 GiB and left it
  // throwing for good.
  const name = 'n'.repeat(1_000);
  const capsule = (i) => `{"name":"${name}${i}","op":"matmul","provider":"cuBLAS","device":"cuda","trustLevel":"checked"}`;
  const capsules = Array.from({ length: 100_000 }, (_, i) => capsule(i)).join(',');
  const configs = Array(19).fill('{"device":"cuda"}').join(',');
  const text = `{"ops":["matmul"],"configs":[${configs}],"capsules":[${capsules}]}`;
  assert.ok(text.length > 100e6, String(text.length));
  const limits = { limits: { requestBytes: 256 << 20, work: 2_000_000 } };
  const error = thrown(() => api.planJson(text, limits));
  assert.equal(error.code, 'limit-exceeded');
  assert.match(error.message, /\(19 configs, each explaining 1 ops and 100000 capsules with \d+ bytes of names\), more than the limit outputBytes = 134217728/);
  // Even at its ceiling.
  const ceiling = { limits: { ...limits.limits, outputBytes: 256 << 20 } };
  assert.match(thrown(() => api.planJson(text, ceiling)).message, /more than the limit outputBytes = 268435456/);
  // The instance is fine: a large plan answers, more than once.
  const big = JSON.stringify({ ops: Array(100_000).fill('add') });
  for (let i = 0; i < 3; i++) assert.ok(api.planJson(big, { limits: { ops: 100_000, work: 200_000 } }).length > 10_000_000);
});

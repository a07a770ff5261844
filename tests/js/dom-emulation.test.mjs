// The built package in Node under a test runner's DOM emulation: jsdom's
// window copied onto the global as Vitest's jsdom environment does, and a
// bare `globalThis.document` shim; each with no `navigator.gpu` and with a
// mock one. Every entry, each in a process of its own, answers detect() and
// detect({ verify }) with a reason: never a rejection, a trap, an unhandled
// rejection or a process that exits early (the package README, "In a test
// runner's DOM emulation").
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';

const PKG = join(ROOT, 'pkg');
const JSDOM = pathToFileURL(join(ROOT, 'tests', 'js', 'node_modules', 'jsdom', 'lib', 'api.js')).href;

// How each emulation sets up the global, before the package is imported.
const SETUPS = {
  // Vitest's jsdom environment: the window's own names that the global
  // lacks, defined on it (its populateGlobal), `window` and `self` the global.
  jsdom: `
    const { JSDOM } = (await import(${JSON.stringify(JSDOM)})).default;
    const { window } = new JSDOM('<!doctype html><html><body></body></html>', { url: 'http://localhost:3000/' });
    const own = new Set(['window', 'self', 'top', 'parent', 'frames', 'globalThis']);
    for (const name of Object.getOwnPropertyNames(window)) {
      if (name in globalThis || own.has(name)) continue;
      try { Object.defineProperty(globalThis, name, Object.getOwnPropertyDescriptor(window, name)); } catch {}
    }
    for (const name of ['window', 'self', 'top', 'parent']) {
      Object.defineProperty(globalThis, name, { value: globalThis, configurable: true, writable: true });
    }
    Object.defineProperty(globalThis, 'navigator', { value: window.navigator, configurable: true });`,
  shim: `
    globalThis.document = {};
    Object.defineProperty(globalThis, 'navigator', { value: {}, configurable: true });`,
};

// A mock navigator.gpu, as a test would write one: an adapter with a few
// members and a device with none of WebGPU's.
const MOCK_GPU = `
  Object.defineProperty(globalThis.navigator, 'gpu', { configurable: true, value: {
    requestAdapter: async () => ({
      features: new Set(['shader-f16']),
      limits: { maxBindGroups: 4 },
      info: { vendor: 'mock', architecture: '', device: '', description: 'a mock' },
      requestDevice: async () => ({}),
    }),
  } });`;

// Each entry as an app under test would load it: the web entry with its
// bytes (`initSync`), the Node condition's entry as it is, the detect-only
// and verification entries with their bytes, and the verification entry
// with no init at all (it fetches its .wasm: Node's fetch refuses file:).
const ENTRIES = {
  'backend-targets/web': `const api = await import(${JSON.stringify(pathToFileURL(join(PKG, 'index.js')).href)});
    api.initSync({ module: readFileSync(${JSON.stringify(join(PKG, 'backend_targets_bg.wasm'))}) });`,
  'backend-targets (node condition)': `const api = await import(${JSON.stringify(pathToFileURL(join(PKG, 'node.js')).href)});`,
  'backend-targets/detect': `const api = await import(${JSON.stringify(pathToFileURL(join(PKG, 'detect.js')).href)});
    await api.default(readFileSync(${JSON.stringify(join(PKG, 'detect_bg.wasm'))}));`,
  'backend-targets/verify': `const api = await import(${JSON.stringify(pathToFileURL(join(PKG, 'verified.js')).href)});
    await api.default(readFileSync(${JSON.stringify(join(PKG, 'verified_bg.wasm'))}));`,
  'backend-targets/verify, no init': `const api = await import(${JSON.stringify(pathToFileURL(join(PKG, 'verified.js')).href)});`,
};

function run(setup, gpu, entry) {
  const script = `
    import { readFileSync } from 'node:fs';
    process.on('unhandledRejection', (reason) => { console.log('UNHANDLED ' + reason); process.exit(3); });
    ${SETUPS[setup]}
    ${gpu ? MOCK_GPU : ''}
    ${ENTRIES[entry]}
    const answers = [];
    for (const options of [undefined, { verify: true }, { timeoutMs: 500, verify: { budgetMs: 300 } }]) {
      try {
        const answer = await api.detect(options);
        answers.push({ reason: answer.probe.reason, message: answer.probe.message, kept: answer.effective.features });
      } catch (error) {
        answers.push({ rejected: String(error) });
      }
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
    console.log('ANSWERS ' + JSON.stringify(answers));`;
  const child = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', timeout: 30_000 });
  const line = child.stdout.split('\n').find((text) => text.startsWith('ANSWERS '));
  return { status: child.status, signal: child.signal, stderr: child.stderr, stdout: child.stdout, answers: line && JSON.parse(line.slice(8)) };
}

for (const setup of Object.keys(SETUPS)) {
  for (const gpu of [false, true]) {
    for (const entry of Object.keys(ENTRIES)) {
      test(`${setup}${gpu ? ' with a mock navigator.gpu' : ''}: ${entry} answers every call with a reason`, () => {
        const { status, signal, stderr, stdout, answers } = run(setup, gpu, entry);
        assert.equal(status, 0, `exit ${status} ${signal ?? ''}\n${stdout}\n${stderr}`);
        assert.ok(Array.isArray(answers), stdout);
        for (const answer of answers) {
          assert.equal(answer.rejected, undefined, `a rejection: ${answer.rejected}`);
          assert.equal(typeof answer.reason, 'string');
          assert.ok(answer.message.length > 0);
        }
        // With `verify`: never kept on a mock or an emulation.
        for (const answer of answers.slice(1)) assert.deepEqual(answer.kept, [], JSON.stringify(answer));
        if (!gpu) return;
        // With `verify` and a mock: not verified, and why; under a bare
        // shim, wgpu cannot reach the mock at all (unless the module itself
        // could not be had, which comes first).
        const expected = setup === 'shim' && !entry.endsWith('no init') ? 'no-navigator' : 'verify-failed';
        for (const answer of answers.slice(1)) assert.equal(answer.reason, expected, JSON.stringify(answer));
      });
    }
  }
}

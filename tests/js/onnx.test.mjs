// The README's recipe run for real (www/onnx/): detect() and plan() decide,
// then ONNX Runtime Web (npm onnxruntime-web, served from this origin through
// www/onnx/ort) runs a tiny model (www/onnx/tiny.onnx: y = Relu(x · W + b)) on
// the execution provider the plan chose. In headless Chromium:
//   --enable-unsafe-webgpu   SwiftShader answers, a software adapter: the recipe's
//                            allowFallbackAdapter: false drops webGpu (fallback-adapter),
//                            ORT runs on 'wasm'; with ?allowFallbackAdapter=true the plan
//                            picks webGpu and ORT runs on 'webgpu'
//   default flags            no adapter: the plan falls back to cpu, ORT runs on 'wasm'
// The output is checked against the same arithmetic done here, in float64.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { withChromium } from './chromium.mjs';
import { ROOT } from './common.mjs';
import { serve } from './static-server.mjs';

// The model's numbers (www/onnx/make_model.py) and the page's input (www/onnx/app.js).
const W = [[0.5, -1.0, 0.25], [1.0, 0.5, -0.5], [-0.25, 0.75, 1.0], [0.0, -0.5, 0.5]];
const B = [0.1, -0.2, 0.3];
const X = [2, 1, 1, 1];
const EXPECTED = B.map((b, j) => Math.max(0, X.reduce((sum, x, i) => sum + x * W[i][j], b)));

let server;
before(async () => {
  for (const file of ['pkg/index.js', 'www/onnx/tiny.onnx', 'www/onnx/ort/ort.webgpu.min.mjs', 'www/onnx/ort/ort.wasm.min.mjs']) {
    assert.ok(existsSync(join(ROOT, file)), `${file} is missing (scripts/build.sh; npm ci in tests/js)`);
  }
  server = await serve(ROOT);
});
after(async () => {
  await server?.close();
});

async function runExample(context, query = '') {
  const page = context.pages()[0] ?? (await context.newPage());
  const problems = [];
  const requested = [];
  page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
  });
  page.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
  page.on('request', (request) => {
    const url = request.url();
    if (!url.startsWith(`${server.origin}/`) && !url.startsWith('data:')) problems.push(`request outside the origin: ${url}`);
    requested.push(new URL(url).pathname);
  });
  await page.goto(`${server.origin}/www/onnx/${query}`);
  await page.waitForFunction(() => document.body.dataset.ready, null, { timeout: 60_000 });
  const state = await page.evaluate(() => ({
    ready: document.body.dataset.ready,
    status: document.getElementById('status').textContent,
    output: document.getElementById('output').textContent,
    plan: document.getElementById('plan').textContent,
    reason: document.body.dataset.reason,
  }));
  assert.equal(state.ready, 'true', `${state.status}; ${problems.join('; ')}`);
  assert.deepEqual(problems, []);
  return { ...state, result: JSON.parse(state.output), requested };
}

function assertOutput(result) {
  assert.deepEqual(result.dims, [1, 3]);
  assert.equal(result.y.length, EXPECTED.length);
  result.y.forEach((y, j) => assert.ok(Math.abs(y - EXPECTED[j]) < 1e-5, `y[${j}] = ${y}, expected ${EXPECTED[j]}`));
  assert.equal(EXPECTED[1], 0, 'the input exercises Relu');
}

test('SwiftShader, as the recipe runs it (allowFallbackAdapter: false): the software adapter is refused, ORT runs on wasm', async () => {
  await withChromium(['--enable-unsafe-webgpu'], async (context) => {
    const run = await runExample(context);
    assert.equal(run.reason, 'fallback-adapter');
    assert.equal(run.result.executionProvider, 'wasm');
    assert.match(run.plan, /config #1 won/);
    assertOutput(run.result);
    assert.ok(run.requested.includes('/www/onnx/ort/ort.wasm.min.mjs'));
    assert.ok(!run.requested.includes('/www/onnx/ort/ort.webgpu.min.mjs'), 'only the chosen build is fetched');
  });
});

test('SwiftShader with ?allowFallbackAdapter=true&verify=false (presence alone): the plan picks webGpu and ONNX Runtime Web runs the model on webgpu', async () => {
  await withChromium(['--enable-unsafe-webgpu'], async (context) => {
    const run = await runExample(context, '?allowFallbackAdapter=true&verify=false');
    assert.equal(run.reason, 'adapter-available');
    assert.equal(run.result.executionProvider, 'webgpu');
    assert.match(run.plan, /config #0 won/);
    assertOutput(run.result);
    assert.ok(run.requested.includes('/www/onnx/ort/ort.webgpu.min.mjs'));
    assert.ok(!run.requested.includes('/www/onnx/ort/ort.wasm.min.mjs'), 'only the chosen build is fetched');
  });
});

test('SwiftShader with ?allowFallbackAdapter=true, verified: the verdict agrees with ONNX Runtime Web\'s own times on the page', async () => {
  await withChromium(['--enable-unsafe-webgpu'], async (context) => {
    const run = await runExample(context, '?allowFallbackAdapter=true&compare=true');
    const page = context.pages()[0];
    const times = await page.evaluate(() => ({ webgpu: Number(document.body.dataset.ortWebgpuMs), wasm: Number(document.body.dataset.ortWasmMs) }));
    console.log(`example page: ORT webgpu ${times.webgpu.toFixed(2)} ms, wasm ${times.wasm.toFixed(2)} ms a run; verdict ${run.reason}`);
    // (A run of this 248-byte model on wasm can take less than the page's
    // timer resolution, 0.1 ms: 0 is a measurement.)
    assert.ok(times.webgpu > 0 && times.wasm >= 0, JSON.stringify(times));
    assert.equal(run.reason, times.webgpu > times.wasm ? 'slower-than-wasm' : 'verified');
    assert.equal(run.result.executionProvider, run.reason === 'verified' ? 'webgpu' : 'wasm');
    assert.match(run.plan, /Verified on the adapter: (slower-than-wasm|verified) — GPU [\d.]+ ms against WebAssembly [\d.]+ ms/);
    assert.match(run.plan, /ONNX Runtime Web's own times for this model/);
    assertOutput(run.result);
  });
});

test('no adapter: the plan falls back to cpu and ONNX Runtime Web runs the model on wasm', async () => {
  await withChromium([], async (context) => {
    const run = await runExample(context);
    assert.equal(run.result.executionProvider, 'wasm');
    assert.match(run.plan, /config #1 won/);
    assertOutput(run.result);
    assert.ok(run.requested.includes('/www/onnx/ort/ort.wasm.min.mjs'));
    assert.ok(!run.requested.includes('/www/onnx/ort/ort.webgpu.min.mjs'), 'only the chosen build is fetched');
  });
});

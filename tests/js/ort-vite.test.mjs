// The package README's ONNX Runtime Web recipes, as written, under Vite: both
// fenced js blocks of its "ONNX Runtime Web" section (the one-call
// executionProviders() form and the plan() form) are taken verbatim from
// pkg-template/README.md and run as a page's module, with a few lines after
// them that run the session on www/onnx/tiny.onnx (y = Relu(x · W + b),
// served as /model.onnx) and leave the result in window.__result. A fresh
// temporary project installs dist/backend-targets-<version>.tgz and
// onnxruntime-web (the version tests/js/package.json pins) offline; each
// recipe runs under `vite dev` and after `vite build` (served by
// static-server.mjs, its strict CSP included), in headless Chromium:
//   default flags            no adapter: the recipe runs ORT on 'wasm'
//   --enable-unsafe-webgpu   SwiftShader, a fallback adapter: the recipe's
//                            allowFallbackAdapter: false refuses it, 'wasm'
//   the same, SwiftShader kept (the recipe with `allowFallbackAdapter: true,
//   verify: false`, the one edit, so the webgpu import runs too): 'webgpu'
// Every request outside the page's server is aborted and none may be made
// (the recipe must run self-hosted, offline); only the chosen ORT build is
// fetched; no page error, no console error or warning but Chromium's own "No
// available adapters."; Vite prints no warning. The numbers are checked
// against the same arithmetic done here, in float64 (as onnx.test.mjs does).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { withChromium } from './chromium.mjs';
import { ROOT } from './common.mjs';
import { serve } from './static-server.mjs';
import { offlineProject, startViteDev } from './offline-project.mjs';

const VITE = join(ROOT, 'tests', 'js', 'node_modules', 'vite', 'bin', 'vite.js');
const { version } = JSON.parse(readFileSync(join(ROOT, 'pkg-template', 'package.json'), 'utf8'));
const TARBALL = process.env.BACKEND_TARGETS_TGZ ?? join(ROOT, 'dist', `backend-targets-${version}.tgz`);
const ORT_VERSION = JSON.parse(readFileSync(join(ROOT, 'tests', 'js', 'package.json'), 'utf8')).devDependencies['onnxruntime-web'];
// The README whose recipes run (another one to see the test fail on a broken recipe).
const README = process.env.ORT_VITE_README ?? join(ROOT, 'pkg-template', 'README.md');

// The model's numbers (www/onnx/make_model.py) and the input (www/onnx/app.js).
const W = [[0.5, -1.0, 0.25], [1.0, 0.5, -0.5], [-0.25, 0.75, 1.0], [0.0, -0.5, 0.5]];
const B = [0.1, -0.2, 0.3];
const X = [2, 1, 1, 1];
const EXPECTED = B.map((b, j) => Math.max(0, X.reduce((sum, x, i) => sum + x * W[i][j], b)));

/** The fenced js blocks of the README's "ONNX Runtime Web" section, verbatim. */
function recipes() {
  const readme = readFileSync(README, 'utf8');
  const start = readme.indexOf('### ONNX Runtime Web\n');
  assert.ok(start >= 0, 'the README has an "ONNX Runtime Web" section');
  const end = readme.indexOf('\n### ', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  const blocks = [...section.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.equal(blocks.length, 2, `two js blocks in the section:\n${section}`);
  assert.match(blocks[0], /executionProviders\(resolution\)/, blocks[0]);
  assert.match(blocks[1], /InferenceSession\.create\('\/model\.onnx', \{ executionProviders: \[ep\] \}\);\n$/, blocks[1]);
  // What each recipe names the provider it chose.
  return { 'executionProviders()': { code: blocks[0], ep: 'providers[0]' }, 'plan()': { code: blocks[1], ep: 'ep' } };
}

/** The page's module: the recipe, then its session run on the model's input. */
function page(recipe, keepSwiftShader) {
  let code = recipe.code;
  if (keepSwiftShader) {
    const refused = 'allowFallbackAdapter: false, verify: true';
    assert.ok(code.includes(refused), `the recipe reads "${refused}"`);
    code = code.replace(refused, 'allowFallbackAdapter: true, verify: false');
  }
  return `${code}
// (the test's lines)
const { y } = await session.run({ x: new ort.Tensor('float32', Float32Array.from(${JSON.stringify(X)}), [1, ${X.length}]) });
window.__result = { ep: ${recipe.ep}, y: Array.from(y.data), dims: y.dims };
`;
}

let dir;
let write;
let run;
const viteDev = () => startViteDev(VITE, dir);

/** Loads `origin`/ in Chromium with `flags`; returns the page's result and the paths it requested. */
async function runPage(origin, flags) {
  return withChromium(flags, async (context) => {
    const tab = await context.newPage();
    const problems = [];
    const outside = [];
    const requested = [];
    await tab.route('**/*', (route) => {
      const url = route.request().url();
      if (url.startsWith(`${origin}/`)) return route.continue();
      outside.push(url);
      return route.abort();
    });
    tab.on('request', (request) => {
      const url = request.url();
      if (url.startsWith(`${origin}/`)) requested.push(new URL(url).pathname);
      else if (!/^(data|blob):/.test(url) && !outside.includes(url)) outside.push(url);
    });
    tab.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    tab.on('requestfailed', (request) => problems.push(`request failed: ${request.url()}`));
    tab.on('console', (message) => {
      if (message.type() === 'error' || (message.type() === 'warning' && message.text() !== 'No available adapters.')) {
        problems.push(`console ${message.type()}: ${message.text()}`);
      }
    });
    // A page error (a module that fails to load) ends the wait at once.
    const failed = new Promise((resolve) => tab.once('pageerror', resolve)).then(() => {
      throw new Error('the page failed');
    });
    failed.catch(() => {}); // (one after the result is in problems, not unhandled)
    await tab.goto(`${origin}/`);
    try {
      await Promise.race([
        tab.waitForFunction(() => window.__result || null, null, { timeout: 120_000 }),
        failed,
      ]);
    } catch (error) {
      assert.fail(`no result (${error.message}); ${problems.join('; ')}`);
    }
    const result = await tab.evaluate(() => window.__result);
    assert.deepEqual(outside, [], 'no request outside the page\'s server');
    assert.deepEqual(problems, []);
    return { result, requested };
  });
}

function assertRun({ result, requested }, ep, where) {
  assert.equal(result.ep, ep, `${where}: the recipe chose ${result.ep}`);
  assert.deepEqual(result.dims, [1, 3]);
  assert.equal(result.y.length, EXPECTED.length);
  result.y.forEach((y, j) => assert.ok(Math.abs(y - EXPECTED[j]) < 1e-5, `${where}: y[${j}] = ${y}, expected ${EXPECTED[j]}`));
  // Dev serves onnxruntime-web_<entry>.js (pre-bundled), build ort.<entry>.bundle.min-<hash>.js.
  const builds = (name) => requested.filter((path) => new RegExp(`onnxruntime-web_${name}\\.js$|/ort\\.${name}\\.bundle\\.min-[^/]*\\.js$`).test(path));
  const other = ep === 'webgpu' ? 'wasm' : 'webgpu';
  assert.equal(builds(ep).length, 1, `${where}: the ${ep} build is fetched: ${requested.join(' ')}`);
  assert.deepEqual(builds(other), [], `${where}: only the chosen build is fetched`);
  assert.ok(requested.includes('/model.onnx'), `${where}: ${requested.join(' ')}`);
  assert.ok(requested.some((path) => /ort-wasm-simd-threaded[^/]*\.wasm$/.test(path)), `${where}: ORT's .wasm from the page's server`);
}

const CASES = [
  { name: 'no adapter: wasm', flags: [], keep: false, ep: 'wasm' },
  { name: 'SwiftShader, refused (allowFallbackAdapter: false): wasm', flags: ['--enable-unsafe-webgpu'], keep: false, ep: 'wasm' },
  { name: 'SwiftShader kept (allowFallbackAdapter: true, verify: false): webgpu', flags: ['--enable-unsafe-webgpu'], keep: true, ep: 'webgpu' },
];

before(() => {
  // Offline: the tarball, and onnxruntime-web with its dependencies from
  // the npm cache that `npm ci` in tests/js (scripts/setup.sh) filled.
  ({ dir, write, run } = offlineProject('backend-targets-ort-vite-', { 'onnxruntime-web': ORT_VERSION }, TARBALL));
  mkdirSync(join(dir, 'public'));
  copyFileSync(join(ROOT, 'www', 'onnx', 'tiny.onnx'), join(dir, 'public', 'model.onnx'));
  write('index.html', `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>ONNX Runtime Web recipe</title></head>
  <body><script type="module" src="/main.js"></script></body>
</html>
`);
});

after(() => {
  if (dir && !process.env.KEEP_CONSUMER_DIR) rmSync(dir, { recursive: true, force: true });
});

for (const [name, recipe] of Object.entries(recipes())) {
  describe(`the package README's ONNX Runtime Web recipe, ${name}, as written, with onnxruntime-web ${ORT_VERSION}`, () => {
    test('under `vite dev`', async () => {
      for (const c of CASES) {
        write('main.js', page(recipe, c.keep));
        rmSync(join(dir, 'node_modules', '.vite'), { recursive: true, force: true });
        const server = await viteDev();
        try {
          assertRun(await runPage(server.origin, c.flags), c.ep, `dev, ${c.name}`);
        } finally {
          await server.close();
        }
        assert.doesNotMatch(server.output(), /warn|\(!\)|deprecat|error|fail/i, `vite printed a warning:\n${server.output()}`);
      }
    });

    test('after `vite build`', async () => {
      for (const c of CASES) {
        write('main.js', page(recipe, c.keep));
        const r = run(process.execPath, [VITE, 'build', '--logLevel', 'info']);
        assert.equal(r.status, 0, `vite build failed:\n${r.output}`);
        assert.match(r.output, /built in/, r.output);
        assert.doesNotMatch(r.output, /warn|\(!\)|deprecat|error/i, `vite printed a warning:\n${r.output}`);
        const server = await serve(join(dir, 'dist'));
        try {
          assertRun(await runPage(server.origin, c.flags), c.ep, `build, ${c.name}`);
        } finally {
          await server.close();
        }
      }
    });
  });
}

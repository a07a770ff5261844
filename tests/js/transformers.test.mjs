// The package README's Transformers.js recipe run as written, offline, against
// the real library from npm (@huggingface/transformers, tests/js's pinned
// devDependency): in a fresh temporary project,
//   - @huggingface/transformers and dist/backend-targets-<version>.tgz are
//     installed offline with --ignore-scripts (from the npm cache that `npm ci`
//     in tests/js filled; Transformers.js by a lockfile drawn from tests/js's),
//     as the README says;
//   - the page's module is the README's Transformers.js code blocks, verbatim
//     but for the model id (a tiny model of this project's), then a few lines
//     that run the pipeline on a sentence and expose the answer;
//   - the model folder (tests/js/fixtures/make_transformers_model.py: a "bert"
//     whose graph is one embedding lookup, with model.onnx, model_fp16.onnx and
//     model_quantized.onnx computing the same numbers) under public/models/,
//     ONNX Runtime's files (of the onnxruntime-web Transformers.js resolves)
//     under public/ort/, as the README's env settings name them;
//   - `vite build` (tests/js's own Vite), served statically with the demo's CSP;
//   - headless Chromium, every request not to the local server aborted and
//     recorded (none may be attempted: no huggingface.co, no CDN):
//       default flags           no adapter: device 'wasm', dtype 'q8' (model_quantized.onnx)
//       --enable-unsafe-webgpu  SwiftShader, refused by the recipe's allowFallbackAdapter:
//                               false: 'wasm', 'q8' likewise
//       the same, with the detect() options swapped for presence alone (a second
//       build): 'webgpu', with 'fp16' where the adapter has shader-f16, else 'fp32'
// The output is checked against the tokenization and the table done here.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './common.mjs';
import { withChromium } from './chromium.mjs';
import { offlineProject, startViteDev } from './offline-project.mjs';
import { serve } from './static-server.mjs';

const TOOLS = join(ROOT, 'tests', 'js', 'node_modules');
const VITE = join(TOOLS, 'vite', 'bin', 'vite.js');
const { version } = JSON.parse(readFileSync(join(ROOT, 'pkg-template', 'package.json'), 'utf8'));
const TARBALL = process.env.BACKEND_TARGETS_TGZ ?? join(ROOT, 'dist', `backend-targets-${version}.tgz`);
const TRANSFORMERS = JSON.parse(readFileSync(join(ROOT, 'tests', 'js', 'package.json'), 'utf8'))
  .devDependencies['@huggingface/transformers'];
const MAKE_MODEL = join(ROOT, 'tests', 'js', 'fixtures', 'make_transformers_model.py');

// The README's model id, and the tiny model's that replaces it.
const README_MODEL = "'Xenova/all-MiniLM-L6-v2'";
const MODEL = 'backend-targets/tiny-bert';
// The README's detect() options, and presence alone (the third test's build).
const README_DETECT = 'detect({ allowFallbackAdapter: false, verify: true })';
const PRESENCE_DETECT = 'detect({ allowFallbackAdapter: true, verify: false })';

// The model's numbers (make_transformers_model.py): a WordPiece vocabulary
// (lower-cased, punctuation split off, an unknown word is [UNK]) and row i of
// the embedding table, column j, is (4 i + j - 20) / 4.
const VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'hello', 'offline', 'world', 'model', 'runs', ',', '!', '.'];
const SENTENCE = 'Hello, offline world! Tiny model runs.';
const IDS = [2, ...SENTENCE.toLowerCase().match(/\w+|[^\s\w]/g).map((w) => Math.max(1, VOCAB.indexOf(w))), 3];
const EXPECTED = IDS.flatMap((i) => [0, 1, 2, 3].map((j) => (4 * i + j - 20) / 4));

const READ_ME = () => readFileSync(join(ROOT, 'pkg-template', 'README.md'), 'utf8');
/** The README's Transformers.js section's ```js blocks, in order. */
function recipe(readme) {
  const start = readme.indexOf('\n### Transformers.js\n');
  assert.ok(start >= 0, 'the README has a "### Transformers.js" section');
  const end = readme.indexOf('\n#', start + 1);
  const section = readme.slice(start, end < 0 ? undefined : end);
  assert.ok(section.includes(`\`@huggingface/transformers\` ${TRANSFORMERS}`), `the section names the version tested, ${TRANSFORMERS}`);
  const blocks = [...section.matchAll(/^```js\n([\s\S]*?)^```$/gm)].map((m) => m[1]);
  assert.ok(blocks.length > 0, 'the section has a ```js block');
  return blocks.join('\n');
}
/** `text` with `from` (found exactly once) replaced by `to`. */
function replaceOnce(text, from, to) {
  assert.equal(text.split(from).length, 2, `the recipe names ${from} exactly once`);
  return text.replace(from, () => to);
}

// Appended to the recipe: run it on a sentence, expose what was chosen and computed.
const RUN = `
const output = await extractor(${JSON.stringify(SENTENCE)});
window.__answer = {
  reason: resolution.changes.find((change) => change.feature === 'webGpu')?.reason ?? resolution.probe.reason,
  f16: resolution.availability.webGpu?.features?.includes('shader-f16') ?? false,
  options,
  session: extractor.model.sessions.model.config,
  dims: output.dims,
  data: Array.from(output.data),
};
document.getElementById('out').textContent = 'done';
`;

let dir;
let run;
const builds = {};
/** Builds the page with `source` as its module into `outDir`; returns the outDir's path. */
function build(source, outDir) {
  writeFileSync(join(dir, 'main.js'), source);
  const r = run(process.execPath, [VITE, 'build', '--logLevel', 'info', '--outDir', outDir]);
  assert.equal(r.status, 0, `vite build failed:\n${r.output}`);
  assert.match(r.output, /built in/, r.output);
  assert.doesNotMatch(r.output, /warn|\(!\)|deprecat|error/i, `vite printed a warning:\n${r.output}`);
  return join(dir, outDir);
}

before(() => {
  for (const file of [TARBALL, VITE]) assert.ok(existsSync(file), `${file} is missing (scripts/build.sh; npm ci in tests/js)`);
  // Offline, without install scripts, as the README says.
  ({ dir, run } = offlineProject('backend-targets-transformers-', { '@huggingface/transformers': TRANSFORMERS }, TARBALL));

  // The model folder: /models/<id>/ (env.localModelPath), by the script.
  const model = join(dir, 'public', 'models', ...MODEL.split('/'));
  const made = spawnSync('python3', [MAKE_MODEL, model], { encoding: 'utf8' });
  assert.equal(made.status, 0, `${MAKE_MODEL} failed:\n${made.stdout}${made.stderr}`);
  // ONNX Runtime's files: /ort/ (env.backends.onnx.wasm.wasmPaths), from the
  // onnxruntime-web Transformers.js itself depends on (nested where another
  // version is at the top of node_modules).
  const nested = join(dir, 'node_modules', '@huggingface', 'transformers', 'node_modules', 'onnxruntime-web');
  const ortWeb = existsSync(nested) ? nested : join(dir, 'node_modules', 'onnxruntime-web');
  const wanted = JSON.parse(readFileSync(join(dir, 'node_modules', '@huggingface', 'transformers', 'package.json'), 'utf8'))
    .dependencies['onnxruntime-web'];
  assert.equal(JSON.parse(readFileSync(join(ortWeb, 'package.json'), 'utf8')).version, wanted);
  mkdirSync(join(dir, 'public', 'ort'), { recursive: true });
  // The two files the README names, and no others.
  for (const file of ['ort-wasm-simd-threaded.asyncify.mjs', 'ort-wasm-simd-threaded.asyncify.wasm']) {
    copyFileSync(join(ortWeb, 'dist', file), join(dir, 'public', 'ort', file));
  }

  writeFileSync(join(dir, 'index.html'), `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>Transformers.js recipe</title></head>
  <body><pre id="out"></pre><script type="module" src="/main.js"></script></body>
</html>
`);
  // Transformers.js alone is over Vite's default 500 kB chunk warning.
  writeFileSync(join(dir, 'vite.config.js'), 'export default { build: { chunkSizeWarningLimit: 2048 } };\n');
});

after(() => {
  if (dir && !process.env.KEEP_TRANSFORMERS_DIR) rmSync(dir, { recursive: true, force: true });
});

/** Opens the build in `outDir` (or a running server, `{ origin }`) in a
 *  Chromium with `flags`; returns the page's answer and the requests. */
async function runPage(outDir, flags) {
  const server = typeof outDir === 'string' ? await serve(outDir) : { ...outDir, requests: [], close: async () => {} };
  try {
    return await withChromium(flags, async (context) => {
      const outside = [];
      await context.route('**/*', (route) => {
        const url = route.request().url();
        if (url.startsWith(`${server.origin}/`)) return route.continue();
        outside.push(url);
        return route.abort();
      });
      const page = await context.newPage();
      // (A static server of this suite's records what it answered; Vite's
      // dev server is seen from the page.)
      if (typeof outDir !== 'string') {
        page.on('response', (response) => {
          const url = new URL(response.url());
          if (url.origin === server.origin) server.requests.push({ path: url.pathname, status: response.status() });
        });
      }
      const problems = [];
      page.on('console', (message) => {
        if (message.type() === 'error') problems.push(`console error: ${message.text()}`);
      });
      const failed = new Promise((_, reject) => page.on('pageerror', (error) => reject(new Error(`page error: ${error.message}`))));
      failed.catch(() => {});
      await page.goto(`${server.origin}/`);
      await Promise.race([
        page.waitForFunction(() => document.getElementById('out').textContent === 'done', null, { timeout: 180_000 }),
        failed,
      ]);
      const answer = await page.evaluate(() => window.__answer);
      assert.deepEqual(outside, [], 'requests outside the local server');
      assert.deepEqual(problems, []);
      return { answer, requests: server.requests };
    });
  } finally {
    await server.close();
  }
}

function assertRun({ answer, requests }, device, dtype) {
  assert.deepEqual(answer.options, { device, dtype });
  assert.deepEqual(answer.session, { device, dtype }, 'Transformers.js\'s session ran as told');
  assert.deepEqual(answer.dims, [1, IDS.length, 4]);
  assert.deepEqual(answer.data, EXPECTED);
  assert.ok(IDS.includes(1), 'the sentence exercises [UNK]');
  const paths = requests.map((request) => request.path);
  assert.deepEqual(requests.filter((request) => request.status !== 200), [], 'every request answered');
  const file = { fp32: 'model.onnx', fp16: 'model_fp16.onnx', q8: 'model_quantized.onnx' }[dtype];
  const models = paths.filter((path) => path.endsWith('.onnx'));
  assert.deepEqual(models, [`/models/${MODEL}/onnx/${file}`], 'only the chosen dtype\'s file is fetched');
  for (const name of ['config.json', 'tokenizer.json', 'tokenizer_config.json']) {
    assert.ok(paths.includes(`/models/${MODEL}/${name}`), `${name} from the local folder`);
  }
  // (backend-targets' own .wasm comes from Vite's assets/.)
  const wasm = paths.filter((path) => /ort-wasm.*\.wasm$/.test(path));
  assert.ok(wasm.length > 0 && wasm.every((path) => path.startsWith('/ort/ort-wasm-simd-threaded.')),
    `ONNX Runtime's .wasm from /ort/ (wasmPaths), not the copy Vite emitted: ${wasm}`);
  assert.ok(paths.some((path) => /^\/ort\/ort-wasm-simd-threaded\.[\w.]*mjs$/.test(path)), `ONNX Runtime's .mjs from /ort/: ${paths}`);
}

describe(`the package README's Transformers.js recipe (@huggingface/transformers ${TRANSFORMERS}), offline`, () => {
  before(() => {
    const readme = recipe(READ_ME());
    for (const setting of ['env.allowRemoteModels = false', 'env.allowLocalModels = true', "env.localModelPath = '/models/'",
      "env.backends.onnx.wasm.wasmPaths = new URL('/ort/', self.location.href).href"]) {
      assert.ok(readme.includes(setting), `the recipe sets ${setting}`);
    }
    const source = replaceOnce(readme, README_MODEL, `'${MODEL}'`);
    builds.source = `${source}${RUN}`;
    builds.recipe = build(`${source}${RUN}`, 'dist');
    builds.presence = build(`${replaceOnce(source, README_DETECT, PRESENCE_DETECT)}${RUN}`, 'dist-presence');
  });

  test('under `vite dev` (no adapter): the same run, ONNX Runtime\'s files from /ort/ as the README has them', async () => {
    writeFileSync(join(dir, 'main.js'), builds.source);
    rmSync(join(dir, 'node_modules', '.vite'), { recursive: true, force: true });
    const server = await startViteDev(VITE, dir);
    try {
      const run = await runPage({ origin: server.origin }, []);
      assert.equal(run.answer.reason, 'no-adapter');
      assertRun(run, 'wasm', 'q8');
    } finally {
      await server.close();
    }
    assert.doesNotMatch(server.output(), /error|fail/i, `vite printed an error:\n${server.output()}`);
  });

  test('no adapter (default flags): wasm with q8, model_quantized.onnx, the right numbers', async () => {
    const run = await runPage(builds.recipe, []);
    assert.equal(run.answer.reason, 'no-adapter');
    assertRun(run, 'wasm', 'q8');
  });

  test('SwiftShader (--enable-unsafe-webgpu), refused by allowFallbackAdapter: false: wasm with q8', async () => {
    const run = await runPage(builds.recipe, ['--enable-unsafe-webgpu']);
    assert.equal(run.answer.reason, 'fallback-adapter');
    assertRun(run, 'wasm', 'q8');
  });

  test('SwiftShader kept (detect() told presence alone): webgpu, fp16 where the adapter has shader-f16, else fp32', async () => {
    const run = await runPage(builds.presence, ['--enable-unsafe-webgpu']);
    assert.equal(run.answer.reason, 'adapter-available');
    assertRun(run, 'webgpu', run.answer.f16 ? 'fp16' : 'fp32');
  });
});

// The detect-only and verification entries' answer without their module (so
// that a page with no adapter never fetches or compiles it): where there
// is no adapter to probe, pkg/detect.js (and pkg/verified.js, the README's
// quick start) answers detect() and probe() itself,
// and must answer byte for byte what its module answers, for every option it
// takes that path with, and must leave every other option to the module.
//
// In a real headless Chromium, in each no-adapter situation:
//   null adapter     default flags: navigator.gpu exists, requestAdapter() answers null
//   no API           navigator.gpu deleted before the page runs
//   insecure context a hostname mapped to 127.0.0.1 over plain http (no navigator.gpu)
//   timeout          requestAdapter() stubbed to never answer
// a corpus of options, valid and invalid, is given to detect() and probe()
// as objects (the entry's own path: without the module where it can) and as
// the same options' JSON text (which the entry always hands to its module),
// and the two answers (or errors) must be the same text, elapsedMs aside.
// The options the entry answers alone must not fetch the .wasm (nor the
// verification's entry); the rest must, as before. With an adapter, the
// module answers (through wgpu), its .wasm fetched once the adapter has
// answered. And the package README's recipe page, as written, decides wasm
// with no adapter, its JS fetching no .wasm, with no console error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { recordRequests, withChromium } from './chromium.mjs';
import { ROOT } from './common.mjs';
import { serve } from './static-server.mjs';

const INSECURE_HOST = 'bt.test';

let server;
before(async () => {
  for (const file of ['pkg/detect.js', 'pkg/detect_bg.wasm']) {
    assert.ok(existsSync(join(ROOT, file)), `${file} is missing: run scripts/build.sh first`);
  }
  server = await serve(ROOT);
});
after(async () => {
  await server?.close();
});

/** Runs in the page: the corpus through pkg/detect.js, first the options it
 *  answers without the module (`alone`), then the others, then all as JSON
 *  text. Each answer is the text of the value or of the error's fields, with
 *  elapsedMs taken out (and checked to be whole microseconds). */
async function corpusInPage({ timeoutSituation, entry }) {
  // Short timeouts where requestAdapter() never answers, so that the run
  // stays short; the default (2000 ms) is in the corpus all the same.
  const ms = timeoutSituation ? 300 : 1500;
  const nullProto = Object.assign(Object.create(null), { timeoutMs: ms });
  // Taken without the module in every situation.
  const alone = [
    undefined, null, {}, { timeoutMs: 0 }, { timeoutMs: ms }, { timeoutMs: -0 }, { timeoutMs: undefined },
    { verifyDevice: true, timeoutMs: ms }, { allowFallbackAdapter: false }, { forceFallbackAdapter: false },
    { verify: false }, nullProto,
    { timeoutMs: ms, verifyDevice: false, allowFallbackAdapter: true, verify: false, forceFallbackAdapter: false },
    // Nothing to verify without an adapter: the verification's own answer is
    // the probe's, with or without navigator.gpu (the JSON text goes to the
    // verification's module, which the entry hands every `verify` to: the
    // detect-only module has none).
    { verify: true, timeoutMs: ms },
  ];
  // Always the module's: a request with other options, invalid options,
  // options not written as a plain object of data fields.
  const moduleOnly = [
    { powerPreference: 'low-power', timeoutMs: ms }, { forceFallbackAdapter: true, timeoutMs: ms },
    { timeoutMs: -1 }, { timeoutMs: 1.5 }, { timeoutMs: '100' }, { timeoutMs: 2 ** 32 }, { timeoutMs: null },
    { powerPreference: 'fast' }, { powerPreference: null }, { verifyDevice: 'yes' }, { allowFallbackAdapter: 1 },
    { forceFallbackAdapter: null }, { verify: 'yes' }, { verify: { budgetMs: -1 } },
    { verify: { budgetMs: 100 }, timeoutMs: ms }, { unknown: 1 }, { timeoutMs: ms, TimeoutMs: 1 }, [], 42, true,
    { verify: null },
  ];
  const micro = (value) => Math.round(value * 1000) / 1000 === value;
  const settle = (promise) => promise.then((value) => {
    const report = value?.probe ?? value;
    if (typeof report?.elapsedMs !== 'number' || !micro(report.elapsedMs)) return `elapsedMs ${report?.elapsedMs}`;
    delete report.elapsedMs;
    return JSON.stringify(value);
  }, (error) => `error ${JSON.stringify({
    name: error?.name, code: error?.code, path: error?.path, expected: error?.expected, message: error?.message,
    ours: error?.constructor?.name,
  })}`);
  const fetchedModule = entry.endsWith('verified.js') ? /_bg\.wasm$/ : /(_bg\.wasm|verified\.js)$/;
  const wasmFetched = () => performance.getEntriesByType('resource')
    .map((resource) => new URL(resource.name).pathname).filter((path) => fetchedModule.test(path));
  const m = await import(entry);
  const first = alone;
  const rest = moduleOnly;
  const run = (list, asText) => Promise.all(list.flatMap((options) => {
    // (None given is the module's defaults, as `{}` is: crates/browser/src/probe.rs,
    // probe_options; JSON text "null" is refused, as it should be.)
    const given = asText ? (options == null ? '{}' : JSON.stringify(options)) : options;
    return [settle(m.detect(given)), settle(m.probe(given))];
  }));
  const shortcut = await run(first, false);
  const fetchedAlone = wasmFetched();
  const declined = await run(rest, false);
  const fetchedAfter = wasmFetched();
  const viaModule = await run(first.concat(rest), true);
  // The first answer again, once the module is instantiated: still the same.
  const again = await settle(m.detect());
  const label = (options) => (options === undefined ? 'undefined' : JSON.stringify(options));
  return {
    alone: first.length * 2,
    labels: first.concat(rest).flatMap((options) => [`detect(${label(options)})`, `probe(${label(options)})`]),
    ours: shortcut.concat(declined),
    module: viaModule,
    again,
    fetchedAlone,
    fetchedAfter,
  };
}

const SITUATIONS = [
  { name: 'null adapter (default flags)', reason: 'no-adapter', flags: [], gpu: true, says: /answered null/ },
  {
    name: 'no API (navigator.gpu deleted)', reason: 'no-webgpu-api', flags: [], gpu: false,
    says: /missing in this secure context: this browser has no WebGPU/,
    init: () => {
      delete Navigator.prototype.gpu;
    },
  },
  {
    // What WebKitGTK's WebGPU setting gives on Linux: the API switched on
    // without an implementation.
    name: 'null API (navigator.gpu is null)', reason: 'no-webgpu-api', flags: [], gpu: true,
    says: /navigator\.gpu is null: this browser has the WebGPU API switched on without an implementation/,
    init: () => {
      Object.defineProperty(Navigator.prototype, 'gpu', { get: () => null, configurable: true });
    },
  },
  {
    name: 'insecure context (a mapped hostname over plain http)', reason: 'no-webgpu-api', gpu: false, insecure: true,
    says: /not a secure context, and WebGPU is only offered over https/,
    flags: ['--enable-unsafe-webgpu', `--host-resolver-rules=MAP ${INSECURE_HOST} 127.0.0.1`],
  },
  {
    name: 'timeout (requestAdapter() never answers)', reason: 'timeout', flags: ['--enable-unsafe-webgpu'], gpu: true,
    says: /no answer from requestAdapter\(\) within 2000 ms/,
    timeout: true,
    init: () => {
      GPU.prototype.requestAdapter = function requestAdapter() {
        return new Promise(() => {});
      };
    },
  },
];

for (const situation of SITUATIONS) for (const [entry, wasm] of [['/pkg/detect.js', '/pkg/detect_bg.wasm'], ['/pkg/verified.js', '/pkg/verified_bg.wasm']]) {
  test(`Chromium, ${situation.name}: ${entry} answers as its module does, without fetching it where it can`, async () => {
    await withChromium(situation.flags, async (context) => {
      const page = context.pages()[0] ?? (await context.newPage());
      if (situation.init) await page.addInitScript(situation.init);
      const origin = situation.insecure ? `http://${INSECURE_HOST}:${server.port}` : server.origin;
      await page.goto(`${origin}/pkg/README.md`);
      const facts = await page.evaluate(() => ({ secure: isSecureContext, gpu: typeof navigator.gpu }));
      assert.deepEqual(facts, { secure: !situation.insecure, gpu: situation.gpu ? 'object' : 'undefined' });
      const got = await page.evaluate(corpusInPage, { timeoutSituation: situation.timeout === true, entry });
      assert.equal(got.ours.length, got.module.length);
      for (let i = 0; i < got.ours.length; i++) {
        assert.equal(got.ours[i], got.module[i], `${got.labels[i]}: the entry's answer and its module's`);
      }
      // The first answer (no options) is the situation's; every answer
      // given without the module is a report of it (or of timeoutMs: 0).
      assert.equal(JSON.parse(got.ours[0]).probe.reason, situation.reason);
      // Which absence it was, said: no https advice on a secure page.
      assert.match(JSON.parse(got.ours[0]).probe.message, situation.says);
      for (let i = 0; i < got.alone; i++) {
        assert.ok(!got.ours[i].startsWith('error'), `${got.labels[i]}: ${got.ours[i]}`);
        const value = JSON.parse(got.ours[i]);
        assert.ok([situation.reason, 'timeout'].includes((value.probe ?? value).reason), `${got.labels[i]}: ${got.ours[i]}`);
      }
      assert.equal(got.again, got.ours[0], 'detect() once the module is instantiated');
      assert.deepEqual(got.fetchedAlone, [], 'nothing fetched for the options answered without the module');
      assert.ok(got.fetchedAfter.includes(wasm), `the module fetched for the others: ${got.fetchedAfter}`);
    });
  });
}

test('Chromium with an adapter: pkg/detect.js leaves the answer to its module (wgpu), and fetches it once the adapter answers', async () => {
  await withChromium(['--enable-unsafe-webgpu'], async (context) => {
    const page = context.pages()[0] ?? (await context.newPage());
    await page.addInitScript(recordRequests, { answers: true });
    await page.goto(`${server.origin}/pkg/README.md`);
    const got = await page.evaluate(async () => {
      const m = await import('/pkg/detect.js');
      const first = await m.detect();
      const second = await m.probe({ timeoutMs: 1500 });
      return { order: window.__order, reasons: [first.probe.reason, second.reason], adapter: typeof first.probe.adapter };
    });
    assert.deepEqual(got.reasons, ['adapter-available', 'adapter-available']);
    assert.equal(got.adapter, 'object', 'the adapter read by the module');
    // One request at evaluation, taken by the first probe; the .wasm
    // fetched once it answered; the second probe asks afresh.
    assert.deepEqual(got.order, ['requestAdapter', 'adapter', 'fetch /pkg/detect_bg.wasm', 'requestAdapter', 'adapter']);
  });
});

test('Chromium, null adapter: the package README\'s detect recipe, as written, decides wasm, and its JS fetches no .wasm', async () => {
  // The recipe's HTML, from pkg-template/README.md, with the package served at /pkg/.
  const readme = readFileSync(join(ROOT, 'pkg-template', 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('### Decide first, plan later'));
  const html = section.match(/```html\n([\s\S]*?)```/)[1].replaceAll('/node_modules/backend-targets/', '/pkg/')
    .replace('// ...then fetch the runtime', 'window.__decided = { useWebGpu, resolution };\n  // ...then fetch the runtime');
  assert.match(html, /<link rel="preload" href="\/pkg\/detect_bg\.wasm"[^>]*fetchpriority="low">/);
  const page = `<!doctype html><html><head><meta charset="utf-8"><title>recipe</title>\n${html}</head><body></body></html>`;
  const recipe = await serve(ROOT, {
    csp: "default-src 'self'; script-src 'self' 'unsafe-inline' 'wasm-unsafe-eval'", pages: { '/recipe.html': page },
  });
  try {
    await withChromium([], async (context) => {
      const tab = context.pages()[0] ?? (await context.newPage());
      const problems = [];
      tab.on('console', (message) => {
        // (Chromium's own warning without an adapter, and its favicon request.)
        if (!['error', 'warning'].includes(message.type()) || message.text() === 'No available adapters.') return;
        if (message.location().url.endsWith('/favicon.ico')) return;
        problems.push(`${message.text()} ${message.location().url}`);
      });
      tab.on('pageerror', (error) => problems.push(error.message));
      await tab.addInitScript(() => {
        window.__fetched = [];
        const original = window.fetch;
        window.fetch = function fetch(input, init) {
          window.__fetched.push(new URL(String(input), location.href).pathname);
          return original.call(this, input, init);
        };
      });
      await tab.goto(`${recipe.origin}/recipe.html`);
      await tab.waitForFunction(() => window.__decided, null, { timeout: 20_000 });
      const got = await tab.evaluate(() => ({
        useWebGpu: window.__decided.useWebGpu, reason: window.__decided.resolution.probe.reason, fetched: window.__fetched,
      }));
      assert.deepEqual(got, { useWebGpu: false, reason: 'no-adapter', fetched: [] });
      assert.deepEqual(problems, []);
    });
  } finally {
    await recipe.close();
  }
});

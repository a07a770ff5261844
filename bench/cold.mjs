// The web app's critical path: time from navigation to the
// decision "where does the model run" on a cold page, as a new user's app
// makes it, against a reference page whose one same-origin module only calls
// `navigator.gpu.requestAdapter()`.
//
//   node bench/cold.mjs [--samples N] [--only a,b] [--json]   (after scripts/build.sh)
//
// Variants (each an HTML page served by this bench; the decision is the
// moment the page stores `performance.now()`, i.e. ms since navigation start):
//   reference   <script type="module" src="ref.js">: requestAdapter(), decided
//   package     an inline module: import init, { detect } from '/pkg/index.js';
//               await init(); await detect()
//   preloaded   the same, with the package README's <link rel="modulepreload">
//               and <link rel="preload"> lines in the <head>
//   detect      the detect-only entry: import { detect } from
//               '/pkg/detect.js'; await detect()  (no init call)
//   detect-preloaded  the same, with its two README lines in the <head>
//   detect-app  the same two lines, and the decision in the app's own module
//               file (/bench/cold/app/detect-app.js), as the reference's is in
//               its own: a page written apart from the project does so, and
//               pays the same module fetch as the reference (the inline
//               forms above do not, which flatters them)
//   detect-lean the detect-app page with the modulepreload line alone (no
//               preload of the .wasm): what a page whose users mostly have no
//               adapter may write, since the detect-only entry fetches the
//               .wasm only once an adapter answers
//   detect-eager  the detect-app page with the .wasm's preload line at the
//               default priority, as the README once had it (its
//               lines now preload the .wasm at fetchpriority="low": behind the
//               modules the decision waits for, still before an adapter answers)
//   verify-app  the package README's quick start as written, in the app's
//               own module file: import { detect, executionProviders } from
//               '/pkg/verified.js'; await detect({ allowFallbackAdapter:
//               false, verify: true }) (the verification entry, no preload
//               line)
//   verify-preloaded  the same, with two lines in the <head> as the detect-only
//               entry's README lines are: a modulepreload of verified.js and a
//               low-priority preload of verified_bg.wasm
//   compile-floor     not a way to decide: the reference's module, which also
//               fetches and compiles (streaming) the detect-only .wasm, with
//               its preload line, and decides once both are done. What the
//               module's bytes and compilation cost this machine, before any
//               glue, instantiation or probe code runs: the floor of any
//               page that decides with this module.
//   control     the reference page again, under its own URL: how far two
//               identical pages land apart in this run (its ratio is this
//               machine's noise on the medians, not a property of the code).
// Every sample is a fresh browser context (empty HTTP and code caches); the
// variants take turns in a rotated order, so drift falls on all alike. Two
// browsers: with --enable-unsafe-webgpu (SwiftShader answers) and with default
// flags (requestAdapter() answers null). Two networks: plain localhost, and
// Chrome DevTools Protocol emulation of 40 ms latency at 10 Mbit/s; and,
// without an adapter, localhost with one of the machine's cores kept busy by
// a spinning process (the harder case, which a page measured apart from the
// project met; see BENCHMARKS.md).
// The static server compresses with gzip, as a real host does (once per file;
// `--gzip-on-the-fly` per answer, chunked).
//
// `--also-detect NAME=/dir/` adds NAME-preloaded, NAME-app and NAME-floor:
// the detect-only variants over another build's files (say, target/before/pkg
// of an earlier commit), interleaved with these, for before/after in one run.
//
// Also reported per variant: the sequential fetches before the decision (the
// longest chain of requests, each starting after the previous one's response
// ended, the HTML not counted) and the bytes it loaded before deciding (JS and
// wasm; gzip as served, and brotli of the same files).
import { spawn } from 'node:child_process';
import { createServer } from 'node:http';
import { readFileSync, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { brotliCompressSync, constants as zlib, createGzip, gzipSync } from 'node:zlib';
import { launchChromium } from '../tests/js/chromium.mjs';
import { ROOT } from '../tests/js/common.mjs';

const args = process.argv.slice(2);
// 40 samples per variant and situation: with 15, the control page's median
// landed up to 14 % away from the reference it is identical to on localhost
// (three runs), as wide as the margins the goals are judged by; with 40, up
// to 6 % (docs/benchmarks-history.md).
const SAMPLES = Number(args[args.indexOf('--samples') + 1]) || 40;
// `--only a,b` measures those variants (and the reference) alone.
const ONLY = args.includes('--only') ? args[args.indexOf('--only') + 1].split(',') : undefined;
const asJson = args.includes('--json');
// `--also NAME=/url/path/` adds a variant like `package` that imports the
// package from another folder under the repository (say, a build of an
// earlier commit), interleaved with the others; `--also-detect NAME=/url/path/`
// one like `detect-app` (the detect-only entry, its preload lines, an app
// module) from such a folder.
const listed = (flag) => args.flatMap((arg, i) => (args[i - 1] === flag ? [arg.split('=')] : []));
const ALSO = listed('--also');
const ALSO_DETECT = listed('--also-detect');
// `--situations adapter:localhost,none:busy` measures those alone (adapter or
// none; localhost, rtt, busy: localhost with one core kept busy, cpu2 or
// cpu4: localhost with DevTools' CPU throttling). By default: every
// adapter/network pair, and busy without an adapter.
const SITUATIONS = args.includes('--situations') ? args[args.indexOf('--situations') + 1].split(',') : undefined;
// `--no-warmup`: no untimed first load of each variant (as a harness written
// apart from the project may not do).
const WARMUP = !args.includes('--no-warmup');
// `--gzip-on-the-fly`: compress each answer as it is sent (gzip -6, chunked),
// as a host without precompressed files does, not once per file.
const ON_THE_FLY = args.includes('--gzip-on-the-fly');

const PRELOAD = `<link rel="modulepreload" href="/pkg/index.js">
<link rel="preload" href="/pkg/backend_targets_bg.wasm" as="fetch" type="application/wasm" crossorigin>`;
const decide = (expr) => `window.__decision = { t: performance.now(), value: ${expr} };`;
const packageScript = (entry) => `<script type="module">
import init, { detect } from '${entry}';
await init();
const resolution = await detect();
${decide("resolution.changes[0].action === 'kept' ? 'webgpu' : 'wasm'")}
</script>`;
// The package README's two lines for the detect-only entry.
const detectPreload = (dir = '/pkg/', priority = ' fetchpriority="low"') => `<link rel="modulepreload" href="${dir}detect.js">
<link rel="preload" href="${dir}detect_bg.wasm" as="fetch" type="application/wasm" crossorigin${priority}>`;
const detectModule = (dir = '/pkg/') => `import { detect } from '${dir}detect.js';
const resolution = await detect();
${decide("resolution.changes[0].action === 'kept' ? 'webgpu' : 'wasm'")}
`;
// Two lines for the verification entry, as the detect-only entry's README lines are.
const verifyPreload = (dir = '/pkg/') => `<link rel="modulepreload" href="${dir}verified.js">
<link rel="preload" href="${dir}verified_bg.wasm" as="fetch" type="application/wasm" crossorigin fetchpriority="low">`;
// The package README's quick start (the verification entry), as an app's module.
const verifyModule = (dir = '/pkg/') => `import { detect, executionProviders } from '${dir}verified.js';
const resolution = await detect({ allowFallbackAdapter: false, verify: true });
${decide('executionProviders(resolution)[0]')}
`;
const detectScript = (dir) => `<script type="module">
${detectModule(dir)}</script>`;
const floorModule = (dir = '/pkg/') => `// Not a decision: the reference, with the detect-only module fetched and compiled alongside.
const [adapter] = await Promise.all([
  navigator.gpu ? navigator.gpu.requestAdapter() : null,
  WebAssembly.compileStreaming(fetch('${dir}detect_bg.wasm')),
]);
${decide("adapter ? 'webgpu' : 'wasm'")}
`;
// The bench's own modules, served under /bench/cold/: the reference's, the
// floors', and the apps' (a page that decides as an app is written: in a
// module file of its own, beside the reference's, not inline in the HTML).
const REF_JS = `// The reference: one plain same-origin module that only asks for an adapter.
const adapter = navigator.gpu ? await navigator.gpu.requestAdapter() : null;
${decide("adapter ? 'webgpu' : 'wasm'")}
`;
const MODULES = {
  'ref.js': REF_JS,
  'floor.js': floorModule(),
  'app/detect-app.js': detectModule(),
  'app/verify-app.js': verifyModule(),
  ...Object.fromEntries(ALSO_DETECT.flatMap(([name, dir]) => [
    [`app/${name}-app.js`, detectModule(dir)], [`${name}-floor.js`, floorModule(dir)],
    [`app/${name}-verify-app.js`, verifyModule(dir)],
  ])),
};
const moduleAt = (path) => MODULES[path.match(/^\/bench\/cold\/(.+)$/)?.[1]];
const page = (head, body = '') => `<!doctype html><html><head><meta charset="utf-8"><title>cold</title>${head}</head><body>${body}</body></html>`;
const floorPage = (dir = '/pkg/', module = 'floor.js') =>
  page(`<link rel="preload" href="${dir}detect_bg.wasm" as="fetch" type="application/wasm" crossorigin>`
    + `<script type="module" src="/bench/cold/${module}"></script>`);
const appPage = (name, dir, head = detectPreload(dir)) => page(`${head}<script type="module" src="/bench/cold/app/${name}.js"></script>`);

export const VARIANTS = {
  reference: page('<script type="module" src="/bench/cold/ref.js"></script>'),
  control: page('<script type="module" src="/bench/cold/ref.js"></script>'),
  package: page(packageScript('/pkg/index.js')),
  preloaded: page(PRELOAD + packageScript('/pkg/index.js')),
  detect: page(detectScript()),
  'detect-preloaded': page(detectPreload() + detectScript()),
  'detect-app': appPage('detect-app'),
  'detect-lean': appPage('detect-app', '/pkg/', '<link rel="modulepreload" href="/pkg/detect.js">'),
  'detect-eager': appPage('detect-app', '/pkg/', detectPreload('/pkg/', '')),
  'verify-app': appPage('verify-app', '/pkg/', ''),
  'verify-preloaded': appPage('verify-app', '/pkg/', verifyPreload()),
  'compile-floor': floorPage(),
  ...Object.fromEntries(ALSO.map(([name, path]) => [name, page(packageScript(`${path}index.js`))])),
  ...Object.fromEntries(ALSO_DETECT.flatMap(([name, dir]) => [
    [`${name}-preloaded`, page(detectPreload(dir) + detectScript(dir))],
    [`${name}-app`, appPage(`${name}-app`, dir)],
    [`${name}-floor`, floorPage(dir, `${name}-floor.js`)],
    [`${name}-verify-app`, appPage(`${name}-verify-app`, dir, '')],
  ])),
};

const TYPES = { '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.wasm': 'application/wasm' };
const COMPRESSIBLE = new Set(['.html', '.js', '.wasm']);

/** A static server for ROOT and the bench pages, gzip-compressing as a host would (cached per file). */
async function serveCompressed() {
  const cache = new Map();
  const body = (path) => {
    if (moduleAt(path) !== undefined) return { type: TYPES['.js'], raw: Buffer.from(moduleAt(path)) };
    const name = path.match(/^\/bench\/cold\/([\w-]+)\.html$/)?.[1];
    if (name && VARIANTS[name]) return { type: TYPES['.html'], raw: Buffer.from(VARIANTS[name]) };
    const file = normalize(join(ROOT, path));
    if (!file.startsWith(ROOT + sep) || !statSync(file, { throwIfNoEntry: false })?.isFile()) return null;
    return { type: TYPES[extname(file)] ?? 'application/octet-stream', raw: readFileSync(file), ext: extname(file) };
  };
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    let entry = cache.get(path);
    if (!entry) {
      const found = body(path);
      if (!found) { res.writeHead(404).end(); return; }
      const compress = COMPRESSIBLE.has(found.ext ?? extname(path));
      entry = { ...found, gzip: compress ? gzipSync(found.raw, { level: 9 }) : null };
      cache.set(path, entry);
    }
    const gzip = entry.gzip && /\bgzip\b/.test(req.headers['accept-encoding'] ?? '');
    if (gzip && ON_THE_FLY) {
      // As a host that compresses each answer as it sends it (no length).
      res.writeHead(200, { 'Content-Type': entry.type, 'Cache-Control': 'no-store', 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' });
      const stream = createGzip({ level: 6 });
      stream.pipe(res);
      stream.end(entry.raw);
      return;
    }
    const payload = gzip ? entry.gzip : entry.raw;
    res.writeHead(200, {
      'Content-Type': entry.type,
      'Content-Length': payload.length,
      'Cache-Control': 'no-store',
      ...(gzip ? { 'Content-Encoding': 'gzip', Vary: 'Accept-Encoding' } : {}),
    });
    res.end(req.method === 'HEAD' ? undefined : payload);
  });
  server.keepAliveTimeout = 1;
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    origin: `http://127.0.0.1:${server.address().port}`,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(resolve); }),
  };
}

const quantile = (sorted, q) => {
  const i = (sorted.length - 1) * q;
  const lo = Math.floor(i);
  return sorted[lo] + (sorted[Math.min(lo + 1, sorted.length - 1)] - sorted[lo]) * (i - lo);
};
const summary = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return { n: s.length, median: quantile(s, 0.5), min: s[0], max: s.at(-1) };
};

// The networks: plain localhost; Chrome DevTools Protocol emulation of 40 ms
// latency at 10 Mbit/s; and localhost with one of this machine's cores kept
// busy by a spinning process all along (a device that is doing something
// else too: the case a page written apart from the project met).
// On request only (`--situations none:cpu2`): DevTools' CPU throttling of
// the page's renderer, 2× or 4×.
const NETWORKS = {
  localhost: ['localhost', false],
  rtt: ['40 ms RTT, 10 Mbit/s', true],
  busy: ['localhost, one core busy', false],
  cpu2: ['localhost, CPU 2× slower', 2],
  cpu4: ['localhost, CPU 4× slower', 4],
};

/** One cold load: a fresh context, optionally throttled; returns the decision time and the fetch facts. */
async function coldLoad(browser, origin, variant, throttled) {
  const context = await browser.newContext();
  try {
    const tab = await context.newPage();
    if (throttled === true) {
      const cdp = await context.newCDPSession(tab);
      await cdp.send('Network.enable');
      await cdp.send('Network.emulateNetworkConditions', {
        offline: false, latency: 40, downloadThroughput: 10e6 / 8, uploadThroughput: 10e6 / 8,
      });
    } else if (typeof throttled === 'number') {
      const cdp = await context.newCDPSession(tab);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: throttled });
    }
    await tab.goto(`${origin}/bench/cold/${variant}.html`, { waitUntil: 'commit' });
    await tab.waitForFunction(() => window.__decision, null, { timeout: 30_000 });
    return await tab.evaluate(() => {
      const { t, value } = window.__decision;
      const before = performance.getEntriesByType('resource').filter((r) => r.responseEnd <= t);
      // Longest chain of fetches where each starts after the previous one ended.
      const sorted = [...before].sort((a, b) => a.startTime - b.startTime);
      const depth = sorted.map(() => 1);
      for (let j = 0; j < sorted.length; j++) {
        for (let i = 0; i < j; i++) {
          if (sorted[j].startTime >= sorted[i].responseEnd) depth[j] = Math.max(depth[j], depth[i] + 1);
        }
      }
      return {
        t, value,
        chain: Math.max(0, ...depth),
        paths: before.map((r) => new URL(r.name).pathname),
        transferred: before.reduce((n, r) => n + r.transferSize, 0),
      };
    });
  } finally {
    await context.close();
  }
}

/** The gzip and brotli sizes of the files a page loaded (the bench's own modules included). */
function sizes(paths) {
  let gzip = 0, brotli = 0, raw = 0;
  for (const path of new Set(paths)) {
    const bench = moduleAt(path);
    const bytes = bench !== undefined ? Buffer.from(bench) : readFileSync(join(ROOT, path));
    raw += bytes.length;
    gzip += gzipSync(bytes, { level: 9 }).length;
    brotli += brotliCompressSync(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length;
  }
  return { raw, gzip, brotli };
}

/** `samples` cold loads of each variant, the variants taking turns in a
 *  rotated order, after one untimed load of each (the browser's own first-use
 *  costs: GPU process, adapter enumeration) unless `warmup` is false. */
async function samplesOf(browser, origin, variants, throttled, { samples, warmup }) {
  if (warmup) for (const variant of variants) await coldLoad(browser, origin, variant, throttled);
  const runs = Object.fromEntries(variants.map((v) => [v, []]));
  for (let i = 0; i < samples; i++) {
    for (let k = 0; k < variants.length; k++) {
      const variant = variants[(i + k) % variants.length];
      runs[variant].push(await coldLoad(browser, origin, variant, throttled));
    }
  }
  return runs;
}

export async function coldFigures({
  samples = SAMPLES, variants = Object.keys(VARIANTS), situations = SITUATIONS, warmup = WARMUP,
} = {}) {
  const server = await serveCompressed();
  const results = [];
  try {
    // Each situation: the browser's flags, the network, and whether one of
    // this machine's cores is kept busy meanwhile (the harder case).
    const all = [
      ['adapter', 'localhost'], ['adapter', 'rtt'], ['none', 'localhost'], ['none', 'rtt'], ['none', 'busy'],
      ['adapter', 'busy'], ['none', 'cpu2'], ['none', 'cpu4'], ['adapter', 'cpu2'], ['adapter', 'cpu4'],
    ].filter(([adapter, network]) => (situations ? situations.includes(`${adapter}:${network}`)
      : !network.startsWith('cpu') && `${adapter}:${network}` !== 'adapter:busy'));
    for (const [adapter, flags] of [['adapter', ['--enable-unsafe-webgpu']], ['no adapter', []]]) {
      const networks = all.filter(([a]) => a === (adapter === 'adapter' ? 'adapter' : 'none')).map(([, n]) => n);
      if (networks.length === 0) continue;
      const browser = await launchChromium(flags);
      try {
        for (const key of networks) {
          const [network, throttled] = NETWORKS[key];
          const busy = key === 'busy' ? spawn(process.execPath, ['-e', 'for (;;);'], { stdio: 'ignore' }) : undefined;
          let runs;
          try {
            runs = await samplesOf(browser, server.origin, variants, throttled, { samples, warmup });
          } finally {
            busy?.kill();
          }
          for (const variant of variants) {
            const xs = runs[variant];
            const decisions = new Set(xs.map((x) => x.value));
            if (decisions.size !== 1) throw new Error(`${variant}: decisions differ: ${[...decisions]}`);
            const last = xs.at(-1);
            results.push({
              adapter, network, variant,
              decision: [...decisions][0],
              ms: summary(xs.map((x) => x.t)),
              chain: Math.max(...xs.map((x) => x.chain)),
              paths: last.paths,
              transferred: summary(xs.map((x) => x.transferred)).median,
              bytes: sizes(last.paths),
            });
          }
        }
      } finally {
        await browser.close();
      }
    }
  } finally {
    await server.close();
  }
  return results;
}

/** Table rows (area, measure, median, spread, reference, ratio, goal) for bench/run.mjs. */
export function coldRows(results) {
  const f = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
  const rows = [];
  for (const r of results) {
    if (r.variant === 'reference') continue;
    const ref = results.find((x) => x.variant === 'reference' && x.adapter === r.adapter && x.network === r.network);
    const floor = r.variant === 'compile-floor' || r.variant.endsWith('-floor');
    // The detect-only entry without an adapter on localhost: ≤ 1.25 (its
    // page and an app's), idle or with a core busy; every other
    // cell ≤ 1.30 on localhost, ≤ 1.50 at 40 ms.
    const detectOnly = /^detect-(preloaded|app|lean|eager)$/.test(r.variant) || /-(preloaded|app)$/.test(r.variant);
    const goal = floor ? 'floor' : r.variant === 'control' ? 'noise'
      : r.network.startsWith('40 ms') ? '≤ 1.50'
        : detectOnly && r.adapter === 'no adapter' && r.network === 'localhost' ? '≤ 1.25' : '≤ 1.30';
    rows.push(['cold', `${r.variant}: navigation → decision, ${r.adapter}, ${r.network} (ms)`, f(r.ms.median),
      `${f(r.ms.min)}–${f(r.ms.max)}`, `reference ${f(ref.ms.median)} (${f(ref.ms.min)}–${f(ref.ms.max)})`,
      (r.ms.median / ref.ms.median).toFixed(2), goal]);
  }
  const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
  for (const variant of new Set(results.map((r) => r.variant))) {
    const r = results.find((x) => x.variant === variant && x.network.startsWith('40 ms') && x.adapter === 'adapter')
      ?? results.find((x) => x.variant === variant);
    const benchOnly = ['reference', 'control'].includes(variant) || variant.endsWith('floor');
    rows.push(['cold', `${variant}: sequential fetches before the decision`, String(r.chain), r.paths.join(' '), '',
      '', benchOnly ? '' : '≤ 2']);
    rows.push(['cold', `${variant}: JS + wasm loaded before the decision, gzip`, kib(r.bytes.gzip),
      `brotli ${kib(r.bytes.brotli)}, raw ${kib(r.bytes.raw)}, on the wire ${kib(r.transferred)}`, '', '', '']);
  }
  return rows;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const results = await coldFigures(ONLY ? { variants: ['reference', ...ONLY] } : {});
  if (asJson) {
    console.log(JSON.stringify(results, null, 2));
  } else {
    const header = ['area', 'measure', 'median', 'spread (min–max)', 'reference (same run)', 'ratio', 'goal'];
    console.log(`| ${header.join(' | ')} |\n|${header.map(() => '---').join('|')}|`);
    for (const row of coldRows(results)) console.log(`| ${row.join(' | ')} |`);
  }
}

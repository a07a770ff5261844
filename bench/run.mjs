// The benchmark table: every figure is a median over repeated runs
// with its spread (min–max), set against a reference measured in the same run.
//
//   node bench/run.mjs            (after scripts/build.sh; scripts/bench.sh does both)
//
// Needs: target/release/examples/plan_bench (native), target/wasm32-wasip1/
// release/examples/{plan_bench,hello}.wasm, dist/backend-targets.wasm, pkg/,
// wasmtime on PATH, Chromium at /usr/bin/chromium and playwright-core.
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { gzipSync, brotliCompressSync, constants as zlib } from 'node:zlib';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { planRequest } from './catalog.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const at = (p) => join(ROOT, p);
const rows = [];
const args = process.argv.slice(2);
// `--before DIR` (a folder under the repository, as scripts/bench-before.sh
// makes it: pkg/, dist/backend-targets.wasm, examples/{plan_bench,
// plan_bench.wasm,hello.wasm} of an earlier commit): each figure is measured
// for that build too, in the same run, beside this one's.
const BEFORE = args.includes('--before') ? args[args.indexOf('--before') + 1].replace(/\/$/, '') : undefined;
const before = (p) => join(ROOT, BEFORE, p);
// `--skip cold,chromium`: leaves those sections out.
const SKIP = args.includes('--skip') ? args[args.indexOf('--skip') + 1].split(',') : [];

const median = (xs) => { const s = [...xs].sort((a, b) => a - b); return s[Math.floor(s.length / 2)]; };
const spread = (xs) => `${fmt(Math.min(...xs))}–${fmt(Math.max(...xs))}`;
function fmt(x) {
  if (x >= 100) return x.toFixed(0);
  if (x >= 10) return x.toFixed(1);
  return x.toFixed(2);
}
const kib = (n) => `${(n / 1024).toFixed(1)} KiB`;
function row(area, measure, value, spreadText, reference, ratio, goal = '') {
  rows.push({ area, measure, value, spread: spreadText, reference, ratio, goal });
}
function timed(fn, runs) {
  const xs = [];
  for (let i = 0; i < runs; i++) { const t = process.hrtime.bigint(); fn(); xs.push(Number(process.hrtime.bigint() - t) / 1e6); }
  return xs;
}

// ---- size
{
  const wasm = readFileSync(at('pkg/backend_targets_bg.wasm'));
  const glue = readFileSync(at('pkg/index.js'));
  const wasi = readFileSync(at('dist/backend-targets.wasm'));
  const gz = (b) => gzipSync(b, { level: 9 }).length;
  const br = (b) => brotliCompressSync(b, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }).length;
  row('size', 'npm .wasm (probe included), gzip', kib(gz(wasm)), `raw ${kib(wasm.length)}, brotli ${kib(br(wasm))}`, '', '');
  row('size', 'JS entry (index.js: glue and JS halves, one module), gzip', kib(gz(glue)), `raw ${kib(glue.length)}, brotli ${kib(br(glue))}`, '', '');
  row('size', 'WASI module', kib(wasi.length), `gzip ${kib(gz(wasi))}`, '', '');
  // The sizes, in bytes, against their budgets (tests/js/sizes.test.mjs holds
  // them; they are budgets, not goals), and (with --before) the earlier build's.
  const bytes = (n) => `${n.toLocaleString('en')} B`;
  const files = [
    ['npm .wasm, gzip', 'pkg/backend_targets_bg.wasm', gz, 86_500],
    ['JS entry index.js, gzip', 'pkg/index.js', gz],
    ['detect-only .wasm, gzip', 'pkg/detect_bg.wasm', gz, 53_600],
    ['detect-only JS entry detect.js, gzip', 'pkg/detect.js', gz],
    ['WASI module, raw', 'dist/backend-targets.wasm', (b) => b.length, 185_500],
  ];
  for (const [what, path, measure, goal] of files) {
    const now = measure(readFileSync(at(path)));
    const then = BEFORE ? measure(readFileSync(before(path))) : undefined;
    row('size', what, bytes(now), goal ? `budget ≤ ${bytes(goal)}` : '', then === undefined ? '' : `before ${bytes(then)}`,
      then === undefined ? '' : (now / then).toFixed(2), goal ? (now <= goal ? 'within budget' : 'over budget') : '');
  }
}

// ---- start in Node: a fresh process per run; instantiate + init vs bare instantiate
{
  const script = (withGlue) => `
    import { readFileSync } from 'node:fs';
    const bytes = readFileSync(${JSON.stringify(at('pkg/backend_targets_bg.wasm'))});
    const glue = await import(${JSON.stringify(at('pkg/index.js'))});
    const t = performance.now();
    ${withGlue ? 'glue.initSync({ module: bytes }); glue.presets();'
               : 'const m = new WebAssembly.Module(bytes); void m;'}
    console.log(performance.now() - t);`;
  const run = (withGlue) => Array.from({ length: 15 }, () =>
    Number(spawnSync(process.execPath, ['--input-type=module', '-e', script(withGlue)]).stdout.toString()));
  const init = run(true), compile = run(false);
  row('start', 'Node: initSync + first call (ms)', fmt(median(init)), spread(init), `compile only ${fmt(median(compile))}`, (median(init) / median(compile)).toFixed(2));
}

// ---- planner: text-in/text-out plan of all 68 ops, native vs wasm (Node) vs WASI (wasmtime)
const pkg = await import(at('pkg/node.js'));
const perCapsule = [];
for (const n of [100, 1000, 10000]) {
  const text = JSON.stringify(planRequest(n));
  // Native, Node and WASI take turns, a fresh process each and a few plans
  // per round, so that a slow spell of this shared machine, or a slower
  // core, falls on all three alike. Each helper warms up before it times
  // (Node until V8 has tiered the module's hot functions up).
  const rounds = 6, perRound = n >= 10000 ? 2 : 6;
  const helper = (command, args) => JSON.parse(spawnSync(command, [...args, String(perRound)], { input: text }).stdout).timesUs;
  const native = [], node = [], wasi = [], beforeNative = [], beforeWasi = [];
  for (let r = 0; r < rounds; r++) {
    native.push(...helper(at('target/release/examples/plan_bench'), []));
    node.push(...helper(process.execPath, [at('bench/plan-node.mjs')]));
    wasi.push(...helper('wasmtime', ['run', at('target/wasm32-wasip1/release/examples/plan_bench.wasm')]));
    if (BEFORE) {
      beforeNative.push(...helper(before('examples/plan_bench'), []));
      beforeWasi.push(...helper('wasmtime', ['run', before('examples/plan_bench.wasm')]));
    }
  }
  const [nativeMedian, nodeMedian, wasiMedian] = [median(native), median(node), median(wasi)];
  row('planner', `${n} capsules: wasm in Node (µs/plan)`, fmt(nodeMedian), spread(node), `native ${fmt(nativeMedian)}`, (nodeMedian / nativeMedian).toFixed(2), n === 1000 ? '≤ 2.00' : '');
  row('planner', `${n} capsules: WASI in wasmtime (µs/plan)`, fmt(wasiMedian), spread(wasi), `native ${fmt(nativeMedian)}`, (wasiMedian / nativeMedian).toFixed(2), '≤ 1.50');
  if (BEFORE) {
    const [bn, bw] = [median(beforeNative), median(beforeWasi)];
    row('planner', `${n} capsules: WASI in wasmtime, before (µs/plan)`, fmt(bw), spread(beforeWasi), `native before ${fmt(bn)}`, (bw / bn).toFixed(2), '≤ 1.50');
  }
  row('planner', `${n} capsules: plans/s native / Node / WASI`, `${fmt(1e6 / nativeMedian)} / ${fmt(1e6 / nodeMedian)} / ${fmt(1e6 / wasiMedian)}`, `native ${spread(native)}`, '', '');
  perCapsule.push([n, nativeMedian / n, nodeMedian / n]);
}
{
  const [[, n100], [, n1k], [, n10k]] = perCapsule;
  row('planner', 'growth: native µs per capsule at 100 / 1k / 10k', `${fmt(n100)} / ${fmt(n1k)} / ${fmt(n10k)}`, '', 'linear = flat', (n10k / n1k).toFixed(2), '≈ 1 (10k vs 1k)');
}

// ---- boundary: a small call and a large request, against the planner's own (text) time
{
  const target = pkg.linuxCuda({ enableLibTorch: true });
  const small = timed(() => { for (let i = 0; i < 1000; i++) pkg.declaredAvailability(target); }, 15).map((ms) => ms);
  row('boundary', 'declaredAvailability(target) (µs/call)', fmt(median(small)), spread(small), '', '');
  const request = planRequest(10000);
  const text = JSON.stringify(request);
  for (let i = 0; i < 3; i++) pkg.plan(request);
  const object = timed(() => pkg.plan(request), 9).map((ms) => ms * 1000);
  const json = timed(() => pkg.planJson(text), 9).map((ms) => ms * 1000);
  row('boundary', 'plan(object), 10k capsules (µs)', fmt(median(object)), spread(object), `planJson(text) ${fmt(median(json))}`, (median(object) / median(json)).toFixed(2));
}

// ---- WASI: a plan run against the start-up floor
{
  const request = readFileSync(at('tests/vectors/requests/default-explained.json'));
  const runs = (args, input) => Array.from({ length: 15 }, () => {
    const t = process.hrtime.bigint(); spawnSync('wasmtime', ['run', ...args], { input }); return Number(process.hrtime.bigint() - t) / 1e6;
  });
  // With wasmtime's compilation cache (as a server runs it), after one warm-up
  // run of each; and without it (every run compiles the module).
  const cached = ['-C', 'cache=y'];
  runs([...cached, at('target/wasm32-wasip1/release/examples/hello.wasm')], Buffer.alloc(0));
  runs([...cached, at('dist/backend-targets.wasm'), 'plan'], request);
  const hello = runs([...cached, at('target/wasm32-wasip1/release/examples/hello.wasm')], Buffer.alloc(0));
  const plan = runs([...cached, at('dist/backend-targets.wasm'), 'plan'], request);
  row('WASI', '`wasmtime run -C cache=y` plan (ms)', fmt(median(plan)), spread(plan), `hello-world ${fmt(median(hello))}`, (median(plan) / median(hello)).toFixed(2), '≤ 1.50');
  const coldHello = runs(['-C', 'cache=n', at('target/wasm32-wasip1/release/examples/hello.wasm')], Buffer.alloc(0));
  const coldPlan = runs(['-C', 'cache=n', at('dist/backend-targets.wasm'), 'plan'], request);
  row('WASI', '`wasmtime run -C cache=n` plan (ms, compiles each run)', fmt(median(coldPlan)), spread(coldPlan), `hello-world ${fmt(median(coldHello))}`, (median(coldPlan) / median(coldHello)).toFixed(2), '');
  // Start-up alone: `--version` reads nothing and plans nothing.
  // The modules take turns, one run each, 25 times, after a warm-up of each.
  const modules = [['this build', at('dist/backend-targets.wasm')], ...(BEFORE ? [['before', before('dist/backend-targets.wasm')]] : [])];
  const once = (args) => { const t = process.hrtime.bigint(); spawnSync('wasmtime', ['run', '-C', 'cache=y', ...args]); return Number(process.hrtime.bigint() - t) / 1e6; };
  const startups = Object.fromEntries(modules.map(([name]) => [name, []]));
  const hellos = [];
  for (const [, path] of modules) once([path, '--version']);
  for (let i = 0; i < 25; i++) {
    hellos.push(once([at('target/wasm32-wasip1/release/examples/hello.wasm')]));
    for (const [name, path] of modules) startups[name].push(once([path, '--version']));
  }
  for (const [name] of modules) {
    const xs = startups[name];
    row('WASI', `\`wasmtime run -C cache=y\` --version, ${name} (ms)`, fmt(median(xs)), spread(xs), `hello-world ${fmt(median(hellos))}`, (median(xs) / median(hellos)).toFixed(2), '≤ 1.10');
  }
}

// ---- Chromium: start and probe
if (!SKIP.includes('chromium')) try {
  const { chromiumFigures } = await import('./chromium.mjs');
  for (const r of await chromiumFigures(ROOT)) row(...r);
} catch (error) {
  row('chromium', 'not measured', String(error.message ?? error).split('\n')[0], '', '', '');
}

// ---- the web app's critical path: navigation → decision on a cold page (bench/cold.mjs)
if (!SKIP.includes('cold')) try {
  const { coldFigures, coldRows } = await import('./cold.mjs');
  for (const r of coldRows(await coldFigures())) row(...r);
} catch (error) {
  row('cold', 'not measured', String(error.message ?? error).split('\n')[0], '', '', '');
}

const header = ['area', 'measure', 'median', 'spread (min–max)', 'reference (same run)', 'ratio', 'goal'];
const lines = [`| ${header.join(' | ')} |`, `|${header.map(() => '---').join('|')}|`];
for (const r of rows) lines.push(`| ${[r.area, r.measure, r.value, r.spread, r.reference, r.ratio, r.goal].join(' | ')} |`);
console.log(lines.join('\n'));

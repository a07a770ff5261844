// detectNative()'s time in Node (BENCHMARKS.md, "detectNative() in Node"):
// the call alone, first in a fresh process (what a server pays at start)
// and again in a warm one, and the whole of a fresh `node` that imports the
// package and calls it, against the build's command (pkg/node.js; the
// command is target/release/backend-targets, named by
// BACKEND_TARGETS_COMMAND as the platform package's would be found).
//
//   node bench/native.mjs [runs]     (default 10; after scripts/build.sh)
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { NATIVE_BIN, ROOT } from '../tests/js/common.mjs';

const runs = Number(process.argv[2] ?? 10);
const entry = pathToFileURL(join(ROOT, 'pkg', 'node.js')).href;
for (const file of [join(ROOT, 'pkg', 'node.js'), NATIVE_BIN]) {
  if (!existsSync(file)) throw new Error(`${file} is missing: scripts/build.sh first`);
}
const env = { ...process.env, BACKEND_TARGETS_COMMAND: NATIVE_BIN };
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const range = (xs) => `${median(xs).toFixed(1)} ms (${Math.min(...xs).toFixed(1)}–${Math.max(...xs).toFixed(1)})`;

const script = `
  const t0 = performance.now();
  const bt = await import(${JSON.stringify(entry)});
  const t1 = performance.now();
  const first = await bt.detectNative();
  const t2 = performance.now();
  await bt.detectNative();
  const t3 = performance.now();
  console.log(JSON.stringify({ imported: t1 - t0, first: t2 - t1, again: t3 - t2, reason: first.changes[0]?.reason }));
`;
const figures = { imported: [], first: [], again: [], whole: [] };
let reason;
for (let i = 0; i <= runs; i += 1) {
  const started = performance.now();
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', script], { env, encoding: 'utf8' });
  const whole = performance.now() - started;
  if (r.status !== 0) throw new Error(r.stderr);
  if (i === 0) continue; // warm-up: the page cache
  const one = JSON.parse(r.stdout);
  reason = one.reason;
  for (const key of ['imported', 'first', 'again']) figures[key].push(one[key]);
  figures.whole.push(whole);
}
console.log(`detectNative() in Node, ${runs} fresh processes (median, min–max); the answer: ${reason}`);
console.log(`  import of the package (the module instantiated): ${range(figures.imported)}`);
console.log(`  first detectNative() (the command spawned, its probe): ${range(figures.first)}`);
console.log(`  a second detectNative() in the same process:       ${range(figures.again)}`);
console.log(`  the whole fresh node process (start, import, two calls): ${range(figures.whole)}`);

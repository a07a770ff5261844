// Hostile shapes: time and output size against request size, for
// the shapes that used to grow out of proportion, from 10 KB to 1 MB.
//
//   node bench/hostile.mjs [binary [--defaults-only]]   (after scripts/build.sh)
//
// Each row runs the native command (target/release/backend-targets, or the
// binary given) on a generated request, three times, and prints the median
// wall time (process included), the output size and the exit status (1 is an
// unplannable request explained; 2 a refusal, with its error code). Every
// run is bounded: 60 s and 4 GiB of address space.
import { spawnSync } from 'node:child_process';
import { join, resolve, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const BIN = process.argv[2] ?? join(ROOT, 'target', 'release', 'backend-targets');

const capsule = (i) => `{"name":"cublas.matmul.${i}","op":"matmul","provider":"cuBLAS","device":"cuda","trustLevel":"checked"}`;
const list = (n, f) => Array.from({ length: n }, (_, i) => f(i)).join(',');

/** Each shape: a request of about `bytes`, and the limits it needs raised (if any). */
const SHAPES = {
  // n matmul ops × n matmul capsules, all rejected (no cuda): the explanation.
  'ops × capsules': (bytes) => {
    const n = Math.max(1, Math.round(bytes / 110));
    return `{"ops":[${list(n, () => '"matmul"')}],"capsules":[${list(n, capsule)}]}`;
  },
  // 8 configs × n ops × n capsules, explain false, the last config plans.
  '8 configs × ops × capsules': (bytes) => {
    const n = Math.max(1, Math.round(bytes / 110));
    const configs = `${list(7, () => '{"device":"cuda"}')},{"device":"cuda","trustPolicy":"allowTrustedExternal","vjpMode":"none"}`;
    const ref = '{"name":"ext.matmul","op":"matmul","provider":"reference","device":"cuda","trustLevel":"trustedExternal"}';
    return `{"ops":[${list(n, () => '"matmul"')}],"configs":[${configs}],"availability":{"devices":["cpu","cuda"],"providers":["reference","cuBLAS"]},"capsules":[${list(n, (i) => capsule(i).replace('"checked"', '"trustedExternal"'))},${ref}],"explain":false}`;
  },
  // n configs × n ops × n capsules, explain false (work that grows as n³).
  'configs × ops × capsules': (bytes) => {
    const n = Math.max(1, Math.round(bytes / 130));
    return `{"ops":[${list(n, () => '"matmul"')}],"configs":[${list(n, () => '{"device":"cuda"}')}],"capsules":[${list(n, capsule)}],"explain":false}`;
  },
  // One capsule requiring n WebGPU features; the adapter offers all but the last.
  'WebGPU features': (bytes) => {
    const n = Math.max(2, Math.round(bytes / 20));
    const features = list(n, (i) => `"feature-${i}"`);
    return `{"ops":["matmul"],"config":{"device":"wasm","vjpMode":"none"},"availability":{"devices":["cpu","wasm"],"providers":["reference","torchLean","webGpu"],"webGpu":{"features":[${list(n - 1, (i) => `"feature-${i}"`)}]}},"capsules":[{"name":"w","op":"matmul","provider":"webGpu","device":"wasm","trustLevel":"checked","requires":{"features":[${features}]}}]}`;
  },
};

const SIZES = [10_000, 100_000, 300_000, 1_000_000];

function run(request, args = []) {
  const times = [];
  let last;
  for (let i = 0; i < 3; i++) {
    const t = process.hrtime.bigint();
    last = spawnSync('sh', ['-c', `ulimit -v 4194304; exec "$0" plan "$@"`, BIN, ...args],
      { input: request, maxBuffer: 1 << 30, timeout: 60_000 });
    times.push(Number(process.hrtime.bigint() - t) / 1e6);
    if (last.error || last.signal) break;
  }
  times.sort((a, b) => a - b);
  const code = /\[([a-z-]+)\]/.exec(last.stderr?.toString() ?? '')?.[1];
  const status = last.signal ? `killed (${last.signal})` : last.status === 2 ? `2 ${code}` : String(last.status);
  return { ms: times[Math.floor(times.length / 2)], out: last.stdout?.length ?? 0, status };
}

const size = (n) => (n >= 1e6 ? `${(n / 1e6).toFixed(2)} MB` : `${(n / 1e3).toFixed(1)} KB`);
console.log('| shape | request | limits raised | time (ms, median of 3) | output | output / request | status |');
console.log('|---|---|---|---|---|---|---|');
const only = process.env.SHAPE;
for (const [shape, make] of Object.entries(SHAPES)) {
  if (only && !shape.includes(only)) continue;
  for (const bytes of SIZES) {
    const request = make(bytes);
    const tries = [[]];
    if (process.argv[3] === '--defaults-only') { /* an older binary without --limit */ } else {
    if (shape === 'WebGPU features') tries.push(['--limit', 'features=65536']);
    if (shape === 'configs × ops × capsules') {
      tries.push(['--limit', 'configs=4096', '--limit', 'work=2000000', '--limit', 'outputBytes=268435456']);
    }
    }
    for (const args of tries) {
      const r = run(request, args);
      const raised = args.filter((a) => a !== '--limit').join(' ') || '—';
      console.log(`| ${shape} | ${size(request.length)} | ${raised} | ${r.ms.toFixed(1)} | ${size(r.out)} | ${(r.out / request.length).toFixed(2)} | ${r.status} |`);
    }
  }
}

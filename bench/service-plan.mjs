// The service's large plan against the same plan in process (the goal:
// the service's plans/s ≥ 0.8 × the native command's in-process
// plans/s for the same request). Three runs in a row; in each, in turn:
//   - native in-process: examples/plan_bench (`plan_json`), 30 plans after one untimed;
//   - wasmtime in-process: the same example for wasm32-wasip1 (opt-level "z");
//   - the service: `POST /plan` to `wasmtime serve` of dist/backend-targets-http.wasm
//     (opt-level 3), one connection, 40 requests after 5 untimed, with and
//     without the pooling allocator (`wasmtime serve`'s default where the
//     address space allows it, as in the released wasmtime), and with the
//     pool keeping 64 MiB of each memory resident between instances;
//   - the floor: the same body to the hello-world component (http/examples/hello.rs)
//     under the same host: an instance, 1.6 MB in, a short reply out.
// The request: bench/catalog.mjs planRequest(10000) (1.6 MB). Prints Markdown.
//
//   cargo build --release --example plan_bench
//   cargo build --release --target wasm32-wasip1 --example plan_bench
//   cargo build -p backend-targets-http --profile service --target wasm32-wasip2 --example hello
//   scripts/build.sh && node bench/service-plan.mjs [--runs N]
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { planRequest } from './catalog.mjs';
import { serve, HTTP_COMPONENT } from '../tests/js/http-server.mjs';
import { ROOT } from '../tests/js/common.mjs';

const autocannon = createRequire(`${ROOT}/tests/js/package.json`)('autocannon');
const args = process.argv.slice(2);
const RUNS = Number(args[args.indexOf('--runs') + 1]) || 3;
const HELLO = `${ROOT}/target/wasm32-wasip2/service/examples/hello.wasm`;
const body = Buffer.from(JSON.stringify(planRequest(10_000)));

/** Median ms of a plan inside one process (plan_bench's own timing). */
function inProcess(command, argv) {
  const out = spawnSync(command, [...argv, '30'], { input: body, maxBuffer: 1 << 26 });
  if (out.status !== 0) throw new Error(`${command}: ${out.stderr}`);
  return JSON.parse(out.stdout).medianUs / 1000;
}

/** Median ms of `amount` sequential POSTs over one keep-alive connection,
 * each timed from autocannon's `response` event. */
function sequential(url, amount) {
  return new Promise((resolve, reject) => {
    const times = [];
    let failures = 0;
    const instance = autocannon({ url, method: 'POST', body, connections: 1, amount, timeout: 60,
      headers: { 'content-type': 'application/json' } }, (error) => {
      if (error) return reject(error);
      if (failures) return reject(new Error(`${url}: ${failures} answers were not 200`));
      times.sort((a, b) => a - b);
      resolve(times[Math.floor(times.length / 2)]);
    });
    instance.on('response', (_client, status, _bytes, ms) => {
      if (status !== 200) failures++;
      times.push(ms);
    });
  });
}

// Each host with the URL it is asked at, started in turn (and stopped,
// all that started, whatever happens).
const HOSTS = [
  ['service, pooling allocator', HTTP_COMPONENT, ['-O', 'pooling-allocator=y'], '/plan'],
  ['service, on-demand allocator', HTTP_COMPONENT, [], '/plan'],
  // The pooling allocator keeping each memory's first 64 MiB resident
  // between instances (zeroed in place, not unmapped and faulted in again).
  ['service, pooling, 64 MiB kept resident', HTTP_COMPONENT,
    ['-O', 'pooling-allocator=y', '-O', 'pooling-memory-keep-resident=67108864'], '/plan'],
  ['hello-world floor, pooling allocator', HELLO, ['-O', 'pooling-allocator=y'], '/'],
];
const hosts = [];
const rows = [];
try {
  for (const [name, component, flags, path] of HOSTS) {
    const host = await serve(component, flags);
    hosts.push({ name, host, url: `${host.base}${path}` });
  }
  for (const { url } of hosts) await sequential(url, 5);
  for (let run = 0; run < RUNS; run++) {
    const row = {
      native: inProcess(`${ROOT}/target/release/examples/plan_bench`, []),
      wasm: inProcess('wasmtime', ['run', '-C', 'cache=y', `${ROOT}/target/wasm32-wasip1/release/examples/plan_bench.wasm`]),
    };
    for (const { name, url } of hosts) row[name] = await sequential(url, 40);
    rows.push(row);
    console.error(`run ${run + 1}: ${JSON.stringify(row)}`);
  }
} finally {
  for (const { host } of hosts) await host.stop();
}

const ms = (x) => x.toFixed(2);
console.log(`\nThe large request (${(body.length / 1e6).toFixed(1)} MB), ${new Date().toISOString().slice(0, 10)}, ` +
  `${RUNS} runs (median ms a plan; ratio: native in-process ms ÷ this row's ms, which is plans/s ÷ native's plans/s)\n`);
console.log(`| | ${rows.map((_, i) => `run ${i + 1}`).join(' | ')} | ratio (goal ≥ 0.8 for the service) |`);
console.log(`|---|${rows.map(() => '---|').join('')}---|`);
for (const key of ['native', 'wasm', ...HOSTS.map(([name]) => name)]) {
  const label = key === 'native' ? 'native, in-process' : key === 'wasm' ? 'wasmtime, in-process' : key;
  console.log(`| ${label} | ${rows.map((r) => ms(r[key])).join(' | ')} | ${rows.map((r) => (r.native / r[key]).toFixed(2)).join(' / ')} |`);
}

// The service's load benchmark: plans per second and latency
// (p50, p99) of `POST /plan` on the wasi:http component under `wasmtime
// serve`, at concurrency 1, 8, 32 and 64, for a typical request and a large
// one; beside it, in the same run, the same plans by a `wasmtime run` of the
// WASI command per check (goal: the service ≥ 10×), and a hello-world
// component under the same `wasmtime serve` given the same request (the
// engine's floor; goal: the service ≥ 0.5×). Also the service's memory
// (the serve process's resident set) under load, 4,000 plans at
// concurrency 32, and what `-W timeout=30s` (README's host limit, which
// turns on wasmtime's epoch checks) costs. Then the hosts side by side:
// the typical plan at concurrency 1, 8 and 32 under `wasmtime
// serve`, `jco serve --isolate-requests instance` and wasmCloud's `wash dev`
// (where scripts/wasmcloud.sh installed it), each against the same
// hello-world component under the same host (that host's floor), every
// cell of every host in turn. Prints Markdown; not a test.
//
//   node bench/http.mjs [--quick]      (after scripts/build.sh and the hello
//                                      example; scripts/bench.sh does both)
//   node bench/http.mjs --hosts        the hosts' table alone
//
// Load: autocannon (npm, pinned in tests/js): a fixed number of requests
// over `concurrency` keep-alive connections; each response's time is taken
// from its `response` event (sub-millisecond), not autocannon's whole-ms
// histogram. It runs in this process, on the same 2 cores as the server: the
// hello-world floor is measured under that same load generator.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve, dirname } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { planRequest } from './catalog.mjs';
import { serve, serveJco, serveWash, WASH, HTTP_COMPONENT } from '../tests/js/http-server.mjs';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const at = (p) => join(ROOT, p);
const autocannon = createRequire(at('tests/js/package.json'))('autocannon');
const quick = process.argv.includes('--quick');
const hostsOnly = process.argv.includes('--hosts');

const HELLO = at('target/wasm32-wasip2/service/examples/hello.wasm');
const WASI = at('dist/backend-targets.wasm');
const CONCURRENCY = [1, 8, 32, 64];
const REQUESTS = {
  typical: { body: readFileSync(at('tests/vectors/requests/cuda-auto.json')), perCell: quick ? 400 : 2000, commandRuns: (c) => Math.max(24, 2 * c) },
  large: { body: Buffer.from(JSON.stringify(planRequest(10_000))), perCell: quick ? 40 : 200, commandRuns: (c) => Math.max(12, c) },
};

const percentile = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
const mib = (kib) => `${(kib / 1024).toFixed(0)} MiB`;

/** The resident set of `pid` in KiB (VmRSS). */
function rssKiB(pid) {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)[1]);
}

/** Samples `pid`'s resident set every 20 ms while `work` runs: its peak. */
async function peakRss(pid, work) {
  let peak = rssKiB(pid);
  const timer = setInterval(() => { peak = Math.max(peak, rssKiB(pid)); }, 20);
  try {
    const result = await work();
    return { result, peakKiB: Math.max(peak, rssKiB(pid)) };
  } finally {
    clearInterval(timer);
  }
}

/** `amount` POSTs of `body` to `url` over `connections` connections:
 * { perSecond, p50, p99 (ms), failures, statuses }. */
function load(url, body, connections, amount) {
  return new Promise((resolvePromise, reject) => {
    const times = [];
    const statuses = {};
    const started = process.hrtime.bigint();
    let last = started;
    const instance = autocannon({
      url, method: 'POST', body, connections, amount, timeout: 60,
      headers: { 'content-type': 'application/json' },
    }, (error, result) => {
      if (error) return reject(error);
      // To the last answer: autocannon itself ends at its next 1 s tick.
      const seconds = Number(last - started) / 1e9;
      times.sort((a, b) => a - b);
      resolvePromise({
        perSecond: times.length / seconds, p50: percentile(times, 0.5), p99: percentile(times, 0.99),
        answered: times.length, failures: result.errors + result.timeouts + result.non2xx, statuses,
      });
    });
    instance.on('response', (_client, status, _bytes, ms) => {
      statuses[status] = (statuses[status] ?? 0) + 1;
      times.push(ms);
      last = process.hrtime.bigint();
    });
  });
}

/** `runs` plans by `wasmtime run` of the WASI command, `concurrency` at a
 * time: { perSecond, p50, p99 (ms per process), failures }. */
async function perCheckCommand(body, concurrency, runs) {
  const times = [];
  let failures = 0, next = 0;
  const one = () => new Promise((done) => {
    const started = process.hrtime.bigint();
    const child = spawn('wasmtime', ['run', '-C', 'cache=y', WASI, 'plan'], { stdio: ['pipe', 'ignore', 'ignore'] });
    child.on('exit', (code) => {
      times.push(Number(process.hrtime.bigint() - started) / 1e6);
      if (code !== 0) failures++;
      done();
    });
    child.stdin.end(body);
  });
  const worker = async () => { while (next < runs) { next++; await one(); } };
  await one(); // the compilation cache warmed, outside the timing
  times.length = 0; failures = 0;
  const t = process.hrtime.bigint();
  await Promise.all(Array.from({ length: concurrency }, worker));
  const seconds = Number(process.hrtime.bigint() - t) / 1e9;
  times.sort((a, b) => a - b);
  return { perSecond: runs / seconds, p50: percentile(times, 0.5), p99: percentile(times, 0.99), failures };
}


/** The hosts side by side: the typical plan and the hello-world floor under
 * each host, at concurrency 1, 8 and 32, each cell of each host in turn. */
async function hostsTable() {
  const kinds = [['`wasmtime serve`', (c) => serve(c)], ['`jco serve --isolate-requests instance`', (c) => serveJco(c)]];
  if (existsSync(WASH)) kinds.push(['wasmCloud `wash dev`', (c) => serveWash(c)]);
  else console.error(`no ${WASH}: scripts/wasmcloud.sh installs wash; wasmCloud left out`);
  const body = REQUESTS.typical.body;
  const amount = quick ? 200 : 600;
  const hosts = [];
  try {
    for (const [name, start] of kinds) hosts.push({ name, service: await start(HTTP_COMPONENT), hello: await start(HELLO), cells: [] });
    for (const h of hosts) {
      await load(`${h.service.base}/plan`, body, 4, 20);
      await load(`${h.hello.base}/`, body, 4, 20);
    }
    for (const c of [1, 8, 32]) {
      for (const h of hosts) {
        const s = await load(`${h.service.base}/plan`, body, c, amount);
        const f = await load(`${h.hello.base}/`, body, c, amount);
        h.cells.push({ c, s, f });
        console.error(`${h.name} c=${c}: service ${fmt(s.perSecond)}/s, hello ${fmt(f.perSecond)}/s`);
      }
    }
  } finally {
    for (const h of hosts) { await h.service?.stop(); await h.hello?.stop(); }
  }
  console.log(`\nThe hosts side by side, ${new Date().toISOString().slice(0, 10)}, this machine ` +
    `(${(await import('node:os')).cpus().length} cores, shared): the typical plan (tests/vectors/requests/cuda-auto.json, ` +
    `${body.length} B), ${amount} requests per cell over keep-alive connections, against the same host's hello-world component (http/examples/hello.rs) given the same body\n`);
  console.log('| host | conc. | plans/s | p50 / p99 ms | hello-world req/s | p50 / p99 ms | plans ÷ hello |');
  console.log('|---|---|---|---|---|---|---|');
  for (const h of hosts) {
    for (const { c, s, f } of h.cells) {
      const bad = s.failures + f.failures ? ` (failures: service ${s.failures}, hello ${f.failures})` : '';
      console.log(`| ${h.name} | ${c} | ${fmt(s.perSecond)} | ${fmt(s.p50)} / ${fmt(s.p99)} | ${fmt(f.perSecond)} | ` +
        `${fmt(f.p50)} / ${fmt(f.p99)} | ${(s.perSecond / f.perSecond).toFixed(2)}${bad} |`);
    }
  }
}

if (hostsOnly) {
  await hostsTable();
  process.exit(0);
}

const service = await serve(HTTP_COMPONENT);
const hello = await serve(HELLO);
const bounded = await serve(HTTP_COMPONENT, ['-W', 'timeout=30s']);
const idleKiB = rssKiB(service.child.pid);
const rows = [];
try {
  for (const [name, request] of Object.entries(REQUESTS)) {
    // Warm both servers (and the connection pools' first handshakes).
    await load(`${service.base}/plan`, request.body, 4, 20);
    await load(`${hello.base}/`, request.body, 4, 20);
    for (const c of CONCURRENCY) {
      const amount = Math.max(request.perCell, 4 * c);
      // Service, hello-world and command in turn, so that a slow spell of
      // this shared machine falls on all three alike.
      const { result: s, peakKiB } = await peakRss(service.child.pid, () => load(`${service.base}/plan`, request.body, c, amount));
      const h = await load(`${hello.base}/`, request.body, c, amount);
      const w = await perCheckCommand(request.body, c, request.commandRuns(c));
      rows.push({ name, c, s, h, w, peakKiB });
      console.error(`${name} c=${c}: service ${fmt(s.perSecond)}/s, hello ${fmt(h.perSecond)}/s, command ${fmt(w.perSecond)}/s`);
    }
  }
  const { result: soak, peakKiB: soakPeak } = await peakRss(service.child.pid,
    () => load(`${service.base}/plan`, REQUESTS.typical.body, 32, 4000));
  // -W timeout=30s against none, at concurrency 8, three times in turn.
  const epoch = {};
  for (const [name, request] of Object.entries(REQUESTS)) {
    await load(`${bounded.base}/plan`, request.body, 4, 20);
    const plain = [], timed = [];
    for (let round = 0; round < 3; round++) {
      plain.push((await load(`${service.base}/plan`, request.body, 8, request.perCell)).perSecond);
      timed.push((await load(`${bounded.base}/plan`, request.body, 8, request.perCell)).perSecond);
    }
    const median = (xs) => [...xs].sort((a, b) => a - b)[1];
    epoch[name] = { plain: median(plain), timed: median(timed) };
  }

  console.log(`\nThe service (wasmtime ${process.env.WASMTIME_VERSION ?? '48.0.8'} serve, ${HTTP_COMPONENT.replace(`${ROOT}/`, '')}), ` +
    `${new Date().toISOString().slice(0, 10)}, this machine (${(await import('node:os')).cpus().length} cores)\n`);
  console.log('| request | conc. | service plans/s | p50 / p99 ms | `wasmtime run` per check plans/s | p50 ms | service ÷ command (goal ≥ 10) | hello-world req/s | p50 / p99 ms | service ÷ hello (goal ≥ 0.5) | serve RSS peak |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const { name, c, s, h, w, peakKiB } of rows) {
    const bad = s.failures + h.failures + w.failures ? ` (failures: service ${s.failures}, hello ${h.failures}, command ${w.failures})` : '';
    console.log(`| ${name} | ${c} | ${fmt(s.perSecond)} | ${fmt(s.p50)} / ${fmt(s.p99)} | ${fmt(w.perSecond)} | ${fmt(w.p50)} | ` +
      `${(s.perSecond / w.perSecond).toFixed(1)} | ${fmt(h.perSecond)} | ${fmt(h.p50)} / ${fmt(h.p99)} | ` +
      `${(s.perSecond / h.perSecond).toFixed(2)} | ${mib(peakKiB)}${bad} |`);
  }
  console.log(`\nRequests: typical = tests/vectors/requests/cuda-auto.json (${REQUESTS.typical.body.length} B); ` +
    `large = bench/catalog.mjs planRequest(10000) (${(REQUESTS.large.body.length / 1e6).toFixed(1)} MB: 68 ops, 10,000 capsules, 2 configs).`);
  console.log(`Service memory: ${mib(idleKiB)} resident when idle after start; peak per cell above.`);
  console.log(`4,000 typical plans at concurrency 32: ${soak.answered} answered (${JSON.stringify(soak.statuses)}), ` +
    `${soak.failures} failures, ${fmt(soak.perSecond)} plans/s, p50 ${fmt(soak.p50)} ms, p99 ${fmt(soak.p99)} ms, RSS peak ${mib(soakPeak)}.`);
  for (const [name, { plain, timed }] of Object.entries(epoch)) {
    console.log(`\`-W timeout=30s\`, ${name}, concurrency 8 (median of 3): ${fmt(timed)} plans/s against ${fmt(plain)} without (${(timed / plain).toFixed(2)}×).`);
  }
} finally {
  await service.stop();
  await hello.stop();
  await bounded.stop();
}

await hostsTable();

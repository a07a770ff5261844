// The WASI build of the command, under the real `wasmtime` CLI and under
// `node:wasi`, must print the same bytes and exit with the same status as the
// native build's golden files (tests/vectors/cli/*.out), for every CLI case
// and every malformed request. Run by scripts/test.sh after the builds.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { NATIVE_BIN, ROOT, VECTORS, WASI_MODULE, cliCases, malformedCases } from './common.mjs';

const RUNNER = fileURLToPath(new URL('./node-wasi-runner.mjs', import.meta.url));

/** Runs the module under node:wasi, in a child process with piped stdio. */
function runNodeWasi(args, stdinBytes) {
  const r = spawnSync(process.execPath, [RUNNER, WASI_MODULE, ...args], { input: stdinBytes });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

/** Runs the module under the wasmtime CLI, with no --dir and no environment. */
function runWasmtime(args, stdinBytes) {
  const r = spawnSync('wasmtime', ['run', WASI_MODULE, ...args], { input: stdinBytes });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr.toString('utf8') };
}

const runtimes = { wasmtime: runWasmtime, 'node:wasi': runNodeWasi };

for (const [runtime, run] of Object.entries(runtimes)) {
  test(`${runtime}: every CLI case gives the native golden bytes`, () => {
    const cases = cliCases();
    assert.ok(cases.length >= 80);
    for (const c of cases) {
      const stdin = c.stdin ? readFileSync(join(VECTORS, c.stdin)) : Buffer.alloc(0);
      const out = run(c.args, stdin);
      assert.equal(out.status, c.status, `${c.name}: status ${out.status}, stderr ${out.stderr}`);
      if (c.status === 2) {
        assert.equal(out.stdout.length, 0, c.name);
        assert.ok(out.stderr.includes(c.stderr), `${c.name}: ${out.stderr}`);
      } else {
        const golden = readFileSync(join(VECTORS, 'cli', `${c.name}.out`));
        assert.ok(out.stdout.equals(golden), `${c.name}: stdout differs from the native golden`);
        // Without a plan (status 1), where to look and what to do op by op,
        // word for word as the native command says it; else nothing.
        if (c.status === 1) {
          assert.match(out.stderr, /^backend-targets: no plan: [^\n]*\n.+/s, c.name);
          const native = spawnSync(NATIVE_BIN, c.args, { input: stdin });
          assert.equal(out.stderr, native.stderr.toString('utf8'), c.name);
        } else {
          assert.equal(out.stderr, '', c.name);
        }
      }
    }
  });

  test(`${runtime}: every malformed request exits 2 naming its code and path`, () => {
    const corpus = malformedCases();
    assert.ok(corpus.length >= 50);
    for (const m of corpus) {
      const out = run(['plan'], Buffer.from(m.input, 'utf8'));
      const where = m.path === '' ? '(top level)' : m.path;
      assert.equal(out.status, 2, `${m.name}: status ${out.status} (134 would be a trap)`);
      assert.equal(out.stdout.length, 0, m.name);
      assert.ok(out.stderr.includes(`error [${m.code}] at ${where}: `), `${m.name}: ${out.stderr}`);
      // Word for word as the native command says it (the WASI build's
      // serde_json has no `std` feature: it reads a `str`, as the native one does).
      const native = spawnSync(NATIVE_BIN, ['plan'], { input: Buffer.from(m.input, 'utf8') });
      assert.equal(out.stderr, native.stderr.toString('utf8'), m.name);
    }
  });
}

test('wasmtime: probe --help says that a WASI module refuses probe (its native help is no part of the module)', () => {
  const out = runWasmtime(['probe', '--help'], Buffer.alloc(0));
  assert.equal(out.status, 0, out.stderr);
  const help = out.stdout.toString('utf8');
  assert.match(help, /^Usage: backend-targets probe <PRESET>/);
  assert.match(help, /A WASI module cannot see the\nhost's hardware, and refuses it: exit status 2, error unsupported-platform\.\n$/);
  const native = spawnSync(NATIVE_BIN, ['probe', '--help']).stdout.toString('utf8');
  assert.ok(native.includes('Reasons: device-available'), 'the native help lists the reasons');
});

test('wasmtime: a usage error quotes the argument as the native command does (lexopt\'s {:?} printed nothing without Debug formatting)', () => {
  for (const args of [['presets', 'extra'], ['presets', '--pretty=x'], ['plan', '--limit'], ['plan', '--bogus'], ['target', 'wasm', 'a"b\u00e9']]) {
    const out = runWasmtime(args, Buffer.alloc(0));
    const native = spawnSync(NATIVE_BIN, args);
    assert.equal(out.status, 2, args.join(' '));
    assert.equal(out.stderr, native.stderr.toString('utf8'), args.join(' '));
  }
  assert.equal(runWasmtime(['presets', 'extra'], Buffer.alloc(0)).stderr,
    'backend-targets: error [usage] at (top level): unexpected argument "extra" (see --help)\n');
});

test('wasmtime runs the plain .wasm from stdin with no --dir and no environment', () => {
  const request = readFileSync(join(VECTORS, 'requests', 'default-explained.json'));
  const r = spawnSync('wasmtime', ['run', WASI_MODULE, 'plan'], { input: request });
  assert.equal(r.status, 0, r.stderr.toString());
  assert.ok(r.stdout.equals(readFileSync(join(VECTORS, 'cli', 'plan-default-explained.out'))));
});

test('wasmtime: --request without --dir says that a WASI module sees only the folders it is given', () => {
  const path = join('tests', 'vectors', 'requests', 'no-ops.json');
  const blind = spawnSync('wasmtime', ['run', WASI_MODULE, 'plan', '--request', path], { cwd: ROOT });
  assert.equal(blind.status, 2);
  assert.ok(blind.stderr.toString().includes('no such file (a WASI module sees only the folders its runtime opens for it: `wasmtime run --dir .`'),
    blind.stderr.toString());
  const seeing = spawnSync('wasmtime', ['run', '--dir', '.', WASI_MODULE, 'plan', '--request', path], { cwd: ROOT });
  assert.equal(seeing.status, 0, seeing.stderr.toString());
  assert.ok(seeing.stdout.equals(readFileSync(join(VECTORS, 'cli', 'plan-no-ops.out'))));
});

// The native probe needs the host's drivers and devices, which a WASI module
// cannot see: `probe` and `plan --probe` refuse with exit 2 and one line, never
// a trap (134) and never a claim on stdout.
for (const [runtime, run] of Object.entries(runtimes)) {
  test(`${runtime}: probe and plan --probe refuse: a WASI module cannot see the host's hardware`, () => {
    const request = readFileSync(join(VECTORS, 'requests', 'cuda-auto.json'));
    const cases = [
      [['probe', 'linuxCuda'], Buffer.alloc(0), 'probe'],
      [['probe', '-', '--timeout-ms', '100'], Buffer.from('{"accelerator": "cuda"}'), 'probe'],
      [['plan', '--probe'], request, '--probe'],
    ];
    for (const [args, stdin, path] of cases) {
      const out = run(args, stdin);
      assert.equal(out.status, 2, `${args.join(' ')}: status ${out.status}, stderr ${out.stderr}`);
      assert.equal(out.stdout.length, 0, args.join(' '));
      assert.equal(out.stderr.split('\n').filter(Boolean).length, 1, out.stderr);
      assert.ok(out.stderr.includes(`error [unsupported-platform] at ${path}: a WASI module cannot see the host's hardware`),
        `${args.join(' ')}: ${out.stderr}`);
    }
    // Usage errors are the same as natively.
    const bad = run(['probe', 'linuxCUDA'], Buffer.alloc(0));
    assert.equal(bad.status, 2);
    assert.ok(bad.stderr.includes('[unknown-variant] at preset'), bad.stderr);
  });
}

// wasmtime's own failures share the status numbers with the
// command's (1 is also "not plannable", 2 also "invalid input").
// docs/command.md says how a caller tells them apart; each row of its table is produced here.
test('wasmtime: every row of docs/command.md\'s "what a caller sees" table, as wasmtime produces it', () => {
  const readme = readFileSync(join(ROOT, 'docs', 'command.md'), 'utf8');
  const start = readme.indexOf('**Under wasmtime, what a caller sees.**');
  assert.ok(start >= 0, 'docs/command.md has the section');
  const table = readme.slice(start).split('\n\n').find((block) => block.startsWith('| status'));
  const rows = table.split('\n').slice(2).map((row) => row.split(' | ')[0].replace('| ', ''));
  assert.deepEqual(rows, ['0', '1', '1', '2', '2', '3', '13', '134']);

  const request = (name) => readFileSync(join(VECTORS, 'requests', `${name}.json`));
  const many = Buffer.from(JSON.stringify({ ops: Array(100_000).fill('add') }));
  const big = ['plan', '--limit', 'ops=100000', '--limit', 'work=200000'];
  const wasmtime = (flags, args, input) => {
    const r = spawnSync('wasmtime', ['run', ...flags, WASI_MODULE, ...args], { input, maxBuffer: 1 << 26 });
    return { status: r.status, stdout: r.stdout.toString('utf8'), stderr: r.stderr.toString('utf8') };
  };
  const shell = (command, input) => {
    const r = spawnSync('bash', ['-c', `set -o pipefail; ${command}`], { input });
    return { status: r.status, stdout: '', stderr: r.stderr.toString('utf8') };
  };
  const ours = /^backend-targets: error \[[a-z-]+\] at /;
  const cases = [
    ['done', wasmtime([], ['plan'], request('default-explained')), 0, /^\{"ok":true,.*\n$/s, /^$/],
    ['not plannable', wasmtime([], ['plan'], request('unplannable')), 1, /^\{"ok":false,.*\n$/s,
      /^backend-targets: no plan: [^\n]*\n(?:[^\n]+\n)+$/],
    ['no such module', (() => {
      const r = spawnSync('wasmtime', ['run', join(ROOT, 'no-such-module.wasm'), 'plan'], { input: '{}' });
      return { status: r.status, stdout: r.stdout.toString(), stderr: r.stderr.toString() };
    })(), 1, /^$/, /^Error: failed to /],
    ['invalid input', wasmtime([], ['plan'], Buffer.from('{')), 2, /^$/, ours],
    ['a read above -S hostcall-fuel', wasmtime(['-S', 'hostcall-fuel=100'], ['plan'], request('default-explained')), 2, /^$/,
      /^backend-targets: error \[io\] at \(top level\): cannot read the input: out of memory\n$/],
    ['wasmtime usage', wasmtime(['-W', 'no-such-option=1'], ['plan'], request('default-explained')), 2, /^$/, /^error: /],
    ['a full disk', shell(`wasmtime run '${WASI_MODULE}' plan >/dev/full`, request('default-explained')), 3, /^$/,
      /^backend-targets: error \[output\] at \(top level\): cannot write the output: no space left\n$/],
    ['a closed pipe', shell(`wasmtime run '${WASI_MODULE}' ${big.join(' ')} | head -c 1 >/dev/null`, many), 13, /^$/, /^$/],
    ['out of memory', wasmtime(['-W', 'max-memory-size=1200000'], big, many), 134, /^$/,
      /^memory allocation of \d+ bytes failed\n(?:[^]*\n)?Error: [^]*wasm trap: /],
    ['out of fuel', wasmtime(['-W', 'fuel=100000'], ['plan'], request('default-explained')), 134, /^$/,
      /^Error: [^]*wasm trap: all fuel consumed by WebAssembly/],
    ['out of time', wasmtime(['-W', 'timeout=1ms'], big, many), 134, /^$/, /^Error: [^]*wasm trap: interrupt/],
    ['out of stack', wasmtime(['-W', 'max-wasm-stack=2000'], ['plan'], request('default-explained')), 134, /^$/,
      /^Error: [^]*wasm trap: call stack exhausted/],
  ];
  for (const [what, out, status, stdout, stderr] of cases) {
    assert.equal(out.status, status, `${what}: status (stderr ${out.stderr.slice(0, 300)})`);
    assert.match(out.stdout, stdout, `${what}: stdout`);
    assert.match(out.stderr, stderr, `${what}: stderr`);
    // What tells them apart: only the command's own lines begin so.
    assert.equal(ours.test(out.stderr), stderr === ours || String(stderr).includes('backend-targets: error'), `${what}: whose line`);
  }
});

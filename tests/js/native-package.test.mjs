// detectNative() from npm, as a new user's Node backend gets it: the built
// tarball and this host's platform package (dist/, scripts/build.sh)
// installed offline in a fresh project with the real onnxruntime-node and
// Transformers.js, the command nowhere on PATH. The two recipes of
// docs/node-backends.md run as written (the model swapped for the
// project's tiny ones); on this machine (no GPU) the answer is CPU with the
// reason. With the project's stand-in CUDA libraries (crates/cli/tests/native/,
// built with cc) it is CUDA, and onnxruntime-node is handed ['cuda', 'cpu']:
// the mapping is tested, not the run. Also: the platform package's fields,
// and the optional dependencies against the platform table.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { after, before, test } from 'node:test';
import { ROOT, freePort } from './common.mjs';
import { offlineProject } from './offline-project.mjs';
import { PLATFORMS, manifest, packageName } from '../../scripts/platform-package.mjs';

const { version } = JSON.parse(readFileSync(join(ROOT, 'pkg-template', 'package.json'), 'utf8'));
const TARBALL = join(ROOT, 'dist', `backend-targets-${version}.tgz`);
const PLATFORM = join(ROOT, 'dist', `backend-targets-linux-x64-gnu-${version}.tgz`);
const LOCK = JSON.parse(readFileSync(join(ROOT, 'tests', 'js', 'package-lock.json'), 'utf8')).packages;
const TRANSFORMERS = LOCK['node_modules/@huggingface/transformers'].version;
const DOC = readFileSync(join(ROOT, 'docs', 'node-backends.md'), 'utf8');
const TINY_ONNX = join(ROOT, 'www', 'onnx', 'tiny.onnx');
const MAKE_MODEL = join(ROOT, 'tests', 'js', 'fixtures', 'make_transformers_model.py');
const STAND_INS = join(ROOT, 'crates', 'cli', 'tests', 'native');

/** The first ```js block under the heading `heading` of docs/node-backends.md. */
function recipe(heading) {
  const at = DOC.indexOf(`\n## ${heading}\n`);
  assert.ok(at >= 0, `docs/node-backends.md has "## ${heading}"`);
  const block = DOC.slice(at).match(/```js\n([\s\S]*?)```/);
  assert.ok(block, `a js block under "${heading}"`);
  return block[1];
}

/** `text` with `from` replaced by `to`, which must be there. */
function swap(text, from, to) {
  assert.ok(text.includes(from), `the recipe has ${from}`);
  return text.replace(from, to);
}

// PATH without the command: node's own folder and the system's.
const PATH = [dirname(process.execPath), '/usr/bin', '/bin'].join(':');
let project;

before(() => {
  for (const file of [TARBALL, PLATFORM]) assert.ok(existsSync(file), `${file} is missing (scripts/build.sh)`);
  project = offlineProject('backend-targets-native-', { '@huggingface/transformers': TRANSFORMERS }, [TARBALL, PLATFORM]);
  const onPath = spawnSync('sh', ['-c', 'command -v backend-targets'], { env: { PATH }, encoding: 'utf8' });
  assert.ok(onPath.status !== 0 && onPath.stdout === '', `no command on PATH: ${onPath.stdout}`);
});

after(() => {
  // The project folder stays for a failure's post-mortem, in the temporary folder.
});

/** Runs `code` as an ES module in the project, PATH without the command. */
function runIn(name, code, env = {}) {
  project.write(name, code);
  const r = spawnSync(process.execPath, [name], {
    cwd: project.dir, encoding: 'utf8', timeout: 120_000, env: { ...process.env, PATH, ...env },
  });
  return { status: r.status, stdout: r.stdout, output: `${r.stdout}${r.stderr}` };
}

test('the optional dependencies are the platform table, each at the package\'s version', () => {
  const { optionalDependencies } = JSON.parse(readFileSync(join(ROOT, 'pkg-template', 'package.json'), 'utf8'));
  const expected = Object.fromEntries(Object.keys(PLATFORMS).map((suffix) => [packageName(suffix), version]));
  assert.deepEqual(optionalDependencies, expected);
});

test('the platform package: npm\'s os, cpu and libc fields, and the command, executable', () => {
  const list = spawnSync('tar', ['-tzvf', PLATFORM], { encoding: 'utf8' });
  assert.equal(list.status, 0, list.stderr);
  const files = list.stdout.trim().split('\n').map((line) => ({ mode: line.split(/\s+/)[0], path: line.split(/\s+/).pop() }));
  assert.deepEqual(files.map((f) => f.path).sort(),
    ['package/LICENSE', 'package/LICENSE-APACHE', 'package/README.md', 'package/bin/backend-targets', 'package/package.json']);
  assert.match(files.find((f) => f.path === 'package/bin/backend-targets').mode, /^-rwxr-xr-x/);
  const installed = JSON.parse(readFileSync(join(project.dir, 'node_modules', 'backend-targets-linux-x64-gnu', 'package.json'), 'utf8'));
  const wanted = manifest('linux-x64-gnu', version);
  for (const field of ['name', 'version', 'os', 'cpu', 'libc']) assert.deepEqual(installed[field], wanted[field], field);
  assert.deepEqual([installed.os, installed.cpu, installed.libc], [['linux'], ['x64'], ['glibc']]);
});

test('the onnxruntime-node recipe: CPU with the reason, and onnxruntime-node runs on what it was handed', async () => {
  const port = await freePort();
  let code = recipe('onnxruntime-node in a server');
  code = swap(code, "'model.onnx'", JSON.stringify(TINY_ONNX));
  code = swap(code, '.listen(3000)', `.listen(${port})`);
  project.write('server.mjs', code);
  const server = spawn(process.execPath, ['server.mjs'], { cwd: project.dir, env: { ...process.env, PATH } });
  try {
    let log = '';
    server.stderr.on('data', (chunk) => { log += chunk; });
    const started = await new Promise((done, fail) => {
      server.stdout.on('data', (chunk) => {
        log += chunk;
        if (log.includes('\n')) done(log);
      });
      server.on('exit', (status) => fail(new Error(`the server exited (${status}):\n${log}`)));
      setTimeout(() => fail(new Error(`no start line in 60 s:\n${log}`)), 60_000);
    });
    assert.match(started, /^onnxruntime-node on cpu: the cuda accelerator dropped: the CUDA driver did not load: libcuda\.so\.1/);
    // The line is printed before the session is made and the port opened.
    let first;
    for (let tries = 0; first === undefined; tries += 1) {
      first = await fetch(`http://127.0.0.1:${port}/`).catch((error) => {
        if (tries > 300) throw new Error(`the server never answered:\n${log}`, { cause: error });
        return new Promise((done) => setTimeout(done, 100));
      });
    }
    const answer = await first.json();
    assert.equal(answer.on, 'cpu');
    assert.equal(answer.y.length, 3);
    assert.ok(answer.y.every(Number.isFinite), JSON.stringify(answer));
    const support = await (await fetch(`http://127.0.0.1:${port}/support`)).text();
    assert.match(support, /^backend-targets \d+\.\d+\.\d+\nruntime: Node\.js /);
    assert.match(support, /^decision: cpu \(driver-not-found\): the cuda accelerator dropped: /m);
    assert.match(support, /^- dropped cuDNN \(requires-accelerator\): /m);
    assert.match(support, /^probe: checks 1 \(process\) on linux x86_64 in [0-9.]+ ms \(timeoutMs (4[7-9]\d\d|5000)\)$/m);
    assert.match(support, /^- check cuda: driver-not-found$/m);
  } finally {
    server.kill('SIGKILL');
  }
});

test('the Transformers.js recipe in Node: cpu, fp32, the model run', () => {
  const models = join(project.dir, 'models');
  const made = spawnSync('python3', [MAKE_MODEL, join(models, 'backend-targets', 'tiny-bert')], { encoding: 'utf8' });
  assert.equal(made.status, 0, made.stderr);
  let code = recipe('Transformers.js in Node');
  code = swap(code, "'Xenova/all-MiniLM-L6-v2'", "'backend-targets/tiny-bert'");
  // Offline, from the local folder (what an app would set for a bundled model).
  code = `import { env } from '@huggingface/transformers';\nenv.allowRemoteModels = false;\n`
    + `env.localModelPath = ${JSON.stringify(`${models}/`)};\n${code}`;
  const r = runIn('transformers.mjs', code);
  assert.equal(r.status, 0, r.output);
  assert.match(r.stdout, /^cpu fp32 \[ 1, \d+ \]$/m, r.output);
});

test('the helpers and detect() in Node: both resolutions, and nothing else', () => {
  const r = runIn('helpers.mjs', `
    import * as bt from 'backend-targets';
    import * as detectEntry from 'backend-targets/detect';
    const native = await bt.detectNative();
    const web = await bt.detect();
    const refused = (f) => { try { f(); return 'answered'; } catch (e) { return e.code + ' at ' + e.path; } };
    console.log(JSON.stringify({
      native: [bt.executionProviders(native), bt.transformersOptions(native), bt.transformersOptions(native, ['q8', 'fp16'])],
      web: [bt.executionProviders(web), bt.transformersOptions(web)],
      refused: [refused(() => bt.executionProviders({})), refused(() => bt.transformersOptions(null)),
        refused(() => bt.executionProviders(web.probe)), refused(() => bt.supportReport(42))],
      fromDetect: detectEntry.executionProviders(await detectEntry.detectNative()),
      preset: (await bt.detectNative('linuxCpu')).changes.length,
      bad: await bt.detectNative('linux-cuda').then(() => 'answered', (e) => e.code + ' at ' + e.path),
    }));
  `);
  assert.equal(r.status, 0, r.output);
  assert.deepEqual(JSON.parse(r.stdout), {
    native: [['cpu'], { device: 'cpu', dtype: 'fp32' }, { device: 'cpu', dtype: 'q8' }],
    web: [['wasm'], { device: 'wasm', dtype: 'q8' }],
    refused: ['invalid-value at resolution', 'invalid-value at resolution', 'invalid-value at resolution',
      'invalid-value at answer'],
    fromDetect: ['cpu'],
    preset: 0,
    bad: 'unknown-variant at target',
  });
});

test('with stand-in CUDA libraries: cuda first; without cuDNN, cpu, with the library\'s name', () => {
  const root = mkdtempSync(join(tmpdir(), 'bt-stand-ins-'));
  const [ok, noCudnn] = [join(root, 'ok'), join(root, 'no-cudnn')];
  for (const dir of [ok, noCudnn]) mkdirSync(dir);
  const cc = (source, dir, name, flags = []) => {
    const r = spawnSync('cc', ['-shared', '-fPIC', '-o', join(dir, name), `-Wl,-soname,${name}`, ...flags,
      join(STAND_INS, source), '-ldl'], { encoding: 'utf8' });
    assert.equal(r.status, 0, `cc ${source}: ${r.stderr}`);
  };
  for (const dir of [ok, noCudnn]) {
    cc('fake_cuda.c', dir, 'libcuda.so.1');
    cc('fake_cublas.c', dir, 'libcublas.so.12', ['-DMAJOR=12', '-DMINOR=9', '-DPATCH=3', '-DCUDART=12080']);
    cc('fake_cufft.c', dir, 'libcufft.so.11', ['-DMAJOR=11', '-DMINOR=4', '-DPATCH=1']);
  }
  cc('fake_cudnn.c', ok, 'libcudnn.so.9', ['-Wl,--disable-new-dtags,-rpath,$ORIGIN']);
  cc('fake_cudnn_graph.c', ok, 'libcudnn_graph.so.9', ['-DCUDART=12090']);
  const code = `
    import { detectNative, executionProviders, transformersOptions } from 'backend-targets';
    const r = await detectNative();
    console.log(JSON.stringify({ providers: executionProviders(r), transformers: transformersOptions(r),
      changes: r.changes.map((c) => [c.accelerator ?? c.feature, c.action, c.reason, c.detail]) }));
  `;
  const found = runIn('cuda.mjs', code, { LD_LIBRARY_PATH: ok });
  assert.equal(found.status, 0, found.output);
  const withCuda = JSON.parse(found.stdout);
  assert.deepEqual(withCuda.providers, ['cuda', 'cpu'], found.stdout);
  assert.deepEqual(withCuda.transformers, { device: 'cuda', dtype: 'fp32' });
  assert.deepEqual(withCuda.changes.map(([subject, action]) => [subject, action]),
    [['cuda', 'kept'], ['nativeCuda', 'kept'], ['cuBLAS', 'kept'], ['cuFFT', 'kept'], ['cuDNN', 'kept']]);
  const missing = runIn('cuda.mjs', code, { LD_LIBRARY_PATH: noCudnn });
  assert.equal(missing.status, 0, missing.output);
  const withoutCudnn = JSON.parse(missing.stdout);
  assert.deepEqual(withoutCudnn.providers, ['cpu'], missing.stdout);
  const cudnn = withoutCudnn.changes.find(([subject]) => subject === 'cuDNN');
  assert.deepEqual(cudnn.slice(1, 3), ['dropped', 'library-not-found']);
  assert.match(cudnn[3], /libcudnn\.so\.9/);
  assert.deepEqual(withoutCudnn.changes[0].slice(0, 2), ['cuda', 'kept'], 'the driver itself answered');
});

// The package as a new user meets it: dist/backend-targets-<version>.tgz
// installed offline into a fresh temporary project, then
//   - a Node ESM script imports it (no init call) and prints the right answers;
//   - TypeScript (strict; moduleResolution "bundler" and "node16") accepts a
//     file using the API from all three entries (., /detect, /verify: the
//     helpers executionProviders, transformersOptions, clearVerifications,
//     with @ts-expect-error on their misuses), and rejects one that
//     misspells an enum ("MacOS");
//   - Vite builds a page importing it, with no warnings, emitting the .wasm;
//   - esbuild bundles a page as the package README's recipe says, and the
//     page, in Chromium, fetches the .wasm once.
// tsc and vite are tests/js's own devDependencies, run with the temporary
// project as their root, so the project itself needs no registry.
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ROOT } from './common.mjs';
import { withChromium } from './chromium.mjs';
import { serve } from './static-server.mjs';

const TOOLS = join(ROOT, 'tests', 'js', 'node_modules');
const TSC = join(TOOLS, 'typescript', 'bin', 'tsc');
const VITE = join(TOOLS, 'vite', 'bin', 'vite.js');
const ESBUILD = join(TOOLS, '.bin', 'esbuild');
const { version } = JSON.parse(readFileSync(join(ROOT, 'pkg-template', 'package.json'), 'utf8'));
const TARBALL = process.env.BACKEND_TARGETS_TGZ ?? join(ROOT, 'dist', `backend-targets-${version}.tgz`);

let dir;
const write = (name, text) => writeFileSync(join(dir, name), text);
/** Runs a command in the temporary project; returns { status, output } (stdout + stderr). */
function run(command, args, extraEnv = {}) {
  const r = spawnSync(command, args, {
    cwd: dir,
    encoding: 'utf8',
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...extraEnv },
  });
  if (r.error) throw r.error;
  return { status: r.status, output: `${r.stdout}${r.stderr}` };
}

before(() => {
  dir = mkdtempSync(join(tmpdir(), 'backend-targets-consumer-'));
  write('package.json', JSON.stringify({ name: 'consumer', private: true, type: 'module' }, null, 2));
  copyFileSync(TARBALL, join(dir, basename(TARBALL)));
  // Offline, with an empty cache of its own and an unreachable registry: the
  // tarball alone must be enough.
  const r = run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts',
    '--cache', join(dir, '.npm-cache'), '--registry', 'http://127.0.0.1:9/', `./${basename(TARBALL)}`]);
  assert.equal(r.status, 0, `npm install --offline failed:\n${r.output}`);
});

after(() => {
  if (dir && !process.env.KEEP_CONSUMER_DIR) rmSync(dir, { recursive: true, force: true });
});

describe('consumer of the npm tarball', () => {
  test('the package ships both licence texts, and its types carry no test hook, no stray r" and no intra-doc link', () => {
    const installed = join(dir, 'node_modules', 'backend-targets');
    const files = readdirSync(installed);
    for (const file of ['LICENSE', 'LICENSE-APACHE', 'README.md']) assert.ok(files.includes(file), file);
    assert.match(readFileSync(join(installed, 'LICENSE'), 'utf8'), /MIT License/);
    assert.match(readFileSync(join(installed, 'LICENSE-APACHE'), 'utf8'), /Apache License\s+Version 2\.0/);
    const types = readFileSync(join(installed, 'backend_targets.d.ts'), 'utf8');
    assert.doesNotMatch(types, /\* r"/, 'a raw-string doc comment reached the .d.ts');
    // Rust's intra-doc links mean nothing in an editor's hover.
    assert.doesNotMatch(types, /\]\(crate::|\[`[^`\]]+`\](?!\()/, 'an intra-doc link reached the .d.ts');
    assert.match(types, /export type PlanResult = Planned \| NotPlanned;/);
    assert.match(types, /export class BackendTargetsError extends Error/);
  });

  test('the tarball installs the package files and nothing else', () => {
    const installed = join(dir, 'node_modules', 'backend-targets');
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    assert.equal(manifest.name, 'backend-targets');
    assert.equal(manifest.version, version);
    assert.deepEqual(readdirSync(installed).sort(), [...manifest.files, 'package.json'].sort());
    assert.equal(manifest.dependencies, undefined, 'no runtime dependencies');
  });

  test('a Node ESM script imports it with no init call', () => {
    write('consumer.mjs', `
import { linuxCuda, declaredAvailability, plan, planJson, presets, wasm } from 'backend-targets';
const out = {
  entry: import.meta.resolve('backend-targets').split('/node_modules/')[1],
  availability: declaredAvailability(linuxCuda({ enableLibTorch: true })),
  wasm: wasm(),
  presets: presets().map((p) => p.name),
  kernels: plan({ ops: ['matmul', 'softmax'] }).kernels.map((k) => k.capsule),
  text: planJson('{"ops": ["add"]}').length > 0,
};
try {
  plan({ ops: ['matmul'], target: { os: 'MacOS' } });
} catch (e) {
  out.error = { name: e.name, code: e.code, path: e.path, expected: e.expected };
}
console.log(JSON.stringify(out));
`);
    const r = run(process.execPath, ['consumer.mjs']);
    assert.equal(r.status, 0, r.output);
    const out = JSON.parse(r.output);
    assert.equal(out.entry, 'backend-targets/node.js', 'Node resolves the node entry');
    assert.deepEqual(out.availability, {
      devices: ['cpu', 'cuda'],
      providers: ['reference', 'torchLean', 'nativeCuda', 'cuBLAS', 'cuFFT', 'libTorch'],
    });
    assert.deepEqual(out.wasm, { os: 'wasi', arch: 'wasm32', accelerator: 'wasm', features: ['webGpu'] });
    assert.equal(out.presets.length, 13);
    assert.equal(out.kernels.length, 2);
    assert.equal(out.text, true);
    assert.deepEqual(out.error, {
      name: 'BackendTargetsError', code: 'unknown-variant', path: 'target.os',
      expected: ['linux', 'macOS', 'windows', 'wasi', 'unknown'],
    });
  });

  describe('TypeScript (tests/js devDependency, strict)', () => {
    before(() => {
      write('good.ts', `
import {
  BackendTargetsError, declaredAvailability, isBackendTargetsError, linuxCpu, linuxCuda, linuxRocm, plan, planJson, presets, wasm,
} from 'backend-targets';
import type { Device, Kernel, NamedPreset, PackageErrorCode, PlanRequest, PlanResult, Target } from 'backend-targets';
import { clearVerifications, executionProviders, transformersOptions } from 'backend-targets';
import {
  clearVerifications as clearFromDetect, detect as detectOnly, executionProviders as providersFromDetect,
  isBackendTargetsError as isError, transformersOptions as optionsFromDetect,
} from 'backend-targets/detect';
import type { Resolution } from 'backend-targets/detect';
import {
  clearVerifications as clearFromVerify, detect as detectVerified, executionProviders as providersFromVerify,
  transformersOptions as optionsFromVerify,
} from 'backend-targets/verify';
import type { Verification, VerifyOptions } from 'backend-targets/verify';

const all: NamedPreset[] = presets();
const target: Required<Target> = linuxCuda({ enableLibTorch: true });
const devices: Device[] = declaredAvailability(wasm()).devices;
const request: PlanRequest = {
  ops: ['matmul', 'softmax'],
  target,
  configs: [{ device: 'cuda', backend: { prefer: 'cuBLAS' } }, { device: 'cpu', trustPolicy: 'checked' }],
  capsules: [{ name: 'cublas.matmul', op: 'matmul', provider: 'cuBLAS', device: 'cuda', trustLevel: 'verified', vjpMode: 'backendVJP' }],
  mode: 'perOp',
  explain: true,
};
const result: PlanResult = plan(request);
const text: string = planJson(JSON.stringify(request));
// \`ok\` narrows: kernels are there on success (the package README's lines).
if (result.ok) {
  const every: boolean = result.kernels.every((k: Kernel) => k.provider === 'webGpu');
  for (const k of result.kernels) {
    const device: Device = k.device;
    console.log(device, k.capsule, all.length, text.length, devices, every);
  }
} else {
  // ...and not on failure.
  // @ts-expect-error no kernels without a plan
  result.kernels.length;
  console.log(result.attempts.length);
}
const ep = result.ok && result.kernels.every((k) => k.provider === 'webGpu') ? 'webgpu' : 'wasm';
try {
  plan({ ops: ['matmul'], target: { os: 'linux' } });
} catch (e: unknown) {
  // A class to match with instanceof, and a guard: no cast.
  if (e instanceof BackendTargetsError) {
    const code: PackageErrorCode = e.code;
    const where: string = e.path;
    const expected: string[] | undefined = e.expected;
    if (code === 'unknown-variant') console.log(where, expected, e.message, ep);
  }
  if (isBackendTargetsError(e) || isError(e)) console.log(e.code, e.path);
}
const decided: Promise<Resolution> = detectOnly({ timeoutMs: 500 });
decided.then((r) => console.log(r.availability.providers, r.probe.reason));

// The decision an inference app makes, one call per runtime, from every entry.
async function decide(): Promise<void> {
  const verifyOptions: VerifyOptions = { budgetMs: 1000, precision: 'f32', cache: 'session' };
  const resolution: Resolution = await detectVerified({ allowFallbackAdapter: false, verify: verifyOptions });
  const verification: Verification | undefined = resolution.probe.verification;
  // What an app reads of a resolution, under --strict without assertions:
  // the devices and providers always, the kept adapter's features and limits
  // once webGpu is there.
  const usable: Device[] = resolution.availability.devices;
  const f16: boolean = resolution.availability.webGpu?.features.includes('shader-f16') ?? false;
  const bufferLimit: number | undefined = resolution.availability.webGpu?.limits.maxBufferSize;
  // @ts-expect-error webGpu is absent where no adapter was kept
  console.log(resolution.availability.webGpu.features, usable, f16, bufferLimit);
  // @ts-expect-error a declaration has no probed WebGPU
  console.log(declaredAvailability(wasm()).webGpu);
  // ONNX Runtime Web's list: exactly one of two tuples, in ORT's spelling.
  const providers: ['webgpu', 'wasm'] | ['wasm'] = executionProviders(resolution);
  const first: 'webgpu' | 'wasm' = providers[0];
  const same: (['webgpu', 'wasm'] | ['wasm'])[] = [providersFromDetect(resolution), providersFromVerify(resolution)];
  // @ts-expect-error the list is ORT's spelling ('webgpu'), not the target's feature ('webGpu')
  const misspelled: 'webGpu'[] = executionProviders(resolution);
  // @ts-expect-error it reads a resolution (detect()'s answer), not a probe report
  executionProviders(resolution.probe);
  // Transformers.js's { device, dtype }: the device narrows the dtype.
  const options = transformersOptions(resolution);
  if (options.device === 'webgpu') {
    const dtype: 'fp16' | 'fp32' = options.dtype;
    console.log(dtype);
  } else {
    const dtype: 'q8' = options.dtype;
    // @ts-expect-error wasm is never given fp16
    const half: 'fp16' = options.dtype;
    console.log(dtype, half);
  }
  // @ts-expect-error no such device: Transformers.js's is 'webgpu'
  const wrongDevice: 'webGpu' = transformersOptions(resolution).device;
  const alike: ReturnType<typeof transformersOptions>[] = [optionsFromDetect(resolution), optionsFromVerify(resolution)];
  const cleared: Promise<void>[] = [clearVerifications(), clearFromDetect(), clearFromVerify()];
  // @ts-expect-error clearVerifications takes nothing
  clearVerifications('persistent');
  await Promise.all(cleared);
  console.log(verification?.ratio, first, same, misspelled, wrongDevice, alike);
}
void decide();
// The types reject what the functions reject (an unused @ts-expect-error is itself an error).
// @ts-expect-error linuxRocm takes no options
linuxRocm({ arch: 'x86_64' });
// @ts-expect-error linuxCpu does not take os
linuxCpu({ os: 'linux' });
// @ts-expect-error not an op spelling
plan({ ops: ['matMul'] });
`);
      write('bad.ts', `
import { plan, portableCpu } from 'backend-targets';
import type { PlanRequest, Target } from 'backend-targets';

const target: Target = { os: "MacOS", arch: 'aarch64' };
const request: PlanRequest = { ops: ['matmul'], target: { os: "MacOS" } };
portableCpu({ os: "MacOS" });
console.log(target, plan(request));
`);
      const options = (resolution) => ({
        strict: true, noEmit: true, target: 'es2022', lib: ['es2022', 'dom'], types: [], skipLibCheck: false,
        ...(resolution === 'bundler' ? { module: 'preserve', moduleResolution: 'bundler' } : { module: 'node16', moduleResolution: 'node16' }),
      });
      for (const resolution of ['bundler', 'node16']) {
        write(`tsconfig.${resolution}.json`, JSON.stringify({ compilerOptions: options(resolution), files: ['good.ts'] }, null, 2));
        write(`tsconfig.bad.${resolution}.json`, JSON.stringify({ compilerOptions: options(resolution), files: ['bad.ts'] }, null, 2));
      }
    });

    for (const resolution of ['bundler', 'node16']) {
      test(`moduleResolution ${resolution}: a file using the API type-checks, the package's .d.ts included`, () => {
        const r = run(process.execPath, [TSC, '-p', `tsconfig.${resolution}.json`, '--pretty', 'false']);
        assert.equal(r.status, 0, `tsc failed:\n${r.output}`);
      });

      test(`moduleResolution ${resolution}: a misspelled enum value ("MacOS") fails to compile`, () => {
        const r = run(process.execPath, [TSC, '-p', `tsconfig.bad.${resolution}.json`, '--pretty', 'false']);
        assert.notEqual(r.status, 0, `tsc accepted "MacOS":\n${r.output}`);
        const errors = r.output.split('\n').filter((line) => line.includes('error TS'));
        assert.equal(errors.length, 3, r.output);
        for (const line of errors) {
          assert.match(line, /^bad\.ts\(\d+,\d+\): error TS\d+: .*"MacOS".*OperatingSystem/, line);
        }
      });
    }
  });

  test('Vite builds a page importing it: no warnings, the .wasm emitted as an asset', () => {
    write('index.html', `<!doctype html>
<html lang="en">
  <head><meta charset="utf-8"><title>backend-targets consumer</title></head>
  <body><pre id="out"></pre><script type="module" src="/main.js"></script></body>
</html>
`);
    write('main.js', `import init, { declaredAvailability, plan, wasm } from 'backend-targets';

init().then(() => {
  const result = plan({ ops: ['matmul'], availability: declaredAvailability(wasm()) });
  document.getElementById('out').textContent = JSON.stringify(result.kernels);
});
`);
    const r = run(process.execPath, [VITE, 'build', '--logLevel', 'info']);
    assert.equal(r.status, 0, `vite build failed:\n${r.output}`);
    assert.match(r.output, /built in/, r.output);
    assert.doesNotMatch(r.output, /warn|\(!\)|deprecat|error/i, `vite printed a warning:\n${r.output}`);

    const assets = readdirSync(join(dir, 'dist', 'assets'));
    // The verification's module (backend-targets/verify, imported on demand by
    // detect({ verify })) is emitted beside it, never fetched by this page:
    // its main chunk does not name it.
    const onDemand = assets.filter((f) => f.startsWith('verified'));
    const wasmAssets = assets.filter((f) => f.endsWith('.wasm') && !onDemand.includes(f));
    const chunks = assets.filter((f) => f.endsWith('.js') && !onDemand.includes(f));
    assert.ok(onDemand.some((f) => /^verified_bg-.*\.wasm$/.test(f)), `assets: ${assets}`);
    assert.equal(wasmAssets.length, 1, `assets: ${assets}`);
    assert.equal(chunks.length, 1, `assets: ${assets}`);
    assert.ok(!readFileSync(join(dir, 'dist', 'assets', chunks[0]), 'utf8').includes('verified_bg'), 'not fetched by this page');
    const shipped = readFileSync(join(dir, 'node_modules', 'backend-targets', 'backend_targets_bg.wasm'));
    assert.ok(readFileSync(join(dir, 'dist', 'assets', wasmAssets[0])).equals(shipped), 'the asset is the package\'s .wasm');
    const chunk = readFileSync(join(dir, 'dist', 'assets', chunks[0]), 'utf8');
    assert.ok(chunk.includes(wasmAssets[0]), 'the bundle locates the hashed .wasm asset');
    assert.ok(!/node:fs|readFileSync/.test(chunk), 'the browser build does not pull in the Node entry');
    assert.match(readFileSync(join(dir, 'dist', 'index.html'), 'utf8'), new RegExp(`assets/${chunks[0]}`));
  });

  test('esbuild, as the package README says: the .wasm copied beside the bundle, init() with no argument fetches it once', async () => {
    // The README's recipe, and the form it warns against (the URL given to
    // init(): the entry's own request, started on evaluation, then a second).
    const recipes = {
      recipe: 'await init();',
      'url given': "await init({ module_or_path: new URL('./backend_targets_bg.wasm', import.meta.url) });",
    };
    const fetched = {};
    for (const [name, call] of Object.entries(recipes)) {
      const out = join(dir, 'esbuild', name.replace(' ', '-'));
      mkdirSync(out, { recursive: true });
      write('esbuild-app.js', `import init, { plan } from 'backend-targets';
${call}
document.getElementById('out').textContent = plan({ ops: ['matmul'] }).kernels[0].capsule;
`);
      const r = run(ESBUILD, ['esbuild-app.js', '--bundle', '--format=esm', `--outdir=${out}`, '--log-level=warning']);
      assert.equal(r.status, 0, `esbuild failed:\n${r.output}`);
      assert.equal(r.output, '', `esbuild printed:\n${r.output}`);
      copyFileSync(join(dir, 'node_modules', 'backend-targets', 'backend_targets_bg.wasm'), join(out, 'backend_targets_bg.wasm'));
      writeFileSync(join(out, 'index.html'), '<!doctype html><meta charset="utf-8"><title>esbuild</title>'
        + '<pre id="out"></pre><script type="module" src="./esbuild-app.js"></script>\n');
      const server = await serve(out);
      try {
        await withChromium([], async (context) => {
          const page = await context.newPage();
          await page.goto(`${server.origin}/`);
          await page.waitForFunction(() => document.getElementById('out').textContent !== '', null, { timeout: 20_000 });
          assert.equal(await page.textContent('#out'), 'reference.matmul', name);
        });
      } finally {
        await server.close();
      }
      fetched[name] = server.requests.filter((request) => request.path === '/backend_targets_bg.wasm').length;
    }
    assert.deepEqual(fetched, { recipe: 1, 'url given': 2 });
  });

  test('Vite, its default config, builds the package README\'s worker recipe as written', () => {
    const readme = readFileSync(join(dir, 'node_modules', 'backend-targets', 'README.md'), 'utf8');
    const section = readme.slice(readme.indexOf('## Web worker'));
    const worker = section.slice(section.indexOf('```js\n') + 6, section.indexOf('```\n', section.indexOf('```js\n') + 6));
    assert.match(worker, /from 'backend-targets\/verify'/, worker);
    write('worker.js', worker);
    write('main.js', `const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
worker.onmessage = (event) => { document.getElementById('out').textContent = JSON.stringify(event.data); };
`);
    rmSync(join(dir, 'vite.config.js'), { force: true });
    const r = run(process.execPath, [VITE, 'build', '--logLevel', 'info']);
    assert.equal(r.status, 0, `vite build failed:\n${r.output}`);
    assert.doesNotMatch(r.output, /warn|\(!\)|deprecat|error/i, `vite printed a warning:\n${r.output}`);
    const assets = readdirSync(join(dir, 'dist', 'assets'));
    assert.ok(assets.some((f) => /^worker-.*\.js$/.test(f)), `the worker is a chunk of its own: ${assets}`);
    assert.ok(assets.some((f) => /^verified_bg-.*\.wasm$/.test(f)), `the verification's .wasm is emitted: ${assets}`);
  });

  test('Vite builds a page importing backend-targets/detect: only the detect-only .wasm is fetched (the verification\'s on demand)', () => {
    write('main.js', `import { detect } from 'backend-targets/detect';

detect().then((resolution) => {
  document.getElementById('out').textContent = JSON.stringify(resolution.availability);
});
`);
    const r = run(process.execPath, [VITE, 'build', '--logLevel', 'info']);
    assert.equal(r.status, 0, `vite build failed:\n${r.output}`);
    assert.doesNotMatch(r.output, /warn|\(!\)|deprecat|error/i, `vite printed a warning:\n${r.output}`);
    const assets = readdirSync(join(dir, 'dist', 'assets'));
    // backend-targets/verify is a chunk of its own with its .wasm, loaded only
    // by detect({ verify }); the page's chunk names neither its .wasm nor the full one.
    const onDemand = assets.filter((f) => f.startsWith('verified'));
    const wasmAssets = assets.filter((f) => f.endsWith('.wasm') && !onDemand.includes(f));
    assert.equal(wasmAssets.length, 1, `assets: ${assets}`);
    assert.ok(!assets.some((f) => f.startsWith('backend_targets_bg')), `the full module is not emitted: ${assets}`);
    const main = assets.filter((f) => f.endsWith('.js') && !onDemand.includes(f));
    for (const chunk of main) {
      assert.ok(!readFileSync(join(dir, 'dist', 'assets', chunk), 'utf8').includes('verified_bg'), `${chunk} does not fetch it`);
    }
    const shipped = readFileSync(join(dir, 'node_modules', 'backend-targets', 'detect_bg.wasm'));
    assert.ok(readFileSync(join(dir, 'dist', 'assets', wasmAssets[0])).equals(shipped), 'the asset is the detect-only .wasm');
  });
});

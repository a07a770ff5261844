// The JavaScript API's test bodies, shared by package.test.mjs (the package's
// Node entry, pkg/node.js) and package-web.test.mjs (the browser entry,
// pkg/index.js, after initSync). Not a test file itself: each suite
// calls `defineApiSuite` with the API object it loaded.
//
// Checked: every preset (default options, every option it takes, every option
// it does not take), presets(), devices/providers/declaredAvailability,
// parseTarget, referenceCapsules, schema, plan/planJson byte-identical to the
// native command's golden outputs, the malformed corpus (code, path,
// expected), non-JSON-able inputs, and that the instance keeps answering
// after errors and after a forced panic.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { VECTORS, cliCases, malformedCases } from './common.mjs';

// ---------------------------------------------------------------- vocabulary

export const PRESETS = [
  'portableCpu', 'linuxCpu', 'macOSCpu', 'windowsCpu', 'linuxCuda', 'windowsCuda', 'linuxRocm',
  'macOSMetal', 'wasm', 'linuxTpu', 'linuxTrainium', 'customChip', 'external',
];
/** The options each preset takes (docs/command.md, "The command"). */
export const TAKES = {
  portableCpu: ['os', 'arch'], customChip: ['os', 'arch'], external: ['os', 'arch'],
  linuxCpu: ['arch'], macOSCpu: ['arch'], windowsCpu: ['arch'],
  linuxCuda: ['enableLibTorch'], windowsCuda: ['enableLibTorch'],
  linuxRocm: [], macOSMetal: [], wasm: [], linuxTpu: [], linuxTrainium: [],
};
export const SPELLINGS = {
  OperatingSystem: ['linux', 'macOS', 'windows', 'wasi', 'unknown'],
  Architecture: ['x86_64', 'aarch64', 'wasm32', 'unknown'],
  Accelerator: ['none', 'cuda', 'rocm', 'metal', 'wasm', 'tpu', 'trainium', 'custom', 'external'],
  BuildFeature: ['nativeCuda', 'libTorch', 'aten', 'mps', 'webGpu', 'cuBLAS', 'cuDNN', 'cuFFT', 'xla',
    'neuron', 'customChip', 'externalProvider'],
  Device: ['cpu', 'cuda', 'rocm', 'metal', 'wasm', 'tpu', 'trainium', 'custom', 'external'],
  Provider: ['reference', 'torchLean', 'nativeCuda', 'libTorch', 'aten', 'mps', 'webGpu', 'cuBLAS',
    'cuDNN', 'cuFFT', 'xla', 'neuron', 'customChip', 'external'],
  TrustLevel: ['verified', 'checked', 'fuzzed', 'trustedExternal'],
  TrustPolicy: ['verifiedOnly', 'checked', 'fuzzedOk', 'allowTrustedExternal'],
  VJPMode: ['none', 'torchLeanTape', 'backendVJP', 'externalAutograd'],
  PlanMode: ['wholePlan', 'perOp'],
  BackendPreference: ['auto', 'prefer', 'only'],
  BackendOp: ['randUniform', 'bernoulliMask', 'add', 'sub', 'mul', 'scale', 'abs', 'sqrt', 'clamp',
    'max', 'min', 'relu', 'gelu', 'sigmoid', 'tanh', 'softplus', 'exp', 'log', 'sin', 'cos', 'inv',
    'safeLog', 'logSoftmax', 'softmax', 'sum', 'reduceSum', 'reduceMean', 'flatten', 'reshape',
    'permute', 'transpose2d', 'swapAdjacentAtDepth', 'transpose3dFirstToLast',
    'transpose3dLastToFirst', 'transpose3dLastTwo', 'broadcastTo', 'concatVectors',
    'concatLeadingAxis', 'sliceLeadingAxisRange', 'gatherScalar', 'gatherScalarNat', 'gatherRow',
    'gatherVecNat', 'gatherRowsNat', 'scatterAddVec', 'scatterAddRow', 'matmul', 'bmm', 'linear',
    'mseLoss', 'layerNorm', 'batchNorm', 'batchNormChannelFirst', 'conv', 'conv2d', 'convTranspose',
    'convTranspose2d', 'maxPool', 'maxPool2d', 'maxPool2dPad', 'smoothMaxPool', 'smoothMaxPool2d',
    'avgPool', 'avgPool2d', 'avgPool2dPad', 'fftFno', 'selectiveScan', 'scaledDotProductAttention'],
};
/** The forms whose schema every build serves, then the native probe's (the command's alone). */
export const WEB_SCHEMA_NAMES = ['Target', 'Availability', 'ExecutionConfig', 'KernelCapsule', 'PlanRequest', 'PlanResult'];
export const NATIVE_SCHEMA_NAMES = ['NativeResolution', 'ProbedPlanResult'];
export const SCHEMA_NAMES = [...WEB_SCHEMA_NAMES, ...NATIVE_SCHEMA_NAMES];
/** A valid value for each preset option, to show that a preset refuses one it does not take. */
const OPTION_SAMPLES = { os: ['linux', 'unknown'], arch: ['x86_64', 'unknown'], enableLibTorch: [true, false] };

// ------------------------------------------------------------------- vectors

export const golden = (name) => readFileSync(join(VECTORS, 'cli', `${name}.out`), 'utf8');
export const vectorText = (rel) => readFileSync(join(VECTORS, rel), 'utf8');

/** CLI preset cases (`target P [flags]`, `availability P [flags]`) as { kind, preset, options, name }. */
export function presetCases() {
  return cliCases()
    .filter((c) => c.status === 0 && (c.args[0] === 'target' || c.args[0] === 'availability') && c.args[1] !== '-')
    .map((c) => {
      const [kind, preset, ...flags] = c.args;
      const options = {};
      for (let i = 0; i < flags.length; i++) {
        if (flags[i] === '--os') options.os = flags[++i];
        else if (flags[i] === '--arch') options.arch = flags[++i];
        else if (flags[i] === '--enable-libtorch') options.enableLibTorch = true;
        else throw new Error(`${c.name}: unexpected CLI flag ${flags[i]}`);
      }
      return { kind, preset, options, name: c.name };
    });
}

/** CLI plan cases reading a request from stdin, without --pretty. */
export function planCases() {
  return cliCases()
    .filter((c) => c.args.length === 1 && c.args[0] === 'plan' && c.stdin)
    .map((c) => ({ name: c.name, request: c.stdin, status: c.status }));
}

// ------------------------------------------------------------------- helpers

/** Asserts that `fn` throws a BackendTargetsError with this code and path; returns it. */
export function throwsCode(fn, code, path, what = '') {
  let caught;
  try {
    fn();
  } catch (e) {
    caught = e;
  }
  assert.ok(caught !== undefined, `${what}: expected a BackendTargetsError [${code}], nothing was thrown`);
  assert.ok(caught instanceof Error, `${what}: thrown value is not an Error: ${caught}`);
  assert.equal(caught.name, 'BackendTargetsError', `${what}: ${caught.name}: ${caught.message}`);
  assert.equal(caught.code, code, `${what}: code (${caught.message})`);
  if (path !== undefined) assert.equal(caught.path, path, `${what}: path (${caught.message})`);
  assert.equal(typeof caught.message, 'string');
  assert.ok(caught.message.includes(`[${code}]`), `${what}: message ${caught.message}`);
  if (code === 'unknown-variant' || code === 'unknown-field') {
    // The valid spellings (of the value, or of the object's fields).
    assert.ok(Array.isArray(caught.expected) && caught.expected.length > 0, `${what}: expected ${caught.expected}`);
    for (const s of caught.expected) assert.equal(typeof s, 'string');
  } else {
    assert.equal(caught.expected, undefined, `${what}: expected is only set for an unknown spelling`);
  }
  return caught;
}

const bytes = (value) => JSON.stringify(value) + '\n';

// --------------------------------------------------------------------- suite

/**
 * Defines the shared suite.
 * @param {string} label           suite name
 * @param {() => object} getApi    the loaded API module (or a namespace-like object)
 * @param {{ wasmExport: string }} opts  the name the `wasm` preset is exported under
 */
export function defineApiSuite(label, getApi, { wasmExport, getTestApi }) {
  const api = () => getApi();
  // The same entry over the suites' module with the test hooks (pkg-test/):
  // recovery is proved there, on the code the package ships.
  const testApi = () => getTestApi();
  const presetFn = (name) => {
    const fn = api()[name === 'wasm' ? wasmExport : name];
    assert.equal(typeof fn, 'function', `preset ${name} is exported`);
    return fn;
  };
  const sampleRequest = () => vectorText('requests/default-explained.json');
  const sampleGolden = () => golden('plan-default-explained');
  /** `on()`'s instance answers normally: a plan, a planJson and the presets, byte for byte. */
  const answersNormallyOn = (on, what) => {
    assert.equal(bytes(on().plan(JSON.parse(sampleRequest()))), sampleGolden(), `${what}: plan(object)`);
    assert.equal(on().planJson(sampleRequest()) + '\n', sampleGolden(), `${what}: planJson`);
    assert.equal(bytes(on().presets()), golden('presets'), `${what}: presets()`);
    assert.equal(bytes(on().linuxCuda({ enableLibTorch: true })), golden('target-linuxCuda-libtorch'), `${what}: linuxCuda`);
  };
  const answersNormally = (what) => answersNormallyOn(api, what);

  describe(label, () => {
    test('exports every function of the API, the wasm preset under its name', () => {
      const names = ['presets', 'devices', 'providers', 'declaredAvailability', 'parseTarget', 'plan',
        'planJson', 'referenceCapsules', 'schema', 'initSync', 'default', 'BackendTargetsError', 'isBackendTargetsError'];
      for (const name of [...names, ...PRESETS.map((p) => (p === 'wasm' ? wasmExport : p))]) {
        assert.equal(typeof api()[name], 'function', `${name} is exported as a function`);
      }
      assert.equal(api().wasmPreset, api()[wasmExport], 'wasmPreset is the same function');
    });

    test('exports nothing outside the documented API', () => {
      const documented = new Set(['presets', 'devices', 'providers', 'declaredAvailability', 'parseTarget', 'plan',
        'planJson', 'referenceCapsules', 'schema', 'detect', 'probe', 'resolve', 'initSync', 'default',
        'BackendTargetsError', 'isBackendTargetsError', 'wasm', 'wasmPreset', 'clearVerifications', 'executionProviders', 'transformersOptions', 'supportReport', 'detectNative', ...PRESETS]);
      assert.deepEqual(Object.keys(api()).filter((name) => !documented.has(name)), []);
      // The test hooks are in the suites' copy only.
      for (const hook of ['__forcePanicForTesting', '__exhaustMemoryForTesting']) {
        assert.equal(api()[hook], undefined, `the published entry has no ${hook}`);
        assert.equal(typeof testApi()[hook], 'function', `pkg-test has ${hook}`);
      }
    });

    test('what it throws is a BackendTargetsError: instanceof, the guard, and the fields', () => {
      const { BackendTargetsError, isBackendTargetsError } = api();
      const thrown = [];
      for (const fn of [() => api().plan({ ops: ['matmull'] }), () => api().planJson('{'), () => api().linuxRocm({ os: 'linux' }),
        () => api().schema('Nope'), () => api().plan({ ops: ['add'] }, { limits: { ops: -1 } })]) {
        try {
          fn();
        } catch (error) {
          thrown.push(error);
        }
      }
      assert.equal(thrown.length, 5);
      for (const error of thrown) {
        assert.ok(error instanceof BackendTargetsError, `${error.message}: instanceof`);
        assert.ok(error instanceof Error);
        assert.ok(isBackendTargetsError(error));
        assert.equal(error.name, 'BackendTargetsError');
        assert.equal(typeof error.code, 'string');
      }
      assert.equal(BackendTargetsError.name, 'BackendTargetsError');
      // The guard also knows one from elsewhere (another copy, another realm) by its fields.
      const foreign = Object.assign(new Error('[wrong-type] at x: y'), { name: 'BackendTargetsError', code: 'wrong-type', path: 'x' });
      assert.ok(isBackendTargetsError(foreign) && !(foreign instanceof BackendTargetsError));
      for (const other of [new Error('x'), { name: 'BackendTargetsError', code: 'x' }, null, 'BackendTargetsError']) {
        assert.equal(isBackendTargetsError(other), false, String(other));
      }
    });

    describe('presets', () => {
      const cases = presetCases();
      test('the CLI vectors cover every preset, for target and availability', () => {
        for (const p of PRESETS) {
          for (const kind of ['target', 'availability']) {
            assert.ok(cases.some((c) => c.kind === kind && c.preset === p && Object.keys(c.options).length === 0), `${kind} ${p}`);
          }
        }
      });

      for (const c of cases) {
        test(`${c.name}: ${c.preset}(${JSON.stringify(c.options)}) gives the native golden bytes`, () => {
          const fn = presetFn(c.preset);
          const none = Object.keys(c.options).length === 0;
          const calls = none ? [() => fn(), () => fn(undefined), () => fn(null), () => fn({})] : [() => fn(c.options)];
          for (const call of calls) {
            const target = call();
            const out = c.kind === 'target' ? target : api().declaredAvailability(target);
            assert.equal(bytes(out), golden(c.name));
          }
        });
      }

      for (const p of PRESETS) {
        test(`${p}: every option it takes, alone and with every value`, () => {
          const fn = presetFn(p);
          const base = JSON.parse(golden(`target-${p}`));
          for (const option of TAKES[p]) {
            const values = option === 'os' ? SPELLINGS.OperatingSystem
              : option === 'arch' ? SPELLINGS.Architecture : [false, true];
            for (const value of values) {
              const got = fn({ [option]: value });
              if (option === 'enableLibTorch') {
                const expected = JSON.parse(golden(value ? `target-${p}-libtorch` : `target-${p}`));
                assert.deepEqual(got, expected, `${p}({${option}: ${value}})`);
              } else {
                assert.deepEqual(got, { ...base, [option]: value }, `${p}({${option}: ${value}})`);
              }
              // Key order is the golden's, whatever the options.
              assert.deepEqual(Object.keys(got), ['os', 'arch', 'accelerator', 'features']);
            }
          }
          if (TAKES[p].length === 2) {
            for (const os of SPELLINGS.OperatingSystem) {
              for (const arch of SPELLINGS.Architecture) {
                assert.deepEqual(fn({ arch, os }), { ...base, os, arch }, `${p}({os: ${os}, arch: ${arch}})`);
              }
            }
          }
        });

        test(`${p}: an option it does not take throws unsupported-option with its path`, () => {
          const fn = presetFn(p);
          const refused = Object.keys(OPTION_SAMPLES).filter((o) => !TAKES[p].includes(o));
          assert.ok(refused.length >= 1);
          for (const option of refused) {
            for (const value of OPTION_SAMPLES[option]) {
              const e = throwsCode(() => fn({ [option]: value }), 'unsupported-option', option, `${p}({${option}: ${value}})`);
              assert.ok(e.message.includes(p === 'wasm' ? 'wasm' : p), e.message);
            }
          }
          // Alongside options it does take, the refused one is still reported.
          if (TAKES[p].length > 0) {
            const taken = TAKES[p][0];
            const option = refused[0];
            throwsCode(() => fn({ [taken]: OPTION_SAMPLES[taken][0], [option]: OPTION_SAMPLES[option][0] }),
              'unsupported-option', option, `${p} with ${taken} and ${option}`);
          }
        });
      }

      test('preset options are parsed strictly (unknown field, wrong type, bad spelling, null)', () => {
        throwsCode(() => api().portableCpu({ os: 'linux', gpu: 'cuda' }), 'unknown-field', 'gpu', 'unknown option');
        throwsCode(() => api().linuxCuda({ enableLibTorch: 'yes' }), 'wrong-type', 'enableLibTorch', 'string flag');
        throwsCode(() => api().linuxCuda({ enableLibTorch: null }), 'wrong-type', 'enableLibTorch', 'null flag');
        const e = throwsCode(() => api().portableCpu({ os: 'MacOS' }), 'unknown-variant', 'os', 'MacOS');
        assert.deepEqual(e.expected, SPELLINGS.OperatingSystem);
        const a = throwsCode(() => api().linuxCpu({ arch: 'arm64' }), 'unknown-variant', 'arch', 'arm64');
        assert.deepEqual(a.expected, SPELLINGS.Architecture);
        throwsCode(() => api().linuxCpu('{"arch": '), 'invalid-json', '', 'JSON text');
        throwsCode(() => api().linuxCpu(7), 'wrong-type', '', 'a number');
        assert.deepEqual(api().linuxCpu('{"arch": "aarch64"}'), { ...JSON.parse(golden('target-linuxCpu')), arch: 'aarch64' });
      });
    });

    test('presets() lists the 13 presets with default parameters, byte for byte', () => {
      const list = api().presets();
      assert.equal(bytes(list), golden('presets'));
      assert.equal(JSON.stringify(list, null, 2) + '\n', golden('presets-pretty'));
      assert.deepEqual(list.map((p) => p.name), PRESETS);
      for (const { name, target } of list) assert.deepEqual(target, presetFn(name)(), name);
      // A fresh value each call: mutating one does not affect the next.
      list[0].target.features.push('webGpu');
      assert.equal(bytes(api().presets()), golden('presets'));
    });

    test('devices, providers and declaredAvailability agree with the availability goldens', () => {
      for (const c of presetCases().filter((c) => c.kind === 'availability')) {
        const target = presetFn(c.preset)(c.options);
        const expected = JSON.parse(golden(c.name));
        assert.equal(bytes(api().declaredAvailability(target)), golden(c.name), c.name);
        assert.deepEqual(api().devices(target), expected.devices, `${c.name}: devices`);
        assert.deepEqual(api().providers(target), expected.providers, `${c.name}: providers`);
        // A target as JSON text is accepted too.
        assert.equal(bytes(api().declaredAvailability(JSON.stringify(target))), golden(c.name), `${c.name}: text`);
      }
      // The SPEC's example.
      assert.deepEqual(api().declaredAvailability(api().linuxCuda({ enableLibTorch: true })), {
        devices: ['cpu', 'cuda'],
        providers: ['reference', 'torchLean', 'nativeCuda', 'cuBLAS', 'cuFFT', 'libTorch'],
      });
      // A partial target gets the defaults.
      assert.deepEqual(api().devices({}), ['cpu']);
      assert.deepEqual(api().providers({ features: ['externalProvider', 'xla'] }), ['reference', 'torchLean', 'external', 'xla']);
      for (const fn of ['devices', 'providers', 'declaredAvailability']) {
        const e = throwsCode(() => api()[fn]({ accelerator: 'gpu' }), 'unknown-variant', 'accelerator', fn);
        assert.deepEqual(e.expected, SPELLINGS.Accelerator);
        throwsCode(() => api()[fn](), 'missing-field', '', `${fn}()`);
      }
    });

    test('parseTarget takes an object or JSON text and fills the defaults', () => {
      const text = vectorText('targets/custom.json');
      const fromText = api().parseTarget(text);
      const fromObject = api().parseTarget(JSON.parse(text));
      assert.deepEqual(fromText, fromObject);
      assert.deepEqual(Object.keys(fromText), ['os', 'arch', 'accelerator', 'features']);
      assert.equal(bytes(api().declaredAvailability(fromText)), golden('availability-stdin'));
      assert.deepEqual(api().parseTarget({}), { os: 'unknown', arch: 'unknown', accelerator: 'none', features: [] });
      assert.deepEqual(api().parseTarget('{"os": "linux"}'), { os: 'linux', arch: 'unknown', accelerator: 'none', features: [] });
      for (const p of PRESETS) assert.deepEqual(api().parseTarget(presetFn(p)()), presetFn(p)(), p);
      const e = throwsCode(() => api().parseTarget({ os: 'MacOS' }), 'unknown-variant', 'os', 'MacOS');
      assert.deepEqual(e.expected, SPELLINGS.OperatingSystem);
      const f = throwsCode(() => api().parseTarget({ features: ['webGpu', 'WebGPU'] }), 'unknown-variant', 'features[1]', 'WebGPU');
      assert.deepEqual(f.expected, SPELLINGS.BuildFeature);
      throwsCode(() => api().parseTarget({ features: ['cuBLAS', 'cuBLAS'] }), 'duplicate-value', 'features[1]', 'duplicate');
      throwsCode(() => api().parseTarget({ os: 'linux', gpu: 'cuda' }), 'unknown-field', 'gpu', 'unknown field');
      throwsCode(() => api().parseTarget({ features: 'webGpu' }), 'wrong-type', 'features', 'features string');
      throwsCode(() => api().parseTarget({ os: null }), 'wrong-type', 'os', 'null os');
      throwsCode(() => api().parseTarget('{"os": "linux", "os": "macOS"}'), 'duplicate-field', 'os', 'duplicate field');
      throwsCode(() => api().parseTarget('{"os": '), 'invalid-json', '', 'bad text');
      throwsCode(() => api().parseTarget(), 'missing-field', '', 'no argument');
      throwsCode(() => api().parseTarget(null), 'wrong-type', '', 'null');
    });

    test('referenceCapsules() is the built-in catalog: 68 reference capsules on cpu', () => {
      const caps = api().referenceCapsules();
      assert.equal(caps.length, 68);
      assert.deepEqual(caps.map((c) => c.op), SPELLINGS.BackendOp);
      assert.equal(new Set(caps.map((c) => c.name)).size, 68, 'names are distinct');
      for (const c of caps) {
        assert.deepEqual(Object.keys(c).sort(), ['device', 'name', 'op', 'provider', 'supportsForward', 'trustLevel', 'vjpMode']);
        assert.equal(c.provider, 'reference');
        assert.equal(c.device, 'cpu');
        assert.equal(c.trustLevel, 'checked');
        assert.equal(c.supportsForward, true);
        const random = c.op === 'randUniform' || c.op === 'bernoulliMask';
        assert.equal(c.vjpMode, random ? 'none' : 'torchLeanTape', c.op);
      }
      // Passing the catalog explicitly plans exactly like leaving it out.
      const ops = SPELLINGS.BackendOp;
      assert.deepEqual(api().plan({ ops, capsules: caps }), api().plan({ ops }));
    });

    test('schema(name) for the 6 forms every build serves equals the command\'s schemas', () => {
      for (const name of WEB_SCHEMA_NAMES) {
        assert.deepEqual(api().schema(name), JSON.parse(golden(`schema-${name}`)), name);
      }
      // The native probe's answers: the command serves their schemas, the module refuses plainly.
      for (const name of NATIVE_SCHEMA_NAMES) {
        throwsCode(() => api().schema(name), 'unsupported-platform', '', name);
      }
      const e = throwsCode(() => api().schema('Plan'), 'unknown-variant', '', 'Plan');
      assert.deepEqual(e.expected, SCHEMA_NAMES);
      throwsCode(() => api().schema(3), 'wrong-type', '', 'a number');
      throwsCode(() => api().schema(), 'wrong-type', '', 'no argument');
    });

    describe('plan', () => {
      const cases = planCases();
      test('the vectors cover every request file', () => {
        assert.ok(cases.length >= 20);
        assert.ok(cases.some((c) => c.status === 1), 'some requests are not plannable');
      });
      for (const c of cases) {
        test(`${c.name}: plan(object), plan(text) and planJson(text) give the golden bytes`, () => {
          const text = vectorText(c.request);
          const expected = golden(c.name);
          const result = api().plan(JSON.parse(text));
          assert.equal(bytes(result), expected, 'plan(object)');
          assert.equal(bytes(api().plan(text)), expected, 'plan(text)');
          assert.equal(api().planJson(text) + '\n', expected, 'planJson(text)');
          assert.equal(result.ok, c.status === 0, 'ok mirrors the exit status (1: not plannable)');
          if (!result.ok) {
            assert.equal(result.kernels, undefined);
            assert.ok(result.attempts.length > 0);
          }
        });
      }
      test('--pretty is JSON.stringify(result, null, 2)', () => {
        const text = vectorText('requests/default-explained.json');
        assert.equal(JSON.stringify(api().plan(JSON.parse(text)), null, 2) + '\n', golden('plan-pretty'));
      });
      test('the README examples work as documented', () => {
        const target = api().linuxCuda({ enableLibTorch: true });
        const result = api().plan({
          ops: ['matmul', 'softmax'],
          target,
          configs: [{ device: 'cuda', backend: { prefer: 'cuBLAS' } }, { device: 'cpu' }],
          capsules: [
            { name: 'cublas.matmul', op: 'matmul', provider: 'cuBLAS', device: 'cuda', trustLevel: 'verified', vjpMode: 'backendVJP' },
            { name: 'ref.matmul', op: 'matmul', provider: 'reference', device: 'cpu', trustLevel: 'checked', vjpMode: 'torchLeanTape' },
            { name: 'ref.softmax', op: 'softmax', provider: 'reference', device: 'cpu', trustLevel: 'checked', vjpMode: 'torchLeanTape' },
          ],
          mode: 'perOp',
        });
        assert.equal(result.ok, true);
        assert.deepEqual(result.kernels.map((k) => [k.op, k.capsule, k.device, k.configIndex]),
          [['matmul', 'cublas.matmul', 'cuda', 0], ['softmax', 'ref.softmax', 'cpu', 1]]);
        const e = throwsCode(() => api().plan({
          ops: ['matmul'],
          capsules: [{ name: 'x', op: 'matmul', provider: 'cuBLAS', device: 'cuda', trustLevel: 'trusted' }],
        }), 'unknown-variant', 'capsules[0].trustLevel', 'README error example');
        assert.deepEqual(e.expected, SPELLINGS.TrustLevel);
      });
    });

    describe('invalid input', () => {
      test('every malformed request through planJson and plan(text): code, path, expected', () => {
        const corpus = malformedCases();
        assert.ok(corpus.length >= 50);
        for (const m of corpus) {
          throwsCode(() => api().planJson(m.input), m.code, m.path, `planJson ${m.name}`);
          throwsCode(() => api().plan(m.input), m.code, m.path, `plan(text) ${m.name}`);
        }
      });

      test('plan(object) with a bad spelling lists the valid spellings in expected, and says which it meant or lists them', () => {
        const capsule = { name: 'a', op: 'matmul', provider: 'reference', device: 'cpu', trustLevel: 'checked' };
        const rows = [
          [{ ops: ['matMul'] }, 'ops[0]', 'BackendOp'],
          [{ ops: [], target: { os: 'MacOS' } }, 'target.os', 'OperatingSystem'],
          [{ ops: [], target: { arch: 'arm64' } }, 'target.arch', 'Architecture'],
          [{ ops: [], target: { accelerator: 'gpu' } }, 'target.accelerator', 'Accelerator'],
          [{ ops: [], target: { features: ['webGpu', 'WebGPU'] } }, 'target.features[1]', 'BuildFeature'],
          [{ ops: [], availability: { devices: ['cpu', 'gpu'] } }, 'availability.devices[1]', 'Device'],
          [{ ops: [], availability: { providers: ['cublas'] } }, 'availability.providers[0]', 'Provider'],
          [{ ops: [], config: { device: 'GPU' } }, 'config.device', 'Device'],
          [{ ops: [], configs: [{}, { trustPolicy: 'fuzzed' }] }, 'configs[1].trustPolicy', 'TrustPolicy'],
          [{ ops: [], config: { vjpMode: 'backendVjp' } }, 'config.vjpMode', 'VJPMode'],
          [{ ops: [], config: { backend: 'best' } }, 'config.backend', 'BackendPreference'],
          [{ ops: [], config: { backend: { only: 'torch' } } }, 'config.backend.only', 'Provider'],
          [{ ops: [], capsules: [capsule, { ...capsule, trustLevel: 'trusted' }] }, 'capsules[1].trustLevel', 'TrustLevel'],
          [{ ops: [], capsules: [{ ...capsule, vjpMode: 'tape' }] }, 'capsules[0].vjpMode', 'VJPMode'],
          [{ ops: [], capsules: [{ ...capsule, device: 'gpu' }] }, 'capsules[0].device', 'Device'],
          [{ ops: [], mode: 'per-op' }, 'mode', 'PlanMode'],
        ];
        for (const [request, path, enumName] of rows) {
          const e = throwsCode(() => api().plan(request), 'unknown-variant', path, path);
          assert.deepEqual(e.expected, SPELLINGS[enumName], `${path}: expected lists the ${enumName} spellings`);
          const meant = e.message.match(/: did you mean "([^"]+)"\?$/);
          if (meant) assert.ok(e.expected.includes(meant[1]), e.message);
          else assert.ok(e.message.includes(e.expected.join(', ')), e.message);
        }
        // Close misspellings name what they meant; a far one lists every spelling.
        assert.match(throwsCode(() => api().plan({ ops: ['matMul'] }), 'unknown-variant', 'ops[0]').message, /did you mean "matmul"\?$/);
        assert.match(throwsCode(() => api().plan({ ops: [], target: { os: 'MacOS' } }), 'unknown-variant', 'target.os').message, /did you mean "macOS"\?$/);
        assert.ok(throwsCode(() => api().plan({ ops: [], target: { arch: 'arm64' } }), 'unknown-variant', 'target.arch').message
          .includes(SPELLINGS.Architecture.join(', ')));
      });

      test('non-ASCII text crosses the boundary intact (objects, text, planJson)', () => {
        // The module copies strings in with TextEncoder.encodeInto: check
        // multi-byte characters, a surrogate pair and a lone surrogate.
        const spelling = 'lïnux-🐧';
        const request = { ops: [], target: { os: spelling } };
        for (const call of [() => api().plan(request), () => api().plan(JSON.stringify(request)), () => api().planJson(JSON.stringify(request))]) {
          const e = throwsCode(call, 'unknown-variant', 'target.os', spelling);
          assert.ok(e.message.includes(`"${spelling}"`), e.message);
        }
        const withLoneSurrogate = '{"ops":[],"target":{"os":"a' + String.fromCharCode(0xd800) + 'b"}}';
        // A lone surrogate is refused, never replaced with U+FFFD: UTF-8 cannot carry it.
        const lone = throwsCode(() => api().planJson(withLoneSurrogate), 'invalid-json', '', 'lone surrogate');
        assert.ok(lone.message.includes('lone surrogate at UTF-16 index 27'), lone.message);
        for (let k = 0; k < 8; k++) {
          // Around the first attempt's room (a byte per UTF-16 unit, plus 4).
          const spelling = `os-${'é'.repeat(k)}${'🐧'.repeat(k % 3)}`;
          const e = throwsCode(() => api().planJson(JSON.stringify({ ops: [], target: { os: spelling } })), 'unknown-variant', 'target.os', spelling);
          assert.ok(e.message.includes(`"${spelling}"`), e.message);
        }
        // 200 KB of multi-byte names (each within the nameBytes limit) come back whole;
        // a message quotes a long value only in part, so that it stays short.
        const names = Array.from({ length: 200 }, (_, i) => `${'é'.repeat(500)}${i}`);
        const capsules = names.map((name) => ({ name, op: 'add', provider: 'reference', device: 'cpu', trustLevel: 'checked', vjpMode: 'torchLeanTape' }));
        const out = api().planJson(JSON.stringify({ ops: ['add'], capsules }));
        for (const name of names) assert.ok(out.includes(`"${name}"`), 'a 1 KB multi-byte name comes back whole');
        const long = 'é'.repeat(100_000);
        const big = throwsCode(() => api().planJson(JSON.stringify({ ops: [], target: { os: long } })), 'unknown-variant', 'target.os', 'long text');
        assert.ok(big.message.includes(`"${'é'.repeat(32)}"… (200000 bytes)`), big.message);
      });

      test('plan(object) reports structural errors with their paths', () => {
        const e = throwsCode(() => api().plan({ ops: [], opz: [] }), 'unknown-field', 'opz');
        assert.deepEqual(e.expected, ['ops', 'config', 'configs', 'target', 'availability', 'capsules', 'mode', 'explain']);
        throwsCode(() => api().plan({}), 'missing-field', 'ops');
        throwsCode(() => api().plan({ ops: 'matmul' }), 'wrong-type', 'ops');
        throwsCode(() => api().plan({ ops: [], config: {}, configs: [{}] }), 'conflicting-fields', 'configs');
        throwsCode(() => api().plan({ ops: [], configs: [] }), 'empty-list', 'configs');
        throwsCode(() => api().plan({ ops: [], target: null }), 'wrong-type', 'target');
        throwsCode(() => api().plan({ ops: [], capsules: [{ op: 'add' }] }), 'missing-field', 'capsules[0].name');
        throwsCode(() => api().plan({ ops: [], explain: 'yes' }), 'wrong-type', 'explain');
        throwsCode(() => api().plan([]), 'wrong-type', '');
        throwsCode(() => api().plan(5), 'wrong-type', '');
        throwsCode(() => api().plan(null), 'wrong-type', '');
      });

      test('non-JSON-able inputs throw with a code instead of crashing', () => {
        const circular = { ops: [] };
        circular.self = circular;
        // [what, value, path for plan]: a value JSON cannot represent is refused
        // where it stands (a BigInt inside the request: at its field).
        const bad = [
          ['a BigInt inside', { ops: ['matmul'], explain: 1n }, 'explain'],
          ['a BigInt', 10n, ''],
          ['a function', () => ({ ops: [] }), ''],
          ['a symbol', Symbol('request'), ''],
          ['a circular object', circular, ''],
        ];
        for (const [what, value, planPath] of bad) {
          throwsCode(() => api().plan(value), 'wrong-type', planPath, `plan(${what})`);
          if (planPath !== '') continue; // the other functions take a Target, not a request
          for (const fn of ['parseTarget', 'devices', 'providers', 'declaredAvailability']) {
            throwsCode(() => api()[fn](value), 'wrong-type', '', `${fn}(${what})`);
          }
          throwsCode(() => api().linuxCuda(value), 'wrong-type', '', `linuxCuda(${what})`);
        }
        // A BigInt inside a Target is refused at its field by every function taking one.
        for (const fn of ['parseTarget', 'devices', 'providers', 'declaredAvailability']) {
          throwsCode(() => api()[fn]({ os: 'linux', arch: 1n }), 'wrong-type', 'arch', `${fn}(a BigInt inside)`);
        }
        throwsCode(() => api().linuxCuda({ enableLibTorch: 1n }), 'wrong-type', 'enableLibTorch', 'linuxCuda({enableLibTorch: 1n})');
        // A function or a symbol property is refused, not silently dropped.
        throwsCode(() => api().plan({ ops: ['matmul'], mode: Symbol('perOp') }), 'wrong-type', 'mode', 'a symbol property');
        throwsCode(() => api().plan({ ops: ['matmul'], explain() { return true; } }), 'wrong-type', 'explain', 'a function property');
        throwsCode(() => api().plan(undefined), 'missing-field', '', 'plan(undefined)');
        throwsCode(() => api().plan(), 'missing-field', '', 'plan()');
        // A value JSON turns into null is refused where null is not allowed.
        throwsCode(() => api().plan({ ops: [() => 'matmul'] }), 'wrong-type', 'ops[0]', 'a function in a list');
        throwsCode(() => api().plan({ ops: [NaN] }), 'wrong-type', 'ops[0]', 'NaN in a list');
        answersNormally('after non-JSON-able inputs');
      });
    });

    describe('instance recovery', () => {
      const errorKinds = () => {
        const malformed = malformedCases();
        const byCode = new Map();
        for (const m of malformed) if (!byCode.has(m.code)) byCode.set(m.code, m);
        const kinds = [...byCode.values()].map((m) => [`planJson ${m.code} (${m.name})`, () => api().planJson(m.input)]);
        kinds.push(
          ['plan(object) unknown-variant', () => api().plan({ ops: ['matMul'] })],
          ['unsupported-option', () => api().linuxRocm({ arch: 'x86_64' })],
          ['schema unknown-variant', () => api().schema('Plan')],
          ['schema wrong-type', () => api().schema(1)],
          ['BigInt', () => api().plan({ ops: [], explain: 1n })],
          ['function', () => api().plan(() => 1)],
          ['undefined', () => api().plan(undefined)],
          ['circular', () => { const o = { ops: [] }; o.o = o; return api().plan(o); }],
        );
        return kinds;
      };

      test('after every kind of error, several times in a row, the next calls answer correctly', () => {
        for (let round = 0; round < 3; round++) {
          for (const [what, fn] of errorKinds()) {
            assert.throws(fn, (e) => e.name === 'BackendTargetsError' && typeof e.code === 'string', what);
            answersNormally(`round ${round}, after ${what}`);
          }
          // Many errors back to back, then a normal answer.
          for (let i = 0; i < 50; i++) for (const [, fn] of errorKinds()) assert.throws(fn);
          answersNormally(`round ${round}, after a burst of errors`);
        }
      });

      test('after __forcePanicForTesting() (a WebAssembly.RuntimeError), the next calls answer correctly', () => {
        for (let i = 0; i < 5; i++) {
          assert.throws(() => testApi().__forcePanicForTesting(), WebAssembly.RuntimeError, `panic ${i}`);
          // The first call after the panic takes its arguments as a JS value.
          assert.equal(bytes(testApi().plan(JSON.parse(sampleRequest()))), sampleGolden(), `after panic ${i}: plan`);
          answersNormallyOn(testApi, `after panic ${i}`);
        }
        // Two panics in a row, then an error, then a panic, then answers.
        assert.throws(() => testApi().__forcePanicForTesting(), WebAssembly.RuntimeError);
        assert.throws(() => testApi().__forcePanicForTesting(), WebAssembly.RuntimeError);
        throwsCode(() => testApi().plan({ ops: ['matMul'] }), 'unknown-variant', 'ops[0]', 'error after panics');
        assert.throws(() => testApi().__forcePanicForTesting(), WebAssembly.RuntimeError);
        throwsCode(() => testApi().linuxRocm({ os: 'linux' }), 'unsupported-option', 'os', 'error after panic');
        answersNormallyOn(testApi, 'after panics and errors');
      });

      test('the first call after a panic, whatever its kind, answers (presets, preset, schema)', () => {
        const firsts = [
          () => assert.equal(bytes(testApi().presets()), golden('presets')),
          () => assert.equal(bytes(testApi().linuxCpu({ arch: 'wasm32' })), golden('target-linuxCpu-arch')),
          () => assert.deepEqual(testApi().schema('Target'), JSON.parse(golden('schema-Target'))),
          () => assert.equal(testApi().referenceCapsules().length, 68),
          () => assert.deepEqual(testApi().devices(presetFn('wasm')()), ['cpu', 'wasm']),
        ];
        for (const first of firsts) {
          assert.throws(() => testApi().__forcePanicForTesting(), WebAssembly.RuntimeError);
          first();
        }
      });

      test('planJson as the first call after a panic answers', () => {
        for (let i = 0; i < 3; i++) {
          assert.throws(() => testApi().__forcePanicForTesting(), WebAssembly.RuntimeError);
          assert.equal(testApi().planJson(sampleRequest()) + '\n', sampleGolden(), `planJson right after panic ${i}`);
        }
      });

      test('memory stays bounded over many calls and errors', () => {
        const memory = () => api().initSync().memory.buffer.byteLength;
        for (let i = 0; i < 50; i++) api().planJson(sampleRequest());
        const before = memory();
        for (let i = 0; i < 1000; i++) {
          api().plan(JSON.parse(sampleRequest()));
          try { api().planJson('{"ops": ["matMul"]}'); } catch { /* expected */ }
        }
        assert.ok(memory() - before <= 1 << 20, `memory grew from ${before} to ${memory()} bytes`);
        answersNormally('after many calls');
      });
    });

    test('planJson with a non-string throws a BackendTargetsError', () => {
      for (const value of [undefined, null, 5, { ops: [] }]) {
        throwsCode(() => api().planJson(value), 'wrong-type', '', `planJson(${String(value)})`);
      }
    });

    test('planJson with a non-string does not poison the instance', () => {
      for (const value of [undefined, null, 5, { ops: [] }, true]) {
        assert.throws(() => api().planJson(value), `planJson(${String(value)}) throws`);
        answersNormally(`after planJson(${String(value)})`);
      }
    });
  });
}

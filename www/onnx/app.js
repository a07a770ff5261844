// The ONNX Runtime Web example (see index.html): the decision with
// backend-targets, then the runtime it chose. The mapping from a plan to an
// execution provider is the app's: here every kernel on webGpu → 'webgpu',
// else 'wasm' (ONNX Runtime's CPU kernels compiled to WebAssembly).
import init, { detect, plan } from '../../pkg/index.js';
import { $, chip, code, h, table } from '../dom.js';
import { ortTimes } from './ort-times.js';

/** The model's ops, in the package's vocabulary. */
const OPS = ['matmul', 'add', 'relu'];
/** What the app can run them with: ONNX Runtime's WebGPU kernels, or its wasm (CPU) ones. */
const CAPSULES = [
  ...OPS.map((op) => ({ name: `ort.webgpu.${op}`, op, provider: 'webGpu', device: 'wasm', trustLevel: 'checked', vjpMode: 'none' })),
  ...OPS.map((op) => ({ name: `ort.wasm.${op}`, op, provider: 'reference', device: 'cpu', trustLevel: 'checked', vjpMode: 'none' })),
];
/** Inference only: no config asks for a VJP (the default, torchLeanTape, would refuse these capsules). */
const CONFIGS = [
  { device: 'wasm', backend: { only: 'webGpu' }, vjpMode: 'none' },
  { device: 'cpu', vjpMode: 'none' },
];
export const INPUT = [2, 1, 1, 1];
/**
 * A software (fallback) adapter runs WebGPU kernels on the CPU, far slower
 * than ONNX Runtime's wasm ones (about 60× for a small MLP, measured): the
 * recipe refuses it. `?allowFallbackAdapter=true` shows the other choice.
 */
const PARAMS = new URLSearchParams(location.search);
const ALLOW_FALLBACK = PARAMS.get('allowFallbackAdapter') === 'true';
/**
 * The recipe verifies a real adapter (`verify`: right numbers, no slower than
 * WebAssembly) before it commits to it; `?verify=false` shows the decision on
 * presence alone. `?compare=true` also measures ONNX Runtime Web's own times
 * for this model on both execution providers, beside the verdict.
 */
const VERIFY = PARAMS.get('verify') !== 'false';
const COMPARE = PARAMS.get('compare') === 'true';

async function main() {
  await init();
  const { availability, changes, probe } = await detect({ allowFallbackAdapter: ALLOW_FALLBACK, verify: VERIFY });
  const result = plan({ ops: OPS, configs: CONFIGS, capsules: CAPSULES, availability, mode: 'wholePlan' });
  if (!result.ok) throw new Error('no config serves every op');
  const ep = result.kernels.every((k) => k.provider === 'webGpu') ? 'webgpu' : 'wasm';
  const other = ALLOW_FALLBACK ? '?allowFallbackAdapter=false' : '?allowFallbackAdapter=true';
  $('plan').replaceChildren(
    h('p', null, 'detect({ allowFallbackAdapter: ', code(String(ALLOW_FALLBACK)), ' }): webGpu ',
      chip(changes[0].action, changes[0].action), ' ', code(changes[0].reason), ' — ', changes[0].detail, ' ',
      h('a', { href: other }, `(try allowFallbackAdapter: ${!ALLOW_FALLBACK})`)),
    probe.verification && h('p', null, 'Verified on the adapter: ', code(probe.reason), ' — GPU ',
      code(`${probe.verification.gpuMs ?? '?'} ms`), ' against WebAssembly ', code(`${probe.verification.wasmMs ?? '?'} ms`),
      ` a pass of a 6-layer 256-wide MLP (ratio ${probe.verification.ratio ?? '?'}, kept up to ${probe.verification.margin}).`),
    h('p', null, `config #${result.configIndex} won → execution provider `, code(ep)),
    h('div', { class: 'table-wrap' }, table(['op', 'capsule', 'provider', 'device'], result.kernels.map((k) =>
      h('tr', null, h('td', null, code(k.op)), h('td', null, code(k.capsule)), h('td', null, chip(k.provider, 'provider')),
        h('td', null, chip(k.device, 'device')))), 'kernels')));
  $('status').replaceChildren('Decided: ', code(ep), '; loading ONNX Runtime Web for it…');

  // Only now, and only the build for that provider.
  const ort = await import(ep === 'webgpu' ? './ort/ort.webgpu.min.mjs' : './ort/ort.wasm.min.mjs');
  ort.env.wasm.numThreads = 1; // the page is not cross-origin isolated
  ort.env.wasm.wasmPaths = new URL('./ort/', import.meta.url).href;
  const session = await ort.InferenceSession.create(new URL('./tiny.onnx', import.meta.url).href,
    { executionProviders: [ep] });
  const { y } = await session.run({ x: new ort.Tensor('float32', Float32Array.from(INPUT), [1, INPUT.length]) });
  $('input').textContent = JSON.stringify(INPUT);
  $('output').textContent = JSON.stringify({ executionProvider: ep, dims: y.dims, y: Array.from(y.data) });
  $('status').replaceChildren('Ran on ', code(ep), '.');
  if (COMPARE) {
    const times = await ortTimes(new URL('./tiny.onnx', import.meta.url).href, INPUT);
    $('plan').append(h('p', null, 'ONNX Runtime Web\'s own times for this model, a run: webgpu ',
      code(`${times.webgpu.toFixed(2)} ms`), ', wasm ', code(`${times.wasm.toFixed(2)} ms`), '.'));
    document.body.dataset.ortWebgpuMs = String(times.webgpu);
    document.body.dataset.ortWasmMs = String(times.wasm);
  }
  document.body.dataset.ep = ep;
  document.body.dataset.reason = changes[0].reason;
  document.body.dataset.ready = 'true';
}

main().catch((error) => {
  $('status').replaceChildren(h('span', { class: 'error' }, `The example failed: ${error?.message ?? error}`));
  document.body.dataset.ready = 'error';
  console.error(error);
});

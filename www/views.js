// The demo's read-only panels: the decision an inference app makes, drawn
// as a flow, the presets table, the live probe's report, the worker's answer
// set against the page's, and the declared → effective diff of the `wasm`
// target. Each render function replaces its panel's content.
import { $, chip, chips, code, formatMs, formatNumber, h, jsonInline, jsonLines, table } from './dom.js';

/** A resolution without its timing, for comparing two probes. */
export function withoutTiming(resolution) {
  const copy = structuredClone(resolution);
  delete copy.probe.elapsedMs;
  return copy;
}

// ---------------------------------------------------------------- presets

export function renderPresets({ presets, declaredAvailability }) {
  const rows = presets().map(({ name, target }) => {
    const availability = declaredAvailability(target);
    const probed = target.features.includes('webGpu');
    return h('tr', { class: probed && 'probed-row' },
      h('th', { scope: 'row' }, code(name), probed && h('div', { class: 'tag' }, 'webGpu is probed')),
      h('td', null, target.os),
      h('td', null, target.arch),
      h('td', null, target.accelerator),
      h('td', null, chips(target.features, 'feature')),
      h('td', { class: 'nowrap' }, chips(availability.devices, 'device')),
      h('td', null, chips(availability.providers, 'provider')));
  });
  $('presets').replaceChildren(
    ...table(['preset', 'os', 'arch', 'accelerator', 'features', 'devices', 'providers'], rows).childNodes);
}

// ---------------------------------------------------------------- probe

export function renderProbe(resolution) {
  const { probe } = resolution;
  const adapter = probe.adapter;
  const facts = [
    ['reason', code(probe.reason)],
    ['secure context', globalThis.isSecureContext ? 'yes' : 'no (WebGPU needs https or localhost)'],
    ['navigator.gpu', probe.apiPresent ? 'present' : 'absent'],
  ];
  if (adapter) {
    facts.push(
      ['adapter vendor', adapter.info.vendor || '—'],
      ['architecture', adapter.info.architecture || '—'],
      ['device', adapter.info.device || '—'],
      ['description', adapter.info.description || '—'],
      ['fallback adapter', adapter.isFallbackAdapter ? 'yes (software)' : 'no'],
    );
  } else {
    facts.push(['adapter', 'none']);
  }
  facts.push(['elapsed', formatMs(probe.elapsedMs)], ['timeout', `${formatNumber(probe.timeoutMs)} ms`]);
  if (probe.deviceVerified !== undefined) facts.push(['device verified', probe.deviceVerified ? 'yes' : 'no']);
  const badge = probe.available
    ? h('p', { class: 'badge badge-ok' }, 'WebGPU available')
    : h('p', { class: 'badge badge-warn' }, 'WebGPU unavailable');
  const parts = [
    h('div', { class: 'probe-head' }, badge, h('p', { class: 'probe-message' }, probe.message)),
    h('dl', { class: 'facts' }, facts.map(([k, v]) => [h('dt', null, k), h('dd', null, v)])),
  ];
  if (adapter) {
    const limits = Object.entries(adapter.limits);
    parts.push(
      h('h3', null, 'Features ', h('span', { class: 'count' }, adapter.features.length)),
      chips(adapter.features, 'feature'),
      h('details', { class: 'limits', open: true },
        h('summary', null, 'Limits ', h('span', { class: 'count' }, limits.length)),
        h('dl', { class: 'limit-grid' },
          limits.map(([name, value]) => h('div', null, h('dt', null, name), h('dd', null, formatNumber(value)))))));
  }
  $('probe').replaceChildren(...parts);
}

export function renderWorker(state, pageResolution) {
  const box = $('worker');
  if (state.error) {
    box.replaceChildren(h('p', { class: 'error' }, `The worker failed: ${state.error}`));
    return;
  }
  if (!state.resolution) {
    box.replaceChildren(h('p', { class: 'muted' }, 'Probing in the worker…'));
    return;
  }
  const { probe } = state.resolution;
  const change = state.resolution.changes[0];
  const same = pageResolution
    && JSON.stringify(withoutTiming(state.resolution)) === JSON.stringify(withoutTiming(pageResolution));
  box.replaceChildren(
    h('p', null,
      h('span', { class: ['chip', change.action === 'kept' ? 'chip-kept' : 'chip-dropped'] }, `webGpu ${change.action}`),
      ' ', code(change.reason), ` in ${formatMs(probe.elapsedMs)} — `,
      pageResolution
        ? h('span', { class: same ? 'same' : 'differs' }, same ? 'the same answer as the page' : 'a different answer from the page')
        : ''),
    h('details', null, h('summary', null, 'The worker’s resolution'),
      h('pre', { id: 'worker-resolution', class: 'json' }, jsonLines(state.resolution))));
}

// ---------------------------------------------------------------- declared → effective

export function renderDiff(resolution, { declaredAvailability }) {
  const { declared, effective, changes, availability } = resolution;
  const declaredAvailabilityOfTarget = declaredAvailability(declared);
  const featureRows = declared.features.map((feature) => {
    const change = changes.find((c) => c.feature === feature);
    const inEffective = effective.features.includes(feature);
    return h('tr', null,
      h('th', { scope: 'row' }, code(feature)),
      h('td', null, 'declared'),
      h('td', null, inEffective ? 'present' : h('span', { class: 'removed' }, 'absent')),
      h('td', null, change
        ? chip(change.action, change.action === 'kept' ? 'kept' : 'dropped')
        : chip('as declared', 'neutral')),
      h('td', null, change ? code(change.reason) : h('span', { class: 'muted' }, 'not probed')),
      h('td', null, change ? change.detail : 'a browser cannot probe it'));
  });
  const listDiff = (before, after) => h('span', { class: 'chips' },
    before.map((item) => after.includes(item) ? chip(item) : chip(item, 'removed-chip')),
    after.filter((item) => !before.includes(item)).map((item) => chip(item, 'added')));
  const droppedProviders = declaredAvailabilityOfTarget.providers.filter((p) => !availability.providers.includes(p));
  const change = changes.find((c) => c.feature === 'webGpu');
  const capabilities = availability.webGpu
    ? `attached: ${availability.webGpu.features.length} features, ${Object.keys(availability.webGpu.limits).length} limits — capsules’ requirements are checked against them`
    : 'none — capsules that state WebGPU requirements would be admitted as unverified';
  $('diff').replaceChildren(
    h('p', { class: 'target-line' },
      'declared ', jsonInline(declared), h('br'), 'effective ', jsonInline(effective)),
    h('div', { class: 'table-wrap' }, table(['feature', 'declared', 'effective', 'action', 'reason', 'detail'], featureRows, 'diff-table')),
    h('dl', { class: 'facts facts-wide' },
      h('dt', null, 'devices'), h('dd', null, listDiff(declaredAvailabilityOfTarget.devices, availability.devices)),
      h('dt', null, 'providers'), h('dd', null, listDiff(declaredAvailabilityOfTarget.providers, availability.providers),
        droppedProviders.length && change
          ? h('span', { class: 'muted' }, ` — ${droppedProviders.join(', ')} removed: `, code(change.reason))
          : ''),
      h('dt', null, 'WebGPU capabilities'), h('dd', null, capabilities),
      h('dt', null, 'kept as declared'), h('dd', null, chips(resolution.asDeclared, 'feature'))));
}

// ---------------------------------------------------------------- verify

/** A horizontal bar of `value` against `largest`, labelled. */
function bar(label, value, largest, kind) {
  const width = largest > 0 ? Math.max(2, Math.round((value / largest) * 100)) : 0;
  return h('div', { class: 'bar-row' },
    h('span', { class: 'bar-label' }, label),
    h('span', { class: 'bar-track' }, h('span', { class: `bar bar-${kind}`, 'data-width': width })),
    h("span", { class: "bar-value" }, value === undefined ? "—" : `${value.toFixed(2)} ms`));
}

/** The verdict of `detect({ verify })`: what was decided, then the two times
 *  as bars, the error against its tolerance, and the figures. */
export function renderVerification(resolution) {
  const { probe } = resolution;
  const v = probe.verification;
  if (!v) {
    $('verify').replaceChildren(h('p', { class: 'note' },
      'Nothing to verify: ', code(probe.reason), ' — ', probe.message));
    document.body.dataset.verdict = probe.reason;
    return;
  }
  const kept = probe.reason === 'verified';
  const largest = Math.max(v.gpuMs ?? 0, v.wasmMs ?? 0);
  const errorOk = v.maxError !== undefined && v.maxError <= v.tolerance;
  const parts = [
    h('div', { class: 'probe-head' },
      h('p', { class: `badge ${kept ? 'badge-ok' : 'badge-warn'}` }, kept ? 'use webgpu' : 'use wasm'),
      h('p', { class: 'probe-message' }, code(probe.reason), ' — ', probe.message)),
    h('div', { class: 'bars', role: 'img', 'aria-label': `GPU ${v.gpuMs ?? '?'} ms, WebAssembly ${v.wasmMs ?? '?'} ms a pass` },
      bar('GPU', v.gpuMs, largest, kept ? 'ok' : 'bad'),
      bar('WebAssembly', v.wasmMs, largest, 'neutral')),
    h('dl', { class: 'facts' }, [
      ['numbers', v.maxError === undefined ? '—' : `${errorOk ? 'right' : 'wrong'}: largest error ${v.maxError.toExponential(2)} (tolerance ${v.tolerance}) at ${v.maxErrorAt}`],
      ['ratio', v.ratio === undefined ? '—' : `${v.ratio} (kept up to ${v.margin})`],
      ['checked', v.checked.join(', ') || 'nothing'],
      ['workload', v.workload],
      ['took', `${formatMs(v.elapsedMs)} of a ${formatNumber(v.budgetMs)} ms budget${v.cached ? ' (from the cache)' : ''}`],
      ['cache key', code(v.adapterKey)],
    ].map(([k, value]) => [h('dt', null, k), h('dd', null, value)])),
  ];
  $('verify').replaceChildren(...parts);
  // Widths set after the nodes exist: the page's CSP allows no inline styles in markup.
  for (const el of document.querySelectorAll('#verify .bar')) el.style.width = `${el.dataset.width}%`;
  document.body.dataset.verdict = probe.reason;
}

// ---------------------------------------------------------------- decision

// Where each reason stops the flow: the step that failed (see renderDecision).
const STOPPED_AT = {
  'no-navigator': 'api', 'no-webgpu-api': 'api',
  'no-adapter': 'adapter', 'adapter-request-failed': 'adapter', 'adapter-unreadable': 'adapter', timeout: 'adapter',
  'device-request-failed': 'adapter',
  'fallback-adapter': 'software',
  'wrong-results': 'verified', 'slower-than-wasm': 'verified', 'device-lost': 'verified', 'verify-failed': 'verified',
  'verify-timeout': 'verified',
};

/**
 * The recipes' decision (`detect({ allowFallbackAdapter: false, verify: true })`)
 * drawn as a flow: the WebGPU API → an adapter → software? → its limits and
 * features → verified? → the choice (`executionProviders`, `transformersOptions`).
 * Each step passed, failed (the reason and the probe's words), or not reached.
 */
export function renderDecision(resolution, { executionProviders, transformersOptions }) {
  const { probe } = resolution;
  const adapter = probe.adapter;
  const stop = STOPPED_AT[probe.reason];
  const providers = executionProviders(resolution);
  const options = transformersOptions(resolution);
  const webgpu = providers[0] === 'webgpu';
  const v = probe.verification;
  const steps = [
    ['api', 'WebGPU API', probe.apiPresent ? ['navigator.gpu is there'] : ['no navigator.gpu']],
    // (The probe's message opens with the adapter's name: "adapter google swiftshader: …".)
    ['adapter', 'An adapter', adapter ? [probe.message.split(':')[0]] : []],
    ['software', 'Software?', adapter
      ? [adapter.isFallbackAdapter ? 'a software adapter (it runs on the CPU): refused' : 'no: a hardware adapter']
      : []],
    ['limits', 'Limits & features', adapter
      ? [`${adapter.features.length} features, ${Object.keys(adapter.limits).length} limits read`,
        adapter.features.includes('shader-f16') ? 'shader-f16: fp16 possible' : 'no shader-f16: fp32']
      : []],
    ['verified', 'Verified?', v
      ? [probe.reason === 'verified' ? 'right numbers, no slower than WebAssembly' : '',
        v.gpuMs !== undefined && v.wasmMs !== undefined ? `GPU ${v.gpuMs.toFixed(2)} ms, WebAssembly ${v.wasmMs.toFixed(2)} ms a pass` : '']
      : []],
  ];
  const order = steps.map(([id]) => id);
  const reached = (id) => stop === undefined || order.indexOf(id) <= order.indexOf(stop);
  const items = steps.map(([id, title, lines]) => {
    const state = id === stop ? 'fail' : reached(id) ? 'pass' : 'skip';
    const mark = { pass: 'yes', fail: 'stop', skip: 'not reached' }[state];
    return h('li', { class: ['flow-step', `flow-${state}`], dataset: { step: id, state } },
      h('span', { class: 'flow-title' }, title),
      h('span', { class: ['chip', state === 'pass' ? 'chip-kept' : state === 'fail' ? 'chip-dropped' : 'chip-neutral'] }, mark),
      id === stop ? h('span', { class: 'flow-line' }, code(probe.reason)) : '',
      lines.filter(Boolean).map((line) => h('span', { class: 'flow-line' }, line)));
  });
  items.push(h('li', { class: ['flow-step', 'flow-choice', webgpu ? 'flow-webgpu' : 'flow-wasm'], dataset: { step: 'choice', state: 'choice' } },
    h('span', { class: 'flow-title' }, 'Choice'),
    h('strong', { class: 'flow-use' }, `use ${providers[0]}`),
    h('span', { class: 'flow-line' }, 'ONNX Runtime Web: ', code(JSON.stringify(providers))),
    h('span', { class: 'flow-line' }, 'Transformers.js: ', code(`device '${options.device}', dtype '${options.dtype}'`))));
  $('decision').replaceChildren(
    h('p', { class: ['badge', webgpu ? 'badge-ok' : 'badge-warn', 'decision-badge'] },
      webgpu ? 'use webgpu' : `use wasm: ${probe.reason}`),
    h('p', { class: 'probe-message decision-message' }, probe.message),
    h('ol', { id: 'flow', class: 'flow', 'aria-label': 'How the decision was made' }, items));
  document.body.dataset.decision = providers[0];
}

// The demo's read-only panels: the decision an inference app makes, drawn
// as a flow, the presets table, the live probe's report (its badge told by
// that decision), the worker's decision set against the page's, the
// verification's figures, and the declared → effective diff of the `wasm`
// target. Each render function replaces its panel's content.
import { $, chip, chips, code, formatMs, formatNumber, h, jsonInline, jsonLines, table } from './dom.js';

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

// Why a decision dropped an adapter the plain probe found, by its reason.
const DROPPED_BECAUSE = {
  'wrong-results': 'its numbers were wrong',
  'slower-than-wasm': 'it computed right, but slower than WebAssembly',
  'device-lost': 'its device was lost while verifying',
  'verify-failed': 'a WebGPU call failed while verifying',
  'verify-timeout': 'its verification ran past its budget',
};

/**
 * The probe panel's badge, told by the decision above it: the plain probe
 * keeps a software adapter (its default), the decision does not, and a real
 * adapter is "available" only once the decision uses it. `decision` is
 * undefined while the page is still deciding. Returns `{ kind, text, why }`.
 */
export function probeBadge(probe, decision, { executionProviders }) {
  const adapter = probe.adapter;
  const use = decision && executionProviders(decision)[0];
  const reason = decision?.probe.reason;
  if (!probe.available || !adapter) {
    // (The decision probes on its own: a GPU process that answered it late.)
    return { kind: 'warn', text: 'WebGPU unavailable', why: use === 'webgpu'
      ? ['This probe found none; the decision above, probing on its own, did: use webgpu.'] : null };
  }
  if (adapter.isFallbackAdapter) {
    return {
      kind: 'warn',
      text: 'WebGPU: software adapter only',
      why: reason === 'fallback-adapter' || !decision
        ? ['It runs WebGPU on the CPU, far slower than WebAssembly: the decision above refuses it (',
          code('allowFallbackAdapter: false'), ') and uses wasm.']
        : ['It runs WebGPU on the CPU. The decision above: use ', use, ' (', code(reason), ').'],
    };
  }
  if (!decision) {
    return { kind: 'neutral', text: 'WebGPU adapter found', why: ['The decision above is still checking it.'] };
  }
  if (use === 'webgpu') {
    return {
      kind: 'ok',
      text: 'WebGPU available',
      why: reason === 'verified'
        ? ['The decision above uses it: it computed right, no slower than WebAssembly.']
        : ['The decision above uses it.'],
    };
  }
  return {
    kind: 'warn',
    text: 'WebGPU: adapter not used',
    why: ['The decision above drops it (', code(reason), '): ',
      DROPPED_BECAUSE[reason] ?? 'its own probe found no adapter to use', '.'],
  };
}

/** The plain probe's report (`detect()`, default options), under the
 *  decision: `decision` is the recipes' resolution, or undefined while the
 *  page is still deciding. */
export function renderProbe(resolution, decision, api) {
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
  const badge = probeBadge(probe, decision, api);
  const parts = [
    h('div', { class: 'probe-head' },
      h('p', { class: ['badge', `badge-${badge.kind}`, 'probe-badge'] }, badge.text),
      h('p', { class: 'probe-message' }, probe.message)),
    badge.why && h('p', { class: 'probe-why' }, badge.why),
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

// The reasons a verification gives (the rest are the probe's).
const VERDICTS = ['verified', ...Object.keys(DROPPED_BECAUSE)];

/**
 * The worker's decision (the page's options, run in a module worker) set
 * against the page's decision: the same choice for the same reason, the same
 * choice for another reason, or another choice, each said in words.
 * `pageDecision` is undefined while the page is still deciding.
 */
export function renderWorker(state, pageDecision, { executionProviders }) {
  const box = $('worker');
  if (state.error) {
    box.replaceChildren(h('p', { class: 'error' }, `The worker failed: ${state.error}`));
    return;
  }
  if (!state.resolution) {
    box.replaceChildren(h('p', { class: 'muted' }, 'Deciding in the worker…'));
    return;
  }
  const { probe } = state.resolution;
  const change = state.resolution.changes[0];
  const use = executionProviders(state.resolution)[0];
  let comparison = h('span', { class: 'muted' }, 'the page is still deciding');
  if (pageDecision) {
    const pageUse = executionProviders(pageDecision)[0];
    const pageReason = pageDecision.probe.reason;
    if (pageUse !== use) {
      const verdicts = [pageReason, probe.reason].some((reason) => VERDICTS.includes(reason));
      comparison = h('span', { class: 'differs' }, 'a different decision from the page, which uses ', pageUse,
        ' (', code(pageReason), '): ', verdicts
          ? 'each verifies the adapter on its own, and their verdicts differ'
          : 'the worker’s WebGPU answered otherwise');
    } else if (pageReason !== probe.reason) {
      comparison = h('span', { class: 'same' }, `the same choice as the page (use ${use}), for another reason: the page’s is `,
        code(pageReason));
    } else {
      comparison = h('span', { class: 'same' }, `the same decision as the page (use ${use})`);
    }
  }
  box.replaceChildren(
    h('p', { class: 'worker-line' },
      h('span', { class: ['chip', change.action === 'kept' ? 'chip-kept' : 'chip-dropped'] }, `webGpu ${change.action}`),
      ' ', code(probe.reason), ' → ', h('strong', null, `use ${use}`), ` in ${formatMs(probe.elapsedMs)} — `, comparison),
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

/** A horizontal bar of `value` against `largest`, labelled; for a figure
 *  the verification did not measure (it stopped first), no bar, and words:
 *  `moreThan`, where given, is how long a pass had taken when it stopped. */
function bar(label, value, largest, kind, moreThan) {
  if (value === undefined) {
    return h('div', { class: 'bar-row', dataset: { figure: label } },
      h('span', { class: 'bar-label' }, label),
      h('span', { class: 'bar-missing' }, moreThan === undefined
        ? 'not measured: the verification stopped first'
        : `not measured: past ${moreThan.toFixed(2)} ms a pass when it stopped`));
  }
  const width = largest > 0 ? Math.max(2, Math.round((value / largest) * 100)) : 0;
  return h('div', { class: 'bar-row', dataset: { figure: label } },
    h('span', { class: 'bar-label' }, label),
    h('span', { class: 'bar-track' }, h('span', { class: `bar bar-${kind}`, 'data-width': width })),
    h('span', { class: 'bar-value' }, `${value.toFixed(2)} ms`));
}

/** A clock's resolution in words: "a 0.1 ms clock". */
const clock = (ms) => `a ${Number(ms.toPrecision(2))} ms clock`;

/** The verdict of `detect({ verify })`: what was decided, then the two times
 *  as bars (none for a figure not measured), the clock they were timed with
 *  (where the package says), the error against its tolerance, and the figures. */
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
  const software = probe.adapter?.isFallbackAdapter === true;
  const largest = Math.max(v.gpuMs ?? 0, v.wasmMs ?? 0);
  const errorOk = v.maxError !== undefined && v.maxError <= v.tolerance;
  const timed = v.timerResolutionMs === undefined ? '' : `, timed with ${clock(v.timerResolutionMs)}`;
  const figure = (ms) => (ms === undefined ? 'not measured' : `${ms.toFixed(2)} ms`);
  // A software adapter is verified here only to show its figures: the
  // decision above refuses it before any verification.
  const verdict = kept && !software ? ['ok', 'use webgpu'] : kept ? ['warn', 'verified, but software: use wasm'] : ['warn', 'use wasm'];
  const parts = [
    h('div', { class: 'probe-head' },
      h('p', { class: ['badge', `badge-${verdict[0]}`, 'verify-badge'] }, verdict[1]),
      h('p', { class: 'probe-message' }, code(probe.reason), ' — ', probe.message)),
    software && h('p', { class: 'probe-why' },
      'A software adapter, verified here only to show its figures: the decision above refuses it (',
      code('allowFallbackAdapter: false'), ') before verifying anything.'),
    h('div', { class: 'bars', role: 'img', 'aria-label': `GPU ${figure(v.gpuMs)}, WebAssembly ${figure(v.wasmMs)} a pass${timed}` },
      bar('GPU', v.gpuMs, largest, kept ? 'ok' : 'bad', v.gpuMsMoreThan),
      bar('WebAssembly', v.wasmMs, largest, 'neutral')),
    v.timerResolutionMs !== undefined && h('p', { class: 'bars-clock' }, `Timed with ${clock(v.timerResolutionMs)} (its resolution, measured).`),
    h('dl', { class: 'facts' }, [
      ['numbers', v.maxError === undefined ? '—' : `${errorOk ? 'right' : 'wrong'}: largest error ${v.maxError.toExponential(2)} (tolerance ${v.tolerance}) at ${v.maxErrorAt}`],
      ['ratio', v.ratio === undefined ? '—' : `${v.ratio} (kept up to ${v.margin})`],
      ['checked', v.checked.join(', ') || 'nothing'],
      ['workload', v.workload],
      ['took', `${formatMs(v.elapsedMs)} of a ${formatNumber(v.budgetMs)} ms budget${v.cached ? ' (from the cache)' : ''}`],
      ['cache key', code(v.adapterKey)],
    ].map(([k, value]) => [h('dt', null, k), h('dd', null, value)])),
  ];
  $('verify').replaceChildren(...parts.filter(Boolean));
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
        v.gpuMs !== undefined && v.wasmMs !== undefined ? `GPU ${v.gpuMs.toFixed(2)} ms, WebAssembly ${v.wasmMs.toFixed(2)} ms a pass` : '',
        v.gpuMs === undefined && v.gpuMsMoreThan !== undefined && v.wasmMs !== undefined
          ? `GPU past ${v.gpuMsMoreThan.toFixed(2)} ms when stopped, WebAssembly ${v.wasmMs.toFixed(2)} ms a pass` : '',
        v.timerResolutionMs !== undefined ? `timed with ${clock(v.timerResolutionMs)}` : '']
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
    h('ol', { id: 'flow', class: 'flow', 'aria-label': 'How the decision was made' }, items),
    h('details', { class: 'decision-json' }, h('summary', null, 'The decision’s resolution'),
      h('pre', { id: 'decision-resolution', class: 'json' }, jsonLines(resolution))));
  document.body.dataset.decision = providers[0];
}

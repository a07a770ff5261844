// The backend-targets demo: presets and their declared availability, the live
// WebGPU probe (in the page and in a worker), the declared → effective diff of
// the `wasm` target, and the explained planner. Plain ES module, no build step;
// it runs under a strict Content-Security-Policy, so it builds the DOM with
// createElement/textContent and styles through classes only.

// The package, imported dynamically so that a page served without a built
// package says so instead of staying blank.
const PACKAGE = '../pkg/index.js';
let declaredAvailability, detect, plan, presets, referenceCapsules, wasm;

async function loadPackage() {
  let api;
  try {
    api = await import(PACKAGE);
  } catch (error) {
    throw new Error(`could not load ${PACKAGE} (build it with scripts/build.sh): ${error.message}`);
  }
  await api.default();
  ({ declaredAvailability, detect, plan, presets, referenceCapsules, wasm } = api);
}

const $ = (id) => document.getElementById(id);

/** `h('td', { class: 'x' }, 'text', node, [more])`: an element with children. */
function h(tag, props, ...children) {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(props ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === 'class') el.className = Array.isArray(value) ? value.filter(Boolean).join(' ') : value;
    else if (key === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(key, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : String(child));
  }
  return el;
}

const code = (text) => h('code', null, text);
const chip = (text, kind) => h('span', { class: ['chip', kind && `chip-${kind}`] }, text);
const chips = (items, kind) =>
  items.length ? h('span', { class: 'chips' }, items.map((item) => chip(item, kind))) : h('span', { class: 'muted' }, 'none');
const table = (head, rows, cls) =>
  h('table', { class: cls }, h('thead', null, h('tr', null, head.map((c) => h('th', { scope: 'col' }, c)))), h('tbody', null, rows));
const formatMs = (ms) => `${ms.toFixed(1)} ms`;
const formatNumber = (n) => n.toLocaleString('en-US');

/** A config as one readable line. */
function describeConfig(config) {
  const backend = typeof config.backend === 'string'
    ? config.backend
    : Object.entries(config.backend).map(([k, v]) => `${k} ${v}`).join('');
  return `device ${config.device} · backend ${backend} · trust ${config.trustPolicy} · vjp ${config.vjpMode}`;
}

/** A resolution without its timing, for comparing two probes. */
function withoutTiming(resolution) {
  const copy = structuredClone(resolution);
  delete copy.probe.elapsedMs;
  return copy;
}

// ---------------------------------------------------------------- presets

function renderPresets() {
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

function renderProbe(resolution) {
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

function renderWorker(state, pageResolution) {
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
      h('pre', { id: 'worker-resolution', class: 'json' }, JSON.stringify(state.resolution, null, 2))));
}

// ---------------------------------------------------------------- declared → effective

function renderDiff(resolution) {
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
      'declared ', code(JSON.stringify(declared)), h('br'), 'effective ', code(JSON.stringify(effective))),
    table(['feature', 'declared', 'effective', 'action', 'reason', 'detail'], featureRows, 'diff-table'),
    h('dl', { class: 'facts facts-wide' },
      h('dt', null, 'devices'), h('dd', null, listDiff(declaredAvailabilityOfTarget.devices, availability.devices)),
      h('dt', null, 'providers'), h('dd', null, listDiff(declaredAvailabilityOfTarget.providers, availability.providers),
        droppedProviders.length && change
          ? h('span', { class: 'muted' }, ` — ${droppedProviders.join(', ')} removed: `, code(change.reason))
          : ''),
      h('dt', null, 'WebGPU capabilities'), h('dd', null, capabilities),
      h('dt', null, 'kept as declared'), h('dd', null, chips(resolution.asDeclared, 'feature'))));
}

// ---------------------------------------------------------------- planner

/** The 68 ops, in the vocabulary's order (filled once the module is initialised). */
let OPS = [];
const DEFAULT_OPS = ['matmul', 'add', 'relu', 'softmax', 'layerNorm', 'scaledDotProductAttention'];
const DEFAULT_CONFIGS = `[
  {"device": "wasm", "backend": {"prefer": "webGpu"}},
  {"device": "cpu"}
]`;
// Example WebGPU capsules, listed before the reference catalog: one needs a
// feature (shader-f16) a software adapter lacks, one a storage-buffer limit,
// one has a trust level the default policy refuses.
const DEFAULT_CAPSULES = `[
  {"name": "webgpu.matmul.f16", "op": "matmul",
   "provider": "webGpu", "device": "wasm", "trustLevel": "checked",
   "vjpMode": "torchLeanTape",
   "requires": {"features": ["shader-f16"]}},
  {"name": "webgpu.matmul", "op": "matmul",
   "provider": "webGpu", "device": "wasm", "trustLevel": "checked",
   "vjpMode": "torchLeanTape"},
  {"name": "webgpu.softmax", "op": "softmax",
   "provider": "webGpu", "device": "wasm", "trustLevel": "checked",
   "vjpMode": "torchLeanTape",
   "requires": {"limits":
     {"maxStorageBufferBindingSize": 134217728}}},
  {"name": "webgpu.add", "op": "add",
   "provider": "webGpu", "device": "wasm", "trustLevel": "verified",
   "vjpMode": "torchLeanTape"},
  {"name": "webgpu.relu", "op": "relu",
   "provider": "webGpu", "device": "wasm", "trustLevel": "checked",
   "vjpMode": "torchLeanTape"},
  {"name": "webgpu.attention", "op": "scaledDotProductAttention",
   "provider": "webGpu", "device": "wasm", "trustLevel": "fuzzed",
   "vjpMode": "torchLeanTape"}
]`;

const state = { resolution: null, worker: {} };

function renderOps() {
  OPS = referenceCapsules().map((capsule) => capsule.op);
  $('reference-count').textContent = OPS.length;
  $('ops-list').replaceChildren(...OPS.map((op) =>
    h('label', { class: 'op', title: op, dataset: { op } },
      h('input', { type: 'checkbox', name: 'op', value: op, checked: DEFAULT_OPS.includes(op) }), ' ', op)));
  updateOpsCount();
}

function selectedOps() {
  return [...document.querySelectorAll('#ops-list input:checked')].map((input) => input.value);
}

function updateOpsCount() {
  $('ops-count').textContent = `${selectedOps().length} of ${OPS.length} selected`;
}

function resetPlanner() {
  for (const input of document.querySelectorAll('#ops-list input')) input.checked = DEFAULT_OPS.includes(input.value);
  $('configs').value = DEFAULT_CONFIGS;
  $('capsules').value = DEFAULT_CAPSULES;
  $('use-reference').checked = true;
  document.querySelector('input[name="against"][value="detected"]').checked = true;
  document.querySelector('input[name="mode"][value="perOp"]').checked = true;
  updateOpsCount();
}

/** Reads a textarea as JSON; throws a readable error. */
function readJson(id, what) {
  try {
    return JSON.parse($(id).value);
  } catch (error) {
    throw Object.assign(new Error(`${what} is not valid JSON: ${error.message}`), { code: 'invalid-json', path: what });
  }
}

function buildRequest() {
  const against = document.querySelector('input[name="against"]:checked').value;
  const availability = against === 'detected' ? state.resolution.availability : declaredAvailability(wasm());
  const extra = readJson('capsules', 'capsules');
  const capsules = [...(Array.isArray(extra) ? extra : [extra]), ...($('use-reference').checked ? referenceCapsules() : [])];
  return {
    ops: selectedOps(),
    configs: readJson('configs', 'configs'),
    availability,
    capsules,
    mode: document.querySelector('input[name="mode"]:checked').value,
    explain: true,
  };
}

function verdictCell(candidate) {
  return h('td', null, chip(candidate.verdict, candidate.verdict),
    candidate.unverified ? chip('unverified', 'unverified') : '');
}

function renderAttempt(attempt, result) {
  const rows = attempt.ops.flatMap((op) => op.candidates.length
    ? op.candidates.map((candidate, i) => h('tr', { class: [i === 0 && 'group-start', candidate.verdict === 'chosen' && 'chosen-row'] },
      i === 0 ? h('th', { scope: 'rowgroup', rowspan: op.candidates.length, class: 'op-cell' }, code(op.op),
        op.message ? h('div', { class: 'op-message' }, op.message) : '') : null,
      h('td', null, code(candidate.capsule)),
      h('td', { class: 'runs-on' }, `${candidate.provider} on ${candidate.device}`),
      verdictCell(candidate),
      h('td', { class: 'reason' }, candidate.reason ? code(candidate.reason) : ''),
      h('td', { class: 'detail' }, candidate.detail)))
    : [h('tr', { class: 'group-start' }, h('th', { scope: 'rowgroup', class: 'op-cell' }, code(op.op)),
      h('td', { colspan: 5, class: 'op-message' }, op.message ?? 'no capsule for this op in the catalog'))]);
  const served = result.mode === 'perOp'
    ? `${attempt.ops.filter((op) => op.capsule).length} of ${attempt.ops.length} ops served`
    : attempt.ok ? 'serves every op' : 'cannot serve every op';
  return h('div', { class: 'attempt' },
    h('h4', null, `Config #${attempt.configIndex} `, h('span', { class: 'config-line' }, describeConfig(attempt.config)),
      ' ', chip(served, attempt.ok ? 'chosen' : 'rejected')),
    h('div', { class: 'table-wrap' }, table(['op', 'capsule', 'runs on', 'verdict', 'reason', 'detail'], rows, 'candidates')));
}

function renderPlan(result, request) {
  const detected = document.querySelector('input[name="against"]:checked').value === 'detected';
  const against = !detected
    ? 'the declared availability of wasm (nothing probed: WebGPU requirements unverified)'
    : request.availability.webGpu
      ? 'the detected availability (requirements checked against the probed adapter)'
      : 'the detected availability (webGpu dropped)';
  const parts = [
    h('div', { class: 'plan-head' },
      h('p', { class: ['badge', result.ok ? 'badge-ok' : 'badge-warn'] }, result.ok ? 'planned' : 'not plannable'),
      h('p', null, 'mode ', code(result.mode),
        result.configIndex !== undefined ? [' · config #', result.configIndex, ' won'] : '',
        ` · ${request.ops.length} ops · ${request.capsules.length} capsules · against ${against}`)),
  ];
  if (result.kernels) {
    parts.push(h('h3', null, 'Kernels'),
      table(['#', 'op', 'capsule', 'provider', 'device', 'config'], result.kernels.map((k, i) =>
        h('tr', null, h('td', null, i), h('td', null, code(k.op)), h('td', null, code(k.capsule)),
          h('td', null, chip(k.provider, 'provider')), h('td', null, chip(k.device, 'device')),
          h('td', null, `#${k.configIndex}`))), 'kernels'));
  }
  parts.push(h('h3', null, 'Every capsule considered, per config and op'), result.attempts.map((a) => renderAttempt(a, result)));
  $('plan').replaceChildren(...parts.flat());
}

function renderPlanError(error) {
  // A BackendTargetsError's message reads "[code] at path: sentence".
  const sentence = error.message.replace(/^\[[^\]]+\] at [^:]*: /, '');
  $('plan').replaceChildren(h('div', { class: 'error' },
    h('p', null, h('strong', null, 'Invalid request'), error.code ? [' ', code(error.code)] : '',
      error.path ? [' at ', code(error.path)] : ''),
    h('p', null, sentence),
    error.expected ? h('p', null, 'expected one of: ', chips(error.expected)) : ''));
}

function runPlanner() {
  if (selectedOps().length === 0) {
    $('plan').replaceChildren(h('p', { class: 'muted' }, 'Select at least one op to plan.'));
    return;
  }
  let request;
  try {
    request = buildRequest();
    renderPlan(plan(request), request);
  } catch (error) {
    if (!error || typeof error !== 'object' || !('code' in error)) throw error;
    renderPlanError(error);
  }
}

// ---------------------------------------------------------------- probe + worker

async function probeAndRender() {
  const resolution = await detect();
  state.resolution = resolution;
  renderProbe(resolution);
  renderDiff(resolution);
  renderWorker(state.worker, resolution);
  $('resolution').textContent = JSON.stringify(resolution, null, 2);
  const change = resolution.changes[0];
  $('status').replaceChildren('webGpu ', chip(change.action, change.action === 'kept' ? 'kept' : 'dropped'), ' — ',
    code(change.reason), ': ', change.detail);
  return resolution;
}

function startWorker() {
  return new Promise((resolve) => {
    const done = (patch) => {
      Object.assign(state.worker, patch);
      renderWorker(state.worker, state.resolution);
      document.body.dataset.workerReady = patch.error ? 'error' : 'true';
      resolve();
    };
    renderWorker(state.worker, state.resolution);
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    worker.addEventListener('message', ({ data }) => {
      worker.terminate();
      done(data.ok ? { resolution: data.resolution } : { error: data.error });
    });
    worker.addEventListener('error', (event) => {
      worker.terminate();
      done({ error: event.message || 'the worker script could not run' });
    });
    worker.postMessage({ options: {} });
  });
}

async function main() {
  await loadPackage();
  renderPresets();
  renderOps();
  resetPlanner();
  const workerDone = startWorker();
  await probeAndRender();
  runPlanner();

  const form = $('planner-form');
  form.addEventListener('submit', (event) => { event.preventDefault(); runPlanner(); });
  form.addEventListener('change', (event) => {
    if (event.target.name === 'op') updateOpsCount();
    if (event.target.tagName !== 'TEXTAREA' && event.target.type !== 'search') runPlanner();
  });
  $('ops-filter').addEventListener('input', (event) => {
    const needle = event.target.value.trim().toLowerCase();
    for (const label of document.querySelectorAll('#ops-list .op')) {
      label.classList.toggle('hidden', needle !== '' && !label.dataset.op.toLowerCase().includes(needle));
    }
  });
  $('ops-none').addEventListener('click', () => {
    for (const input of document.querySelectorAll('#ops-list input')) input.checked = false;
    updateOpsCount();
    runPlanner();
  });
  $('ops-defaults').addEventListener('click', () => {
    for (const input of document.querySelectorAll('#ops-list input')) input.checked = DEFAULT_OPS.includes(input.value);
    updateOpsCount();
    runPlanner();
  });
  $('reset-button').addEventListener('click', () => { resetPlanner(); runPlanner(); });
  $('reprobe').addEventListener('click', async (event) => {
    event.target.disabled = true;
    try {
      await probeAndRender();
      runPlanner();
    } finally {
      event.target.disabled = false;
    }
  });
  $('plan-button').disabled = false;
  $('reprobe').disabled = false;
  await workerDone;
  document.body.dataset.ready = 'true';
}

main().catch((error) => {
  $('status').replaceChildren(h('span', { class: 'error' }, `The demo failed to start: ${error?.message ?? error}`));
  document.body.dataset.ready = 'error';
  console.error(error);
});

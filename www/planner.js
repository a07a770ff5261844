// The demo's planner panel: the op picker, the configs and capsule catalog
// editors, and the explained plan (an ops × configs grid, the kernels, then
// every capsule considered per config and op) or the request's error, from
// its code, path and message.
import { $, chip, chips, code, h, jsonLines, table } from './dom.js';

/** A config as one readable line. */
function describeConfig(config) {
  const backend = typeof config.backend === 'string'
    ? config.backend
    : Object.entries(config.backend).map(([k, v]) => `${k} ${v}`).join('');
  return `device ${config.device} · backend ${backend} · trust ${config.trustPolicy} · vjp ${config.vjpMode}`;
}

/** The 68 ops, in the vocabulary's order (filled once the module is initialised). */
let OPS = [];
/** The package's functions and a getter for the page's latest resolution (see setupPlanner). */
let api;
let currentResolution = () => null;
const DEFAULT_OPS = ['matmul', 'add', 'relu', 'softmax', 'layerNorm', 'scaledDotProductAttention'];
// The configs leave vjpMode to the "Use" control (inference by default: see
// buildRequest).
const DEFAULT_CONFIGS = `[
  {"device": "wasm", "backend": {"prefer": "webGpu"}},
  {"device": "cpu"}
]`;
// Example WebGPU capsules, listed before the reference catalog: one needs a
// feature (shader-f16) a software adapter lacks, one a storage-buffer limit,
// one has a trust level the default policy refuses. They are inference
// kernels (vjpMode none, as an ONNX Runtime Web kernel is), but for matmul,
// which brings its own backward pass: under training, the others give way
// to the reference capsules (which carry a tape VJP) on the CPU.
const DEFAULT_CAPSULES = `[
  {"name": "webgpu.matmul.f16", "op": "matmul",
   "provider": "webGpu", "device": "wasm", "trustLevel": "checked",
   "vjpMode": "none",
   "requires": {"features": ["shader-f16"]}},
  {"name": "webgpu.matmul", "op": "matmul",
   "provider": "webGpu", "device": "wasm", "trustLevel": "checked",
   "vjpMode": "backendVJP"},
  {"name": "webgpu.softmax", "op": "softmax",
   "provider": "webGpu", "device": "wasm", "trustLevel": "checked",
   "vjpMode": "none",
   "requires": {"limits":
     {"maxStorageBufferBindingSize": 134217728}}},
  {"name": "webgpu.add", "op": "add",
   "provider": "webGpu", "device": "wasm", "trustLevel": "verified",
   "vjpMode": "none"},
  {"name": "webgpu.relu", "op": "relu",
   "provider": "webGpu", "device": "wasm", "trustLevel": "checked",
   "vjpMode": "none"},
  {"name": "webgpu.attention", "op": "scaledDotProductAttention",
   "provider": "webGpu", "device": "wasm", "trustLevel": "fuzzed",
   "vjpMode": "none"}
]`;
/** The vjpMode each use gives a config that sets none of its own. */
const VJP_MODE = { inference: 'none', training: 'torchLeanTape' };

function renderOps() {
  OPS = api.referenceCapsules().map((capsule) => capsule.op);
  $('reference-count').textContent = OPS.length;
  $('ops-list').replaceChildren(...OPS.map((op) =>
    h('label', { class: 'op', title: op, dataset: { op } },
      h('input', { type: 'checkbox', name: 'op', value: op, checked: DEFAULT_OPS.includes(op) }),
      // A long name may wrap, at its camelCase words only.
      h('span', null, op.split(/(?=[A-Z])/).map((word, i) => [i > 0 && h('wbr'), word])))));
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
  document.querySelector('input[name="use"][value="inference"]').checked = true;
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
  const availability = against === 'detected' ? currentResolution().availability : api.declaredAvailability(api.wasm());
  const extra = readJson('capsules', 'capsules');
  const capsules = [...(Array.isArray(extra) ? extra : [extra]), ...($('use-reference').checked ? api.referenceCapsules() : [])];
  // The use's vjpMode goes to every config that sets none of its own (the
  // package's default, torchLeanTape, is for training: it also asks each
  // capsule for a backward pass). Anything else is left for plan() to judge.
  const vjpMode = VJP_MODE[document.querySelector('input[name="use"]:checked').value];
  const configs = readJson('configs', 'configs');
  const withVjpMode = (config) =>
    config && typeof config === 'object' && !Array.isArray(config) && !('vjpMode' in config) ? { ...config, vjpMode } : config;
  return {
    ops: selectedOps(),
    configs: Array.isArray(configs) ? configs.map(withVjpMode) : configs,
    availability,
    capsules,
    mode: document.querySelector('input[name="mode"]:checked').value,
    explain: true,
  };
}

/** What to do about each reason a capsule was refused:
 *  `RejectionReason::what_to_do` (src/plan_result.rs), word for word
 *  (tests/core/advice.rs holds this copy to it). The SPEC fixes an unplanned
 *  op's message; this says what it leaves unsaid. */
const WHAT_TO_DO = {
  "device-not-available": "the availability lacks the capsule's device: plan against a target (or an availability's `devices`) that has it, or declare a capsule for a device it has",
  "provider-not-available": "the availability lacks the capsule's provider: give the target the build feature that brings it (`features`, e.g. `webGpu`), list it in an availability's `providers`, or declare a capsule of a provider it has",
  "webgpu-feature-missing": "the adapter `detect()` found lacks a feature the capsule `requires` (the detail names it, e.g. `shader-f16`): declare, after it, a capsule for the same op that does not require it (f32 instead of f16)",
  "webgpu-limit-too-low": "the adapter's limit (the detail names it) is below the capsule's `requires.limits`: lower the requirement, or declare, after it, a capsule for smaller adapters",
  "no-forward": "the capsule says `supportsForward: false` (a backward pass only): declare one that runs the forward pass",
  "trust-refused": "the config's `trustPolicy` refuses the capsule's `trustLevel`: accept it (`fuzzedOk`, `allowTrustedExternal`), or declare a capsule of a level the policy accepts",
  "provider-not-allowed": "the config's `backend: { only }` names another provider: use `{ prefer }` or `\"auto\"`, or declare a capsule of the provider it names",
  "device-mismatch": "the capsule runs on another device than the config's `device`: declare a capsule for the config's device, or add a config (`configs`) for the device the capsule runs on (the built-in catalog runs every op on `cpu` only)",
  "vjp-incompatible": "the config's `vjpMode` asks for gradients the capsule cannot give: use `vjpMode: \"none\"` to run inference only, or declare a capsule whose `vjpMode` serves it",
};

/** Text whose `quoted` parts are code. */
const withCode = (text) => text.split('`').map((part, i) => (i % 2 ? code(part) : part));

/** Under an op no capsule served: what to do about each reason its
 *  candidates were refused (or about an empty catalog), one line each. */
function adviceRow(op) {
  const reasons = [...new Set(op.candidates.map((candidate) => candidate.reason).filter(Boolean))];
  const lines = reasons.length
    ? reasons.map((reason) => h('div', null, code(reason), ': ', withCode(WHAT_TO_DO[reason] ?? '')))
    : [h('div', null, 'no capsule for this op in the catalog: declare one (', code('capsules'), ')')];
  return h('tr', { class: 'op-advice-row' }, h('td', { colspan: 6, class: 'op-advice' },
    h('strong', null, 'What to do'), lines));
}

function verdictCell(candidate) {
  return h('td', null, chip(candidate.verdict, candidate.verdict),
    candidate.unverified ? chip('unverified', 'unverified') : '');
}

function renderAttempt(attempt, result) {
  // One row group per op, its name heading the group (a card on a phone).
  const groups = attempt.ops.map((op) => h('tbody', null, op.sameAs !== undefined
    ? [h('tr', { class: 'group-start' }, h('th', { scope: 'rowgroup', class: 'op-cell' }, code(op.op)),
      h('td', { colspan: 5, class: 'op-message' }, `${op.capsule ?? op.message}: as for op ${op.sameAs}, above`))]
    : op.candidates.length
    ? op.candidates.map((candidate, i) => h('tr', { class: [i === 0 && 'group-start', candidate.verdict === 'chosen' && 'chosen-row'] },
      i === 0 ? h('th', { scope: 'rowgroup', rowspan: op.candidates.length, class: 'op-cell' }, code(op.op),
        op.message ? h('div', { class: 'op-message' }, op.message) : '') : null,
      h('td', null, code(candidate.capsule)),
      h('td', { class: 'runs-on' }, `${candidate.provider} on ${candidate.device}`),
      verdictCell(candidate),
      h('td', { class: 'reason' }, candidate.reason ? code(candidate.reason) : ''),
      h('td', { class: 'detail' }, candidate.detail))).concat(op.message ? [adviceRow(op)] : [])
    : [h('tr', { class: 'group-start' }, h('th', { scope: 'rowgroup', class: 'op-cell' }, code(op.op)),
      h('td', { colspan: 5, class: 'op-message' }, op.message ?? 'no capsule for this op in the catalog')),
    adviceRow(op)]));
  const served = result.mode === 'perOp'
    ? `${attempt.ops.filter((op) => op.capsule).length} of ${attempt.ops.length} ops served`
    : attempt.ok ? 'serves every op' : 'cannot serve every op';
  return h('div', { class: 'attempt' },
    h('h4', null, `Config #${attempt.configIndex} `, h('span', { class: 'config-line' }, describeConfig(attempt.config)),
      ' ', chip(served, attempt.ok ? 'chosen' : 'rejected')),
    h('div', { class: 'table-wrap' }, table(['op', 'capsule', 'runs on', 'verdict', 'reason', 'detail'], groups, 'candidates')));
}

/** A name that may wrap at its camelCase words and after its dots (a
 *  <wbr> at each), as the op picker's names do. */
const breakable = (name) => code(name.split(/(?=[A-Z])|(?<=\.)/).map((part, i) => [i > 0 && h('wbr'), part]));

/** One op under one config: its capsule (`chosen` where it is the op's
 *  kernel), none (the first rule that refused the first candidate), or not
 *  tried (an earlier config served the op, or planning stopped before). */
function gridCell(result, attempt, opIndex) {
  let op = attempt?.ops.find((o) => o.opIndex === opIndex);
  if (op?.sameAs !== undefined) op = attempt.ops.find((o) => o.opIndex === op.sameAs) ?? op;
  if (!op) return { state: 'untried', text: 'not tried' };
  const kernel = result.kernels?.[opIndex];
  if (op.capsule) {
    const chosen = kernel !== undefined && kernel.capsule === op.capsule && kernel.configIndex === attempt.configIndex;
    return { state: chosen ? 'chosen' : 'admissible', text: op.capsule, note: chosen ? 'chosen' : 'admissible, not used' };
  }
  const first = op.candidates?.[0];
  return { state: 'none', text: 'none', note: first ? first.reason : 'no capsule for this op' };
}

/** The plan as a grid: a row per op, a column per config, each cell the
 *  capsule that config gives the op (the chosen one marked). Grid layout,
 *  not a table: it keeps its shape at every width, its cells wrapping. */
function planGrid(result, request) {
  const configs = request.configs;
  const attempts = new Map(result.attempts.map((a) => [a.configIndex, a]));
  const head = [h('div', { role: 'columnheader', class: 'grid-corner' }, 'op'),
    configs.map((config, i) => h('div', { role: 'columnheader', class: 'grid-config' }, `#${i} `,
      h('span', { class: 'grid-config-line' }, `${config.device ?? 'cpu'}${config.backend && config.backend !== 'auto' ? ` · ${Object.entries(config.backend).map(([k, v]) => `${k} ${v}`).join('')}` : ''}`)))];
  const rows = request.ops.map((op, opIndex) => h('div', { role: 'row', class: 'grid-row' },
    h('div', { role: 'rowheader', class: 'grid-op' }, breakable(op)),
    configs.map((_, configIndex) => {
      const cell = gridCell(result, attempts.get(configIndex), opIndex);
      return h('div', { role: 'cell', class: ['grid-cell', `grid-${cell.state}`], dataset: { state: cell.state } },
        cell.state === 'none' || cell.state === 'untried' ? h('span', { class: 'muted' }, cell.text) : breakable(cell.text),
        cell.note ? h('span', { class: 'grid-note' }, cell.note) : '');
    })));
  const grid = h('div', { id: 'plan-grid', class: 'plan-grid', role: 'table', 'aria-label': 'Ops × configs' },
    h('div', { role: 'row', class: 'grid-row grid-head' }, head), rows);
  grid.style.setProperty('--configs', String(configs.length));
  return grid;
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
  parts.push(requestView(request));
  parts.push(h('h3', null, 'Ops × configs'),
    h('p', { class: 'note' }, 'Each op under each config: the capsule it gets (the chosen one marked), none (the first reason), or not tried.'),
    planGrid(result, request));
  if (result.kernels) {
    parts.push(h('h3', null, 'Kernels'),
      h('p', { class: 'note device-note' }, 'Why WebGPU kernels run on device ', code('wasm'), ': device ', code('wasm'),
        ' is the WebAssembly page or worker that runs the model, and the browser dispatches the WebGPU kernels it calls to the GPU — the ',
        code('webGpu'), ' provider, not the device, decides GPU execution.'),
      h('div', { class: 'table-wrap' },
      table(['#', 'op', 'capsule', 'provider', 'device', 'config'], result.kernels.map((k, i) =>
        h('tr', null, h('td', null, i), h('td', null, code(k.op)), h('td', null, code(k.capsule)),
          h('td', null, chip(k.provider, 'provider')), h('td', null, chip(k.device, 'device')),
          h('td', null, `#${k.configIndex}`))), 'kernels')));
  }
  parts.push(h('h3', null, 'Every capsule considered, per config and op'), result.attempts.map((a) => renderAttempt(a, result)));
  $('plan').replaceChildren(...parts.flat());
}

/** The request given to plan(), whole, folded away (the reference catalog makes it long). */
function requestView(request) {
  return h('details', { class: 'request' },
    h('summary', null, 'The request given to ', code('plan()')),
    h('pre', { id: 'plan-request', class: 'json' }, jsonLines(request)));
}

function renderPlanError(error, request) {
  // A BackendTargetsError carries its parts as fields; the message is the
  // whole line ("[code] at path: sentence"), shown as the package gives it.
  $('plan').replaceChildren(h('div', { class: 'error' },
    h('p', null, h('strong', null, 'Invalid request'), error.code ? [' ', code(error.code)] : '',
      error.path ? [' at ', code(error.path)] : ''),
    h('p', { class: 'error-message' }, error.message),
    error.expected ? h('p', null, 'expected one of: ', chips(error.expected)) : ''),
  ...(request ? [requestView(request)] : []));
}

export function runPlanner() {
  if (!currentResolution()) return; // the probe has not answered yet
  if (selectedOps().length === 0) {
    $('plan').replaceChildren(h('p', { class: 'muted' }, 'Select at least one op to plan.'));
    return;
  }
  let request;
  try {
    request = buildRequest();
    renderPlan(api.plan(request), request);
  } catch (error) {
    if (!error || typeof error !== 'object' || !('code' in error)) throw error;
    renderPlanError(error, request);
  }
}

/**
 * Fills the panel from the initialised package `pkg`, wires its controls, and
 * plans against `resolution()` (the page's latest detect() answer) when asked.
 */
export function setupPlanner(pkg, resolution) {
  api = pkg;
  currentResolution = resolution;
  renderOps();
  resetPlanner();
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
}

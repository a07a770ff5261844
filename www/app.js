// The demo page's wiring: loads the package, renders the presets, runs the
// live probe in the page, draws the decision an inference app makes (the
// recipes' call) as a flow, makes that decision again in a module worker,
// and hands the resolution to the planner panel. Plain ES modules, no build step; the page runs under a
// strict Content-Security-Policy (see dom.js). The panels live in views.js
// (presets, probe, worker, declared → effective) and planner.js.
import { $, chip, code, h, jsonLines } from './dom.js';
import { runPlanner, setupPlanner } from './planner.js';
import { renderDecision, renderDiff, renderPresets, renderProbe, renderVerification, renderWorker } from './views.js';

// The package, imported dynamically so that a page served without a built
// package says so instead of staying blank.
const PACKAGE = '../pkg/index.js';

async function loadPackage() {
  let api;
  try {
    api = await import(PACKAGE);
  } catch (error) {
    throw new Error(`could not load ${PACKAGE} (build it with scripts/build.sh): ${error.message}`);
  }
  await api.default();
  return api;
}

// The recipes' options: a software adapter refused, a real one verified (its
// verdict kept, as by default). The page and the worker both decide with them.
const DECISION = { allowFallbackAdapter: false, verify: true };

const state = { resolution: null, decision: undefined, worker: {} };

/** The plain probe (`detect()`, default options: a software adapter counts),
 *  its badge told by the decision when there is one. */
async function probeAndRender(api) {
  const resolution = await api.detect();
  state.resolution = resolution;
  state.decision = undefined;
  renderProbe(resolution, state.decision, api);
  renderDiff(resolution, api);
  $('resolution').replaceChildren(...jsonLines(resolution));
  return resolution;
}

/** The decision an inference app makes, as the recipes make it, first on the
 *  page and in the status line; then the probe's badge and the worker's line,
 *  which are set against it. */
async function decideAndRender(api) {
  const decision = await api.detect(DECISION);
  state.decision = decision;
  renderDecision(decision, api);
  const [provider] = api.executionProviders(decision);
  $('status').replaceChildren('Use ', chip(provider, provider === 'webgpu' ? 'kept' : 'dropped'), ' — ',
    code(decision.probe.reason), ': ', decision.probe.message);
  renderProbe(state.resolution, decision, api);
  renderWorker(state.worker, decision, api);
  return decision;
}

/** The verified decision (`verify`, always afresh here: the demo shows the
 *  verification itself, not a kept verdict). */
async function verifyAndRender(api) {
  // Without an adapter there is nothing to verify (and no module to fetch for it).
  if (!state.resolution.probe.available) {
    renderVerification(state.resolution);
    return;
  }
  $('verify').replaceChildren(h('p', { class: 'note' }, 'Verifying on the adapter…'));
  const resolution = await api.detect({ verify: { cache: 'none' } });
  renderVerification(resolution);
}

/** The page's decision made again in a module worker, with the same options:
 *  its line says whether the two agree. Started once the page has decided,
 *  so that the two verifications (each has its own cache) do not time the
 *  adapter at once. */
function startWorker(api) {
  return new Promise((resolve) => {
    const done = (patch) => {
      Object.assign(state.worker, patch);
      renderWorker(state.worker, state.decision, api);
      document.body.dataset.workerReady = patch.error ? 'error' : 'true';
      resolve();
    };
    renderWorker(state.worker, state.decision, api);
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    worker.addEventListener('message', ({ data }) => {
      worker.terminate();
      done(data.ok ? { resolution: data.resolution } : { error: data.error });
    });
    worker.addEventListener('error', (event) => {
      worker.terminate();
      done({ error: event.message || 'the worker script could not run' });
    });
    worker.postMessage({ options: DECISION });
  });
}

async function main() {
  const api = await loadPackage();
  renderPresets(api);
  setupPlanner(api, () => state.resolution);
  await probeAndRender(api);
  await decideAndRender(api);
  const workerDone = startWorker(api);
  runPlanner();
  // The verification panel times the adapter afresh: after the worker's.
  await workerDone;
  await verifyAndRender(api);

  $('reprobe').addEventListener('click', async (event) => {
    event.target.disabled = true;
    try {
      await probeAndRender(api);
      await decideAndRender(api);
      runPlanner();
    } finally {
      event.target.disabled = false;
    }
  });
  $('reverify').addEventListener('click', async (event) => {
    event.target.disabled = true;
    try {
      await verifyAndRender(api);
    } finally {
      event.target.disabled = false;
    }
  });
  $('reverify').disabled = false;
  $('plan-button').disabled = false;
  $('reprobe').disabled = false;
  document.body.dataset.ready = 'true';
}

main().catch((error) => {
  $('status').replaceChildren(h('span', { class: 'error' }, `The demo failed to start: ${error?.message ?? error}`));
  document.body.dataset.ready = 'error';
  console.error(error);
});

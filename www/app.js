// The demo page's wiring: loads the package, renders the presets, runs the
// live probe in the page and in a module worker, draws the decision an
// inference app makes (the recipes' call) as a flow, and hands the
// resolution to the planner panel. Plain ES modules, no build step; the page runs under a
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

const state = { resolution: null, worker: {} };

async function probeAndRender(api) {
  const resolution = await api.detect();
  state.resolution = resolution;
  renderProbe(resolution);
  renderDiff(resolution, api);
  renderWorker(state.worker, resolution);
  $('resolution').replaceChildren(...jsonLines(resolution));
  return resolution;
}

/** The decision an inference app makes, as the recipes make it (a software
 *  adapter refused, a real one verified; its verdict kept, as by default),
 *  first on the page and in the status line. */
async function decideAndRender(api) {
  const decision = await api.detect({ allowFallbackAdapter: false, verify: true });
  renderDecision(decision, api);
  const [provider] = api.executionProviders(decision);
  $('status').replaceChildren('Use ', chip(provider, provider === 'webgpu' ? 'kept' : 'dropped'), ' — ',
    code(decision.probe.reason), ': ', decision.probe.message);
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
  const api = await loadPackage();
  renderPresets(api);
  setupPlanner(api, () => state.resolution);
  const workerDone = startWorker();
  await probeAndRender(api);
  await decideAndRender(api);
  runPlanner();
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
  await workerDone;
  document.body.dataset.ready = 'true';
}

main().catch((error) => {
  $('status').replaceChildren(h('span', { class: 'error' }, `The demo failed to start: ${error?.message ?? error}`));
  document.body.dataset.ready = 'error';
  console.error(error);
});

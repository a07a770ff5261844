// A module worker that makes the page's decision again: WebGPU is exposed to
// dedicated workers too (WorkerNavigator.gpu), and `verify` works there (its
// verdicts kept in IndexedDB), so the decision should match the page's.
// Post it `{ options }` (detect() options, may be omitted); it answers
// `{ ok: true, resolution }` or `{ ok: false, error }`.
import init, { detect } from '../pkg/index.js';

const ready = init();

self.addEventListener('message', async ({ data }) => {
  try {
    await ready;
    self.postMessage({ ok: true, resolution: await detect(data?.options) });
  } catch (error) {
    self.postMessage({ ok: false, error: `${error?.name ?? 'Error'}: ${error?.message ?? error}` });
  }
});

// A module worker that runs the same `detect()` as the page: WebGPU is exposed
// to dedicated workers too (WorkerNavigator.gpu), so the answer should match.
// Post it `{ options }` (probe options, may be omitted); it answers
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

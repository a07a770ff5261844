// ONNX Runtime Web's own times for a model on both execution providers:
// what the example page shows beside the verified verdict (`?compare=true`)
// and what tests/js/verify-browser.test.mjs holds that verdict to. One copy,
// loaded by both.

/** ONNX Runtime Web's median time a run (9 warm runs, after one) of `model`
 *  (a URL) with `input` (the model's one input, `x`) on each execution
 *  provider: `{ webgpu, wasm }` in milliseconds. */
export async function ortTimes(model, input) {
  const ort = await import('./ort/ort.webgpu.min.mjs'); // this build has both providers
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.wasmPaths = new URL('./ort/', import.meta.url).href;
  const times = {};
  for (const ep of ['webgpu', 'wasm']) {
    // Where a run that never ends stands (tests/js/chromium.mjs reads it).
    globalThis.__stage = `ONNX Runtime Web: ${ep} session`;
    const session = await ort.InferenceSession.create(model, { executionProviders: [ep] });
    const feeds = { x: new ort.Tensor('float32', Float32Array.from(input), [1, input.length]) };
    globalThis.__stage = `ONNX Runtime Web: ${ep} runs`;
    await session.run(feeds);
    const runs = [];
    for (let i = 0; i < 9; i++) {
      const start = performance.now();
      await session.run(feeds);
      runs.push(performance.now() - start);
    }
    await session.release();
    times[ep] = runs.sort((a, b) => a - b)[4];
  }
  return times;
}

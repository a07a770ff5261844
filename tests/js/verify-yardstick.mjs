// The verification's figures held to an independent yardstick, for the
// browser suites of both engines (verify-browser.test.mjs in Chromium,
// firefox.test.mjs in Firefox): a page function (run with page.evaluate)
// that times the verification's workload through WebGPU directly, uncut.
// Not a test file: `node --test tests/js/` does not pick it up.

/** In the page: the verification's workload (6 layers of 256 × 256, a batch
 *  of 8, as many passes per readback as the report's `workload` says) run
 *  through WebGPU directly, each run waited for to its readback: the uncut
 *  time of one pass, the middle of three warm runs (an independent yardstick
 *  for `gpuMs`). Then, in the same page, how long a plain `detect()` takes
 *  after a verification, against one before. */
export async function uncutAndAfter(arg) {
  const m = await import('/pkg/index.js');
  await m.default();
  const t0 = performance.now();
  await m.detect({ allowFallbackAdapter: true });
  const plainBefore = performance.now() - t0;
  const verified = await m.detect(arg.options);
  const t1 = performance.now();
  await m.detect({ allowFallbackAdapter: true });
  const plainAfter = performance.now() - t1;
  const adapter = await navigator.gpu.requestAdapter();
  const device = await adapter.requestDevice();
  const [rows, width, layers] = [8, 256, 6];
  const passes = Number(/(\d+) pass(?:es)? per readback/.exec(verified.probe.verification.workload)[1]);
  const module = device.createShaderModule({ code: `
@group(0) @binding(0) var<storage, read> src: array<f32>;
@group(0) @binding(1) var<storage, read_write> dst: array<f32>;
@group(0) @binding(2) var<storage, read> weights: array<f32>;
@group(0) @binding(3) var<uniform> layer: vec4<u32>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let w0 = layer.x * ${width}u * ${width}u;
  var sum = 0.0;
  for (var k = 0u; k < ${width}u; k++) { sum += src[id.y * ${width}u + k] * weights[w0 + k * ${width}u + id.x]; }
  dst[id.y * ${width}u + id.x] = max(sum, 0.0);
}` });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const storage = (floats) => device.createBuffer({ size: floats * 4, usage: GPUBufferUsage.STORAGE | GPUBufferUsage.COPY_SRC | GPUBufferUsage.COPY_DST });
  const [ping, pong, weights] = [storage(rows * width), storage(rows * width), storage(layers * width * width)];
  const groups = Array.from({ length: layers }, (_, l) => {
    const uniform = device.createBuffer({ size: 16, usage: GPUBufferUsage.UNIFORM | GPUBufferUsage.COPY_DST });
    device.queue.writeBuffer(uniform, 0, new Uint32Array([l, 1, 0, 0]));
    const [from, to] = l % 2 === 0 ? [ping, pong] : [pong, ping];
    return device.createBindGroup({ layout: pipeline.getBindGroupLayout(0), entries: [from, to, weights, uniform]
      .map((buffer, binding) => ({ binding, resource: { buffer } })) });
  });
  const readback = device.createBuffer({ size: rows * width * 4, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST });
  const runOnce = async (count) => {
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    pass.setPipeline(pipeline);
    for (let p = 0; p < count; p++) {
      for (const group of groups) {
        pass.setBindGroup(0, group);
        pass.dispatchWorkgroups(width / 64, rows);
      }
    }
    pass.end();
    encoder.copyBufferToBuffer(pong, 0, readback, 0, rows * width * 4);
    device.queue.submit([encoder.finish()]);
    await readback.mapAsync(GPUMapMode.READ);
    readback.unmap();
  };
  await runOnce(1);
  const runs = [];
  for (let i = 0; i < 3; i++) {
    const start = performance.now();
    await runOnce(passes);
    runs.push((performance.now() - start) / passes);
  }
  device.destroy();
  runs.sort((a, b) => a - b);
  return { verification: verified.probe.verification, reason: verified.probe.reason, message: verified.probe.message,
    uncutMs: runs[1], uncutRange: [runs[0], runs[2]], passes, plainBefore, plainAfter };
}

// The membrane between wgpu and the page's WebGPU objects
// (crates/browser/src/verify.js), on the source, with no build and no
// browser: a stand-in WebGPU that behaves, and hostile variations of it
// (throwing reads, non-functions, frozen objects, revoked Proxies, answers
// that are not what WebGPU says, thenables whose `then` throws), driven the
// way wgpu's glue drives them: direct property reads and calls, `.then`
// called on what a promise method answers. Whatever the page's object does,
// no read or call through the membrane throws, every promise wgpu chains on
// settles, no rejection goes unhandled, and the verification's fault says
// what happened in the browser's words. (The browser suites run the same
// membrane around the real SwiftShader and lavapipe objects.)
import { test, describe } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { ROOT } from './common.mjs';

const verify = await import(pathToFileURL(join(ROOT, 'crates', 'browser', 'src', 'verify.js')));

// A stand-in WebGPU that behaves: prototype getters and methods, as browsers
// define them.
class GPUValidationError extends Error {}
class GPUOutOfMemoryError extends Error {}
class GPUInternalError extends Error {}
globalThis.GPUValidationError = GPUValidationError;
globalThis.GPUOutOfMemoryError = GPUOutOfMemoryError;

class GPUBuffer {
  constructor(size) { this._size = size; this._bytes = new ArrayBuffer(size); }
  get size() { return this._size; }
  get usage() { return 9; }
  mapAsync() { return Promise.resolve(undefined); }
  getMappedRange(offset = 0, size = this._size - offset) { return this._bytes.slice(offset, offset + size); }
  unmap() {}
  destroy() {}
}
class GPUComputePassEncoder {
  setPipeline() {}
  setBindGroup() {}
  dispatchWorkgroups() {}
  end() {}
}
class GPUCommandEncoder {
  beginComputePass() { return new GPUComputePassEncoder(); }
  copyBufferToBuffer() {}
  finish() { return { commands: true }; }
}
class GPUComputePipeline {
  getBindGroupLayout() { return { layout: true }; }
}
class GPUQueue {
  submit() {}
  writeBuffer() {}
  onSubmittedWorkDone() { return Promise.resolve(undefined); }
}
class GPUDevice {
  constructor() { this._queue = new GPUQueue(); this._lost = new Promise(() => {}); }
  get queue() { return this._queue; }
  get lost() { return this._lost; }
  get features() { return new Set(); }
  get limits() { return new GPUSupportedLimits(); }
  createBuffer({ size }) { return new GPUBuffer(size); }
  createShaderModule() { return { module: true }; }
  createComputePipeline() { return new GPUComputePipeline(); }
  createBindGroup() { return { group: true }; }
  createCommandEncoder() { return new GPUCommandEncoder(); }
  pushErrorScope() {}
  popErrorScope() { return Promise.resolve(null); }
  destroy() {}
}
class GPUSupportedLimits {
  get maxBindGroups() { return 4; }
  get maxBufferSize() { return 268435456; }
  get maxStorageBufferBindingSize() { return 134217728; }
}
class GPUAdapter {
  constructor() { this._features = new Set(['shader-f16']); }
  get features() { return this._features; }
  get limits() { return new GPUSupportedLimits(); }
  get info() { return { vendor: 'stand-in', architecture: 'cpu', device: '', description: '' }; }
  requestDevice() { return Promise.resolve(new GPUDevice()); }
}

/** `promise.then(...)` as wgpu chains on it (JsFuture, register_then_closures):
 *  a direct call of `then`, never `await`: `{ value }` or `{ error }`, or
 *  'unsettled' after `ms`. */
const settles = (promise, ms = 1000) => Promise.race([
  new Promise((resolve) => {
    promise.then((value) => resolve({ value }), (error) => resolve({ error }));
  }),
  new Promise((resolve) => setTimeout(() => resolve('unsettled'), ms)),
]);

/** What wgpu does with an adapter in a verification, step by step, the way
 *  its glue does it: every read and call direct. Throws where wgpu's frames
 *  would be unwound (a trap); answers each awaited step's outcome. */
async function drive(adapter) {
  const steps = [];
  // Adapter features and limits (map_wgt_features, map_wgt_limits).
  for (const name of ['shader-f16', 'float32-filterable']) steps.push(['has', adapter.features.has(name) ? 1 : 0]);
  steps.push(['limit', adapter.limits.maxBufferSize >>> 0]);
  const devicePromise = adapter.requestDevice({ requiredFeatures: [], requiredLimits: {} });
  const outcome = await settles(devicePromise);
  if (outcome === 'unsettled') throw new Error('requestDevice never settled');
  if (outcome.error !== undefined) return steps;
  const device = outcome.value;
  // Error scopes around the work, the queue, buffers, a pipeline, a pass.
  device.pushErrorScope('validation');
  const queue = device.queue;
  const input = device.createBuffer({ size: 16, usage: 40 });
  queue.writeBuffer(input, 0, new Uint8Array(16));
  const readback = device.createBuffer({ size: 16, usage: 9 });
  const module = device.createShaderModule({ code: '@compute fn main() {}' });
  const pipeline = device.createComputePipeline({ layout: 'auto', compute: { module, entryPoint: 'main' } });
  const layout = pipeline.getBindGroupLayout(0);
  const group = device.createBindGroup({ layout, entries: [{ binding: 0, resource: { buffer: input } }] });
  const encoder = device.createCommandEncoder();
  const pass = encoder.beginComputePass();
  pass.setPipeline(pipeline);
  pass.setBindGroup(0, group);
  pass.dispatchWorkgroups(1);
  pass.end();
  encoder.copyBufferToBuffer(input, 0, readback, 0, 16);
  queue.submit([encoder.finish()]);
  const mapped = await settles(readback.mapAsync(1, 0, 16));
  steps.push(['mapAsync', mapped === 'unsettled' ? 'unsettled' : 'settled']);
  if (mapped === 'unsettled') throw new Error('mapAsync never settled');
  const range = readback.getMappedRange(0, 16);
  const view = new Uint8Array(range, 0, 16); // throws (a trap in wgpu) unless it is an ArrayBuffer of 16 bytes
  steps.push(['read', view.length]);
  readback.unmap();
  const done = await settles(queue.onSubmittedWorkDone());
  if (done === 'unsettled') throw new Error('onSubmittedWorkDone never settled');
  const scope = await settles(device.popErrorScope());
  if (scope === 'unsettled') throw new Error('popErrorScope never settled');
  const error = scope.value;
  // wgpu's Error::from_js: a validation error, an out-of-memory one, or a panic.
  if (error != null && !(error instanceof GPUValidationError) && !(error instanceof GPUOutOfMemoryError)) {
    throw new Error('popErrorScope answered what wgpu panics on');
  }
  steps.push(['scope', error == null ? null : String(error.message)]);
  device.destroy();
  return steps;
}

/** Drives `adapter` through a fresh membrane: the steps and the fault, and
 *  every rejection left unhandled meanwhile. */
async function through(adapter) {
  const unhandled = [];
  const listener = (reason) => unhandled.push(reason);
  process.on('unhandledRejection', listener);
  try {
    const faults = verify.newFaults();
    // (A request that answered an adapter that cannot be read is refused
    // by the probe before any verification: wgpu sees a rejection.)
    const guarded = await settles(verify.adapterGuard(faults)(Promise.resolve().then(() => adapter)));
    assert.notEqual(guarded, 'unsettled', 'the guarded adapter settles');
    const steps = guarded.error === undefined ? await drive(guarded.value) : [];
    // Let the device's `lost` and every rejection run.
    await new Promise((resolve) => setTimeout(resolve, 20));
    return { steps, fault: verify.takeFault(faults), unhandled };
  } finally {
    process.off('unhandledRejection', listener);
  }
}

/** A stand-in adapter whose device is `device` (made from a fresh one). */
function adapterWith(changeDevice = (d) => d, changeAdapter = (a) => a) {
  const adapter = new GPUAdapter();
  adapter.requestDevice = () => Promise.resolve(changeDevice(new GPUDevice()));
  return changeAdapter(adapter);
}

/** A revoked Proxy: every operation on it throws TypeError. */
function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

describe('membrane: a stand-in that behaves goes through untouched', () => {
  test('every step runs on the page\'s objects, and no fault is noted', async () => {
    const { steps, fault, unhandled } = await through(new GPUAdapter());
    assert.deepEqual(steps, [['has', 1], ['has', 0], ['limit', 268435456], ['mapAsync', 'settled'], ['read', 16], ['scope', null]]);
    assert.equal(fault, undefined);
    assert.deepEqual(unhandled, []);
  });

  test('a validation error caught by a scope reaches wgpu as the browser\'s error', async () => {
    const adapter = adapterWith((device) => {
      device.popErrorScope = () => Promise.resolve(new GPUValidationError('bad binding'));
      return device;
    });
    const { steps, fault } = await through(adapter);
    assert.deepEqual(steps.at(-1), ['scope', 'bad binding']);
    assert.equal(fault, undefined, 'the module reads a caught error itself');
  });
});

// Each hostile stand-in: what it does, and the words its fault must have.
const HOSTILE = [
  ['a requestDevice property read that throws', adapterWith(undefined, (a) => {
    Object.defineProperty(a, 'requestDevice', { get() { throw new Error('no device for you'); } });
    return a;
  }), /reading requestDevice threw: no device for you/],
  ['requestDevice not a function', adapterWith(undefined, (a) => Object.assign(a, { requestDevice: 42 })),
    /requestDevice is a number, not a function/],
  ['a frozen adapter', adapterWith(undefined, (a) => {
    Object.defineProperty(a, 'features', { value: new Set(['shader-f16']), enumerable: true });
    return Object.freeze(a);
  }), undefined],
  ['a features.has that throws', adapterWith(undefined, (a) => {
    a._features = { has() { throw new Error('has exploded'); } };
    return a;
  }), /has\(\) threw: has exploded/],
  ['a throwing queue getter', adapterWith((d) => {
    Object.defineProperty(d, 'queue', { get() { throw new Error('queue is gone'); } });
    return d;
  }), /reading queue threw: queue is gone/],
  ['a frozen device', adapterWith((d) => {
    for (const key of ['queue', 'lost']) Object.defineProperty(d, key, { value: d[key], enumerable: true });
    return Object.freeze(d);
  }), undefined],
  ['submit undefined', adapterWith((d) => {
    d._queue.submit = undefined;
    return d;
  }), /submit is undefined, not a function/],
  ['mapAsync answering undefined', adapterWith((d) => {
    d.createBuffer = ({ size }) => Object.assign(new GPUBuffer(size), { mapAsync: () => undefined });
    return d;
  }), /mapAsync\(\) answered undefined, not a promise/],
  ['popErrorScope answering undefined', adapterWith((d) => Object.assign(d, { popErrorScope: () => undefined })),
    /popErrorScope\(\) answered undefined, not a promise/],
  ['a result whose then getter throws', adapterWith((d) => {
    // oxlint-disable-next-line unicorn/no-thenable -- the hostile case itself
    const poisoned = { get then() { throw new Error('then exploded'); } };
    d.createBuffer = ({ size }) => Object.assign(new GPUBuffer(size), { mapAsync: () => poisoned });
    return d;
  }), undefined],
  ['a revoked Proxy from createBuffer', adapterWith((d) => Object.assign(d, { createBuffer: () => revoked() })),
    /revoked/],
  ['a device.lost whose info has throwing getters', adapterWith((d) => {
    const info = {};
    Object.defineProperty(info, 'reason', { get() { throw new Error('no reason'); } });
    Object.defineProperty(info, 'message', { get() { throw new Error('no message'); } });
    d._lost = Promise.resolve(info);
    return d;
  }), /the device was lost \(unknown\)/],
  ['requestDevice resolving to undefined', adapterWith(() => undefined), /requestDevice\(\) resolved to undefined/],
  ['requestDevice rejecting with an error whose message getter throws', adapterWith(undefined, (a) => {
    const error = {};
    Object.defineProperty(error, 'message', { get() { throw new Error('unreadable'); } });
    a.requestDevice = () => Promise.reject(error);
    return a;
  }), /requestDevice\(\) failed: an error that cannot be read/],
  ['requestDevice answering a device, not a promise', adapterWith(undefined, (a) => {
    a.requestDevice = () => new GPUDevice();
    return a;
  }), /requestDevice\(\) answered an object, not a promise/],
  ['popErrorScope resolving to an internal error (wgpu panics on it)', adapterWith((d) => {
    d.popErrorScope = () => Promise.resolve(new GPUInternalError('device hung'));
    return d;
  }), /an error scope caught an object: device hung/],
  ['popErrorScope resolving to a plain object', adapterWith((d) => Object.assign(d, { popErrorScope: () => Promise.resolve({}) })),
    /an error scope caught an object/],
  ['getMappedRange answering too few bytes', adapterWith((d) => {
    d.createBuffer = ({ size }) => Object.assign(new GPUBuffer(size), { getMappedRange: () => new ArrayBuffer(2) });
    return d;
  }), /getMappedRange\(\) answered too few bytes/],
  ['getMappedRange answering a typed array, not its buffer', adapterWith((d) => {
    d.createBuffer = ({ size }) => Object.assign(new GPUBuffer(size), { getMappedRange: () => new Uint8Array(16) });
    return d;
  }), /getMappedRange\(\) answered an object/],
  ['createComputePipeline answering null', adapterWith((d) => Object.assign(d, { createComputePipeline: () => null })),
    /createComputePipeline\(\) answered null, not an object/],
  ['writeBuffer throwing', adapterWith((d) => {
    d._queue.writeBuffer = () => { throw new RangeError('out of range'); };
    return d;
  }), /writeBuffer\(\) threw: out of range/],
  ['a limit that is an object', adapterWith(undefined, (a) => {
    Object.defineProperty(a, 'limits', { get: () => ({ maxBufferSize: { valueOf() { throw new Error('boom'); } } }) });
    return a;
  }), /maxBufferSize is an object, not a number/],
  ['a device whose getPrototypeOf throws (a hostile Proxy)', adapterWith((d) => new Proxy(d, {
    getPrototypeOf() { throw new Error('no prototype'); },
  })), undefined],
  ['an adapter that is a revoked Proxy', revoked(), undefined],
  ['a device with no member at all (a mock)', adapterWith(() => ({})), /pushErrorScope is undefined, not a function/],
  ['a device without a queue', adapterWith((d) => Object.defineProperty(d, 'queue', { value: null })), /queue is null, not an object/],
  ['an adapter without features (a mock)', adapterWith(undefined, (a) => {
    Object.defineProperty(a, 'features', { value: undefined });
    return a;
  }), /features is undefined, not an object/],
  ['onSubmittedWorkDone throwing', adapterWith((d) => {
    d._queue.onSubmittedWorkDone = () => { throw new Error('not now'); };
    return d;
  }), /onSubmittedWorkDone\(\) threw: not now/],
  ['a frozen command encoder whose finish is not a function', adapterWith((d) => {
    d.createCommandEncoder = () => Object.freeze(Object.assign(new GPUCommandEncoder(), { finish: 'done' }));
    return d;
  }), /finish is a string, not a function/],
];

describe('membrane: hostile stand-ins never throw into wgpu, never hang it, never leave a rejection unhandled', () => {
  for (const [what, adapter, words] of HOSTILE) {
    test(what, async () => {
      const { fault, unhandled } = await through(adapter);
      assert.deepEqual(unhandled, [], 'no unhandled rejection');
      if (words === undefined) return;
      assert.ok(fault !== undefined, 'a fault is noted');
      assert.match(fault.message, words);
      assert.ok(['verify-failed', 'device-lost'].includes(fault.kind));
    });
  }

  test('a frozen adapter and device still run every step, on the page\'s objects', async () => {
    const frozen = HOSTILE.filter(([what]) => /frozen (adapter|device)/.test(what));
    for (const [, adapter] of frozen) {
      const { steps, fault } = await through(adapter);
      assert.equal(fault, undefined);
      assert.deepEqual(steps.at(-2), ['read', 16]);
    }
  });

  test('a thenable whose then throws rejects what wgpu chains on, with the words', async () => {
    // oxlint-disable-next-line unicorn/no-thenable -- the hostile case itself
    const poisoned = { get then() { throw new Error('then exploded'); } };
    const buffer = Object.assign(new GPUBuffer(4), { mapAsync: () => poisoned });
    const faults = verify.newFaults();
    const adapter = adapterWith((d) => Object.assign(d, { createBuffer: () => buffer }));
    const guarded = await verify.adapterGuard(faults)(Promise.resolve(adapter));
    const device = await guarded.requestDevice();
    const outcome = await settles(device.createBuffer({ size: 4 }).mapAsync(1));
    assert.match(outcome.error.message, /then exploded/);
  });
});

describe('membrane: what wgpu gets after a fault', () => {
  test('the stand-in answers every read and call, and what wgpu chains on rejects', async () => {
    const faults = verify.newFaults();
    const adapter = adapterWith((d) => Object.assign(d, { createCommandEncoder() { throw new Error('no encoder'); } }));
    const device = await (await verify.adapterGuard(faults)(Promise.resolve(adapter))).requestDevice();
    const encoder = device.createCommandEncoder();
    const pass = encoder.beginComputePass();
    assert.equal(pass.setPipeline(), encoder, 'a call answers the stand-in again');
    assert.equal(encoder.maxBufferSize, 0);
    assert.equal(encoder.vendor, '');
    assert.equal(encoder.features.has('x'), false);
    assert.equal(+encoder, 0);
    assert.deepEqual([...encoder], []);
    assert.match((await settles(encoder.mapAsync(1))).error.message, /earlier WebGPU call failed/);
    assert.match((await settles(encoder)).error.message, /earlier WebGPU call failed/, 'then rejects: no hang');
    assert.deepEqual(verify.takeFault(faults), { kind: 'verify-failed', message: 'createCommandEncoder() threw: no encoder' });
  });

  test('membrane objects are never thenables, keep their prototype and are one per page object', async () => {
    const faults = verify.newFaults();
    const guarded = await verify.adapterGuard(faults)(Promise.resolve(new GPUAdapter()));
    assert.equal(guarded.then, undefined);
    assert.ok(guarded instanceof GPUAdapter);
    const device = await guarded.requestDevice();
    assert.ok(device instanceof GPUDevice);
    assert.equal(device.queue, device.queue);
    assert.equal(typeof device.lost.then, 'function', 'a promise member is a promise of this realm');
  });

  test('the page\'s objects are handed back to the browser, at any depth of a descriptor', async () => {
    const seen = [];
    const adapter = adapterWith((d) => Object.assign(d, {
      createBindGroup(descriptor) {
        seen.push(descriptor.layout, descriptor.entries[0].resource.buffer);
        return {};
      },
    }));
    const device = await (await verify.adapterGuard(verify.newFaults())(Promise.resolve(adapter))).requestDevice();
    const buffer = device.createBuffer({ size: 4 });
    const layout = device.createComputePipeline({}).getBindGroupLayout(0);
    device.createBindGroup({ layout, entries: [{ binding: 0, resource: { buffer } }] });
    assert.ok(seen[1] instanceof GPUBuffer);
    assert.equal(Object.getPrototypeOf(seen[1]), GPUBuffer.prototype);
    assert.equal(seen[0].layout, true);
    assert.equal(REALLY_RAW(seen[1]), true);
  });
});

/** Whether `value` is a page object itself, not a membrane object (a
 *  membrane object's own keys are its shadow's: none). */
function REALLY_RAW(value) {
  return Object.keys(value).includes('_size');
}

// Types of the detect-only entry (`backend-targets/detect`): the full
// package's `probe` and `detect`, over a smaller module.
import type { Detection, ProbeOptions, ProbeReport, InitInput } from './index.js';

export type { Detection, ProbeOptions, ProbeReport, Resolution } from './index.js';
export {
  BackendTargetsError, executionProviders, isBackendTargetsError, supportReport, transformersOptions,
} from './index.js';

/** Instantiates the module once (`detect` and `probe` call it themselves
 *  when they need it: not where there is no adapter to probe); a URL,
 *  `Response`, `WebAssembly.Module` or bytes given before the first call
 *  replaces the module the entry fetches once an adapter answers. */
export default function initDetect(moduleOrPath?: InitInput | Promise<InitInput>): Promise<unknown>;

/** `probe(options)`, then the `wasm` target resolved by its report. */
export function detect(options?: Partial<ProbeOptions>): Promise<Detection>;

/** Probes WebGPU afresh; in Node it answers `no-navigator`. */
export function probe(options?: Partial<ProbeOptions>): Promise<ProbeReport>;

/** Forgets every verdict `detect({ verify })` kept (this page's memory, localStorage, IndexedDB). */
export function clearVerifications(): Promise<void>;

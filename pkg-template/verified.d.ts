// Types of the verification entry (`backend-targets/verify`): the full
// package's `probe` and `detect`, which take `verify`, over a module of their own.
import type { Detection, ProbeOptions, ProbeReport, InitInput } from './index.js';

export type { Detection, ProbeOptions, ProbeReport, Resolution, Verification, VerifyOptions } from './index.js';
export {
  BackendTargetsError, executionProviders, isBackendTargetsError, supportReport, transformersOptions,
} from './index.js';

/** Instantiates the module once (`detect` and `probe` call it themselves). */
export default function initVerified(moduleOrPath?: InitInput | Promise<InitInput>): Promise<unknown>;

/** `probe(options)` (with `verify`, the adapter verified), then the `wasm` target resolved by its report. */
export function detect(options?: Partial<ProbeOptions>): Promise<Detection>;

/** Probes WebGPU afresh (with `verify`, the adapter verified); in Node it answers `no-navigator`. */
export function probe(options?: Partial<ProbeOptions>): Promise<ProbeReport>;

/** Forgets every verdict `verify` kept (this page's memory, localStorage, IndexedDB). */
export function clearVerifications(): Promise<void>;

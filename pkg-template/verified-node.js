// Node entry of `backend-targets/verify`: Node has no WebGPU to verify, so the
// full package (instantiated at import, see node.js) answers, with the same code:
// `verify` is read and checked, and the probe answers `no-navigator`.
export {
  BackendTargetsError, clearVerifications, detect, executionProviders, isBackendTargetsError, probe, supportReport,
  transformersOptions,
} from './node.js';

/** Nothing to instantiate: node.js did at import. */
export default async function initVerified() {}

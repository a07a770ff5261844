// Node entry of `backend-targets/detect`: Node has no WebGPU to probe, so the
// full package (instantiated at import, see node.js) answers, with the same code.
export {
  BackendTargetsError, clearVerifications, detect, detectNative, executionProviders, isBackendTargetsError, probe,
  supportReport, transformersOptions,
} from './node.js';

/** Nothing to instantiate: node.js did at import. */
export default async function initDetect() {}

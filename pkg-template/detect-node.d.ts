// Types of `backend-targets/detect` in Node (the `node` condition,
// detect-node.js): the detect-only entry's, and `detectNative()`, which
// runs the platform package's command. A browser's `backend-targets/detect`
// has no `detectNative` (the full entry's answers `unsupported-platform`
// there, without the command).
export * from './detect.js';
export { default } from './detect.js';
export type { NativeOptions, NativeResolution } from './index.js';
export { detectNative } from './index.js';

// The suites' entry (pkg-test/index.js, never published): the package's full
// entry, plus two hooks over a module built with the `test-hooks` feature
// (a forced panic, memory exhausted), to prove recovery on the code the
// package ships.
import { guarded } from './guard.js';

export * from './index.js';
export { default } from './index.js';
export const __forcePanicForTesting = guarded('__forcePanicForTesting');
export const __exhaustMemoryForTesting = guarded('__exhaustMemoryForTesting');

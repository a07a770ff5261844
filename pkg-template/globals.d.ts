// For the type check of the hand-written JS (tsconfig.json) only: what
// scripts/bundle.mjs defines when it bundles an entry.
declare const __BACKEND_TARGETS_VERSION__: string | undefined;

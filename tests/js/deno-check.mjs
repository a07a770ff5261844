// Run by deno.test.mjs under Deno: `deno run --allow-read --allow-env deno-check.mjs <pkg entry>`.
// Prints one JSON object with what the package answered.
const entry = Deno.args[0];
const api = await import(new URL(`file://${entry}`).href);
if (entry.endsWith('index.js')) await api.default();
if (entry.endsWith('detect.js')) {
  // The detect-only entry: no planner, no init call.
  const resolved = await api.detect({ timeoutMs: 5000 });
  console.log(JSON.stringify({ apiPresent: typeof navigator.gpu === 'object', probe: await api.probe({ timeoutMs: 5000 }), resolved }));
  Deno.exit(0);
}
const vectors = new URL('../vectors/', import.meta.url);
const request = await Deno.readTextFile(new URL('requests/default-explained.json', vectors));
const golden = await Deno.readTextFile(new URL('cli/plan-default-explained.out', vectors));
let limit;
try {
  api.planJson(JSON.stringify({ ops: Array(10_001).fill('add') }));
} catch (error) {
  limit = { code: error.code, path: error.path };
}
const probe = await api.probe({ timeoutMs: 5000 });
const verified = await api.probe({ timeoutMs: 5000, verifyDevice: true });
const resolved = await api.detect({ timeoutMs: 5000 });
// The verified decision on Deno's WebGPU (a native wgpu): afresh, then kept
// (Deno's localStorage persists between runs: cleared first).
await api.clearVerifications();
const decisions = [];
for (const cache of ['none', 'persistent', 'persistent']) {
  const started = performance.now();
  const decided = await api.detect({ timeoutMs: 5000, verify: { cache } });
  decisions.push({ probe: decided.probe, change: decided.changes[0], ms: performance.now() - started });
}
await api.clearVerifications();
// The native decision: no platform package beside pkg/ (and no --allow-run):
// a resolution all the same, its rows dropped with the reason.
const nativeAnswer = await api.detectNative();
const native = { reason: nativeAnswer.probe.reason, detail: nativeAnswer.probe.message,
  isolation: nativeAnswer.probe.isolation, providers: api.executionProviders(nativeAnswer) };
console.log(JSON.stringify({
  native,
  planJson: `${api.planJson(request)}\n`, golden, limit, apiPresent: typeof navigator.gpu === 'object', probe, verified, resolved,
  decisions,
}));

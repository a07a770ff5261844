// Module resolution hooks for the package's entries on the source
// (tests/js/shell.test.mjs registers them): pkg-template/'s imports of the
// module's JS halves ('./probe.js', './boundary.js', './verify.js') resolve to
// crates/browser/src/, as scripts/bundle.mjs resolves them for the build, and
// its imports of wasm-bindgen's glue ('./backend_targets.js') to a stub
// (fixtures/stub-glue.mjs) named after the importing entry. An entry imported
// with a query (`index.js?case=3`) hands the query on to every module it
// imports, so that each case has its own state: its own early request, kept
// verdicts, verification module and stub.
const HALVES = new Set(['./probe.js', './boundary.js', './verify.js']);
const ROOT = new URL('../../', import.meta.url);

export async function resolve(specifier, context, next) {
  const parent = context.parentURL === undefined ? undefined : new URL(context.parentURL);
  if (parent === undefined || !specifier.startsWith('./')) return next(specifier, context);
  const inTemplate = parent.pathname.includes('/pkg-template/');
  const inHalves = parent.pathname.includes('/crates/browser/src/');
  if (!inTemplate && !inHalves) return next(specifier, context);
  let url;
  if (inTemplate && HALVES.has(specifier)) {
    url = new URL(`crates/browser/src/${specifier.slice(2)}`, ROOT);
  } else if (inTemplate && specifier === './backend_targets.js') {
    url = new URL('./fixtures/stub-glue.mjs', import.meta.url);
    url.searchParams.set('entry', parent.pathname.split('/').pop().replace(/\.js$/, ''));
  } else {
    url = new URL(specifier, parent);
  }
  for (const [key, value] of parent.searchParams) if (key !== 'entry') url.searchParams.set(key, value);
  return { url: url.href, shortCircuit: true };
}

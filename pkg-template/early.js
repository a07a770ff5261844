// Shared by both browser entries (index.js, detect.js), bundled into each by
// scripts/build.sh: the .wasm fetched and compiled (streaming) from the moment
// the entry is evaluated, not from the first call; any other module given to
// init() compiled the same way and checked before it is instantiated; and the
// errors the entries answer without the module.

/** A `BackendTargetsError` made here, with the fields the module's own have. */
export function backendError(code, message) {
  const error = new Error(`[${code}] at (top level): ${message}`);
  return Object.assign(error, { name: 'BackendTargetsError', code, path: '' });
}

/** What a call before init() throws (and probe/detect reject with). */
export const notInitialised = () =>
  backendError('usage', 'call init() first: the module is not instantiated yet (await init(), or initSync({ module }))');

/** A compiled module from a `fetch` answer (or its promise): streaming, or
 *  its bytes when the server does not send `application/wasm`. */
function compileResponse(response) {
  if (typeof WebAssembly.compileStreaming !== 'function') return Promise.resolve(response).then(compileBytes);
  return WebAssembly.compileStreaming(response).catch(async (error) => {
    const answer = await response;
    // compileStreaming checks the MIME type before it reads the body.
    if (answer.ok && !answer.bodyUsed) return WebAssembly.compile(await answer.arrayBuffer());
    throw error;
  });
}

async function compileBytes(source) {
  if (typeof Response === 'function' && source instanceof Response) {
    if (!source.ok) throw new Error(`failed to fetch Wasm: ${source.status} ${source.statusText} fetching '${source.url}'`);
    return compileResponse(source);
  }
  return WebAssembly.compile(source);
}

/** The module compiling since evaluation; undefined off http(s), as in Node. */
export function compileEarly(url) {
  if (!/^https?:$/.test(url.protocol) || typeof fetch !== 'function') return undefined;
  const compiled = compileResponse(fetch(url));
  compiled.catch(() => {}); // reported by init(), if it is called
  return compiled;
}

/** What init() was given (wasm-bindgen's forms: `{ module_or_path }`, a URL,
 *  a `Request` or `Response`, bytes, a `WebAssembly.Module`, or a promise of
 *  one) as a compiled module. */
export async function compile(input) {
  let source = input;
  if (source !== null && typeof source === 'object' && Object.getPrototypeOf(source) === Object.prototype) {
    source = source.module_or_path;
  }
  source = await source;
  if (source instanceof WebAssembly.Module) return source;
  if (typeof source === 'string' || source instanceof URL || (typeof Request === 'function' && source instanceof Request)) {
    source = await fetch(source);
  }
  return compileBytes(source);
}

/** What initSync() was given (`{ module }`, bytes or a module), compiled. */
export function compileSync(input) {
  let module = input;
  if (module !== null && typeof module === 'object' && Object.getPrototypeOf(module) === Object.prototype) {
    module = module.module;
  }
  return module instanceof WebAssembly.Module ? module : new WebAssembly.Module(module);
}

/** Refuses a module that lacks one of `names` among its exports (another
 *  package's .wasm, the other entry's, a stale one) before it is
 *  instantiated, so that a later init() with the right one still can be. */
export function checkModule(module, names) {
  const exported = new Set(WebAssembly.Module.exports(module).map((entry) => entry.name));
  const missing = names.find((name) => !exported.has(name));
  if (missing !== undefined) {
    throw backendError('invalid-value', `init() was given a .wasm that is not this package's module (it has no export ${missing}); it was not instantiated`);
  }
}

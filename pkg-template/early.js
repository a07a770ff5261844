// Shared by both browser entries (index.js, detect.js), bundled into each by
// scripts/build.sh: the .wasm fetched and compiled (streaming) from the moment
// the entry is evaluated, not from the first call.

/** The module compiling since evaluation (or its bytes, for a server that
 *  does not send `application/wasm`); undefined off http(s), as in Node. */
export function compileEarly(url) {
  if (!/^https?:$/.test(url.protocol) || typeof fetch !== 'function') return undefined;
  const response = fetch(url);
  if (typeof WebAssembly.compileStreaming !== 'function') return response;
  const compiled = WebAssembly.compileStreaming(response).catch(async (error) => {
    const answer = await response;
    // compileStreaming checks the MIME type before it reads the body.
    if (answer.ok && !answer.bodyUsed) return answer.arrayBuffer();
    throw error;
  });
  compiled.catch(() => {}); // reported by init(), if it is called
  return compiled;
}

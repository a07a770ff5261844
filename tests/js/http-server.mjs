// Starts and stops `wasmtime serve` on a free loopback port, for the HTTP
// service's tests (http.test.mjs) and its benchmark (bench/http.mjs).
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { ROOT } from './common.mjs';

export const HTTP_COMPONENT = process.env.BACKEND_TARGETS_HTTP ?? join(ROOT, 'dist', 'backend-targets-http.wasm');

/** The flags README gives: no pooling allocator in this wasmtime, and
 * wasi:cli for Rust's standard library. */
export const SERVE_FLAGS = ['-O', 'pooling-allocator=n', '-S', 'cli'];

/** A port that was free a moment ago (`wasmtime serve` cannot bind port 0
 * and say which port it took). */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Starts `wasmtime serve` for `component`; resolves when it listens, with
 * { child, port, base, output(), stop() }. Retries on a port taken between
 * the check and the bind. */
export async function serve(component = HTTP_COMPONENT, extraFlags = []) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const child = spawn('wasmtime', ['serve', ...SERVE_FLAGS, ...extraFlags, '--addr', `127.0.0.1:${port}`, component],
      { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const started = await new Promise((resolve) => {
      const check = () => { if (output.includes('Serving HTTP on')) { done(true); } };
      const done = (value) => { child.stderr.off('data', check); child.off('exit', exited); resolve(value); };
      const exited = () => done(false);
      child.stderr.on('data', check);
      child.once('exit', exited);
    });
    if (started) {
      const stop = () => new Promise((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once('exit', resolve);
        // By its process id: SIGINT is wasmtime serve's graceful stop.
        process.kill(child.pid, 'SIGINT');
        setTimeout(() => { if (child.exitCode === null && child.signalCode === null) process.kill(child.pid, 'SIGKILL'); }, 5000).unref();
      });
      return { child, port, base: `http://127.0.0.1:${port}`, output: () => output, stop };
    }
    if (attempt >= 3 || !/address already in use/i.test(output)) {
      throw new Error(`wasmtime serve did not start: ${output}`);
    }
  }
}

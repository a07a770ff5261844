// Paths and vectors shared by the Node test suites.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const VECTORS = join(ROOT, 'tests', 'vectors');
export const WASI_MODULE = process.env.BACKEND_TARGETS_WASI ?? join(ROOT, 'dist', 'backend-targets.wasm');
export const NATIVE_BIN = process.env.BACKEND_TARGETS_NATIVE ?? join(ROOT, 'target', 'release', 'backend-targets');

export const cliCases = () => JSON.parse(readFileSync(join(VECTORS, 'cli.json'), 'utf8'));
export const malformedCases = () => JSON.parse(readFileSync(join(VECTORS, 'malformed.json'), 'utf8'));

/** A port that was free a moment ago (for a server that cannot bind port 0
 * and say which port it took: `wasmtime serve`, `vite`). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

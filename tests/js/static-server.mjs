// A tiny static file server for the repository root, on 127.0.0.1 and a
// random port, for the browser suite and the probe benchmark. It serves the
// demo page (www/) and the built package (pkg/) with the MIME types a browser
// insists on (`application/wasm` for streaming compilation, a JavaScript type
// for modules) and sends the demo's Content-Security-Policy as a header too.
// Not a test file: `node --test tests/js/` does not pick it up.
import { createServer } from 'node:http';
import { createReadStream, statSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';

/** The policy the demo page also states in its <meta> tag. */
export const CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; "
  + "img-src 'self' data:; connect-src 'self'";

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.ts': 'text/plain; charset=utf-8',
  '.md': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.txt': 'text/plain; charset=utf-8',
};

/**
 * Serves `root` until `close()`. Resolves to `{ origin, port, requests, close }`;
 * `requests` records every `{ method, path, status }` answered. `pages` maps
 * extra paths to in-memory HTML documents (e.g. a benchmark's page); `headers`
 * are added to every response.
 */
export async function serve(root, { csp = CSP, pages = {}, headers = {} } = {}) {
  const requests = [];
  const server = createServer((req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const answer = (status, extra, body) => {
      requests.push({ method: req.method, path, status });
      res.writeHead(status, { 'Cache-Control': 'no-store', 'Content-Security-Policy': csp, ...headers, ...extra });
      res.end(body);
    };
    if (req.method !== 'GET' && req.method !== 'HEAD') return answer(405, { Allow: 'GET, HEAD' }, '');
    if (Object.hasOwn(pages, path)) {
      return answer(200, { 'Content-Type': 'text/html; charset=utf-8' }, req.method === 'HEAD' ? '' : pages[path]);
    }
    let file = normalize(join(root, path));
    if (file !== root && !file.startsWith(root + sep)) return answer(403, {}, 'forbidden\n');
    let stat;
    try {
      stat = statSync(file);
      if (stat.isDirectory()) {
        if (!path.endsWith('/')) return answer(301, { Location: `${path}/` }, '');
        file = join(file, 'index.html');
        stat = statSync(file);
      }
    } catch {
      return answer(404, { 'Content-Type': 'text/plain; charset=utf-8' }, 'not found\n');
    }
    const type = TYPES[extname(file).toLowerCase()] ?? 'application/octet-stream';
    requests.push({ method: req.method, path, status: 200 });
    res.writeHead(200, {
      'Content-Type': type,
      'Content-Length': stat.size,
      'Cache-Control': 'no-store',
      'X-Content-Type-Options': 'nosniff',
      'Content-Security-Policy': csp,
      ...headers,
    });
    if (req.method === 'HEAD') return res.end();
    createReadStream(file).pipe(res);
  });
  // Keep-alive sockets would hold close() open.
  server.keepAliveTimeout = 1;
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address();
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    requests,
    close: () => new Promise((resolve) => {
      server.closeAllConnections?.();
      server.close(() => resolve());
    }),
  };
}

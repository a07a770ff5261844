// A fresh temporary project that installs real packages offline, as a new
// user's would, and Vite's dev server in it (`startViteDev`): the recipe tests (ort-vite.test.mjs, transformers.test.mjs)
// install npm packages into it from the npm cache that `npm ci` in tests/js
// (scripts/setup.sh) filled, and the package's own tarball, with no network.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { ROOT, freePort } from './common.mjs';

const LOCKFILE = join(ROOT, 'tests', 'js', 'package-lock.json');

/** tests/js/package-lock.json's entries for `path` and everything it depends on,
 *  at the same places in node_modules (dev flags dropped). */
function lockedClosure(path, packages, kept = {}) {
  if (kept[path]) return kept;
  assert.ok(packages[path], `${path} is in tests/js/package-lock.json`);
  const entry = { ...packages[path] };
  for (const flag of ['dev', 'devOptional', 'peer']) delete entry[flag];
  kept[path] = entry;
  for (const name of Object.keys({ ...entry.dependencies, ...entry.optionalDependencies })) {
    // Node's resolution: the nearest node_modules up the path.
    let base = path;
    for (;;) {
      const candidate = base === '' ? `node_modules/${name}` : `${base}/node_modules/${name}`;
      if (packages[candidate]) {
        lockedClosure(candidate, packages, kept);
        break;
      }
      assert.notEqual(base, '', `${name} (for ${path}) is in tests/js/package-lock.json`);
      const at = base.lastIndexOf('/node_modules/');
      base = at < 0 ? '' : base.slice(0, at);
    }
  }
  return kept;
}

/**
 * A temporary project (`prefix` names its folder) with `dependencies` (name →
 * the version tests/js pins) and `tarball` (one, or a list: the package and
 * its platform package) installed offline, without install
 * scripts (onnxruntime-node's postinstall downloads). The dependencies come
 * by a lockfile drawn from tests/js's: npm's offline mode resolves a new
 * dependency only from full packuments, which `npm ci` does not cache; the
 * lockfile names the very tarballs it did. Returns { dir, write(name, text),
 * run(command, args, extraEnv) → { status, output } (stdout + stderr) }.
 */
export function offlineProject(prefix, dependencies, tarball) {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  const write = (name, text) => writeFileSync(join(dir, name), text);
  const run = (command, args, extraEnv = {}) => {
    const r = spawnSync(command, args, {
      cwd: dir,
      encoding: 'utf8',
      timeout: 300_000,
      env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...extraEnv },
    });
    if (r.error) throw r.error;
    return { status: r.status, output: `${r.stdout}${r.stderr}` };
  };
  const { packages } = JSON.parse(readFileSync(LOCKFILE, 'utf8'));
  let locked = {};
  for (const name of Object.keys(dependencies)) {
    assert.equal(packages[`node_modules/${name}`]?.version, dependencies[name], `tests/js pins ${name} ${dependencies[name]}`);
    locked = lockedClosure(`node_modules/${name}`, packages, locked);
  }
  const name = basename(dir);
  write('package.json', JSON.stringify({ name, private: true, type: 'module', dependencies }, null, 2));
  write('package-lock.json', JSON.stringify({
    name, lockfileVersion: 3, requires: true, packages: { '': { name, dependencies }, ...locked },
  }, null, 2));
  let r = run('npm', ['ci', '--offline', '--no-audit', '--no-fund', '--ignore-scripts']);
  assert.equal(r.status, 0, `npm ci --offline failed (is npm's cache filled? npm ci in tests/js):\n${r.output}`);
  const tarballs = Array.isArray(tarball) ? tarball : [tarball];
  for (const file of tarballs) copyFileSync(file, join(dir, basename(file)));
  r = run('npm', ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts',
    ...tarballs.map((file) => `./${basename(file)}`)]);
  assert.equal(r.status, 0, `npm install --offline failed:\n${r.output}`);
  return { dir, write, run };
}

/** `vite` (its dev server, the script `vite`) in the project `dir` until
 *  `close()`: { origin, output(), close }. */
export async function startViteDev(vite, dir) {
  const port = await freePort();
  const env = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' };
  const child = spawn(process.execPath, [vite, '--host', '127.0.0.1', '--port', String(port), '--strictPort', '--logLevel', 'info'],
    { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  const exited = new Promise((resolve) => child.once('exit', resolve));
  await new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`vite did not start:\n${output}`)), 120_000);
    const read = (chunk) => {
      output += chunk;
      if (output.includes(`http://127.0.0.1:${port}/`)) {
        clearTimeout(timer);
        resolve();
      }
    };
    child.stdout.on('data', read);
    child.stderr.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`vite exited (${code}):\n${output}`));
    });
  });
  return {
    origin: `http://127.0.0.1:${port}`,
    output: () => output,
    close: async () => {
      child.kill('SIGTERM');
      await exited;
    },
  };
}

// The Node side of `detectNative()` (I/O only): finds the native command in
// this platform's package (`backend-targets-linux-x64-gnu`, ...: an optional
// dependency, as esbuild's and Biome's are) or at `BACKEND_TARGETS_COMMAND`,
// runs its `probe` on the target the module chose, within the call's bound,
// and hands back its answer, or why there is none. What to ask and what a
// missing answer means are the module's (index.js, `detectNative`; the
// core's `NativeResolution::without_probe`). node.js installs it.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { performance } from 'node:perf_hooks';

const require = createRequire(import.meta.url);

/** The environment variable that names a command to run instead of the
 *  platform package's (an absolute path: `cargo install`'s, a build's). */
export const COMMAND_VARIABLE = 'BACKEND_TARGETS_COMMAND';

/** The most of the command's output read: its answer is a few KB. */
const OUTPUT_MAX_BYTES = 4 * 1024 * 1024;

/** How much of the call's bound is left to end the command after its own
 *  bound (`--timeout-ms`) has passed: it ends its checks and answers. */
const ANSWER_MARGIN_MS = 250;

/** The platform package for this host, as npm's `os`, `cpu` and `libc`
 *  fields name it: `backend-targets-<platform>-<arch>` and, on Linux, `-gnu`
 *  or `-musl` (the C library Node was built against). */
export function platformPackage(platform = process.platform, arch = process.arch) {
  if (platform !== 'linux') return `backend-targets-${platform}-${arch}`;
  return `backend-targets-${platform}-${arch}-${libc() === 'musl' ? 'musl' : 'gnu'}`;
}

/** The C library Node runs on, `'glibc'` or `'musl'` (as its report says;
 *  `'glibc'` where there is no report to read, as in Deno without
 *  `--allow-sys`), read once: Node's report takes milliseconds to write. */
let runtimeLibc;
function libc() {
  if (runtimeLibc === undefined) {
    let report;
    try {
      report = /** @type {any} */ (process.report?.getReport?.());
    } catch {
      report = undefined;
    }
    runtimeLibc = report?.header !== undefined && report.header.glibcVersionRuntime === undefined ? 'musl' : 'glibc';
  }
  return runtimeLibc;
}

/** This package's version (the platform package must be the same), read once. */
let packageVersion;
function ownVersion() {
  packageVersion ??= JSON.parse(readFileSync(new URL('./package.json', import.meta.url), 'utf8')).version;
  return packageVersion;
}

/** The command to run: `{ path }`, or `{ missing }` saying why there is none. */
export function locateCommand(env = process.env) {
  const named = env[COMMAND_VARIABLE];
  if (named !== undefined && named !== '') {
    return existsSync(named) ? { path: named } : { missing: `${COMMAND_VARIABLE} names ${named}, which does not exist` };
  }
  const name = platformPackage();
  let manifest;
  try {
    manifest = require.resolve(`${name}/package.json`);
  } catch {
    return {
      missing: `no native command for this host: the package ${name} is not installed (npm installs it with `
        + `backend-targets where one is built for the host; none is for ${process.platform} ${process.arch}, or it was `
        + `installed with --no-optional). Set ${COMMAND_VARIABLE} to a backend-targets command (cargo install) to use it`,
    };
  }
  const { version } = JSON.parse(readFileSync(manifest, 'utf8'));
  const wanted = ownVersion();
  if (version !== wanted) {
    return { missing: `${name} is version ${version}, not ${wanted} (backend-targets's): install the same version` };
  }
  const path = join(dirname(manifest), 'bin', process.platform === 'win32' ? 'backend-targets.exe' : 'backend-targets');
  return existsSync(path) ? { path } : { missing: `${name} has no command at ${path}` };
}

/** The first line of a text, at most 300 characters. */
const firstLine = (text) => text.trim().split('\n')[0].slice(0, 300);

/** Runs the command's `probe` on `target` (a Target object) with what is
 *  left of `timeoutMs` since `began` (a `performance.now()` time): resolves
 *  `{ resolution }` (the command's answer, parsed) or `{ reason, message }`
 *  (`unsupported-platform` without a command, `timeout` past the bound,
 *  `check-crashed` when it failed), never rejects. */
export function runProbe(target, timeoutMs, began, env = process.env) {
  let command;
  try {
    command = locateCommand(env);
  } catch (error) {
    // A runtime that will not let the package look (Deno without --allow-env
    // or --allow-read for node_modules): no command here.
    return Promise.resolve({ reason: 'unsupported-platform', message: `no native command could be looked for in `
      + `this runtime: ${error?.message ?? error}` });
  }
  if (command.missing !== undefined) return Promise.resolve({ reason: 'unsupported-platform', message: command.missing });
  const left = timeoutMs - (performance.now() - began);
  const own = Math.max(1, Math.floor(left - Math.min(ANSWER_MARGIN_MS, left / 4)));
  return new Promise((answer) => {
    let settled = false;
    const settle = (outcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      answer(outcome);
    };
    let child;
    try {
      child = spawn(command.path, ['probe', '-', '--timeout-ms', String(own)], {
        stdio: ['pipe', 'pipe', 'pipe'],
        windowsHide: true,
      });
    } catch (error) {
      settle({ reason: 'check-crashed', message: `the command ${command.path} could not start: ${error.message}` });
      return;
    }
    const timer = setTimeout(() => {
      child.kill('SIGTERM');
      // A command that ignores the signal is ended; nothing waits for it.
      setTimeout(() => child.kill('SIGKILL'), 1000).unref();
      settle({ reason: 'timeout', message: `the native probe gave no answer within ${timeoutMs} ms` });
    }, Math.max(0, left));
    const out = [];
    let outBytes = 0;
    let err = '';
    child.stdout.on('data', (chunk) => {
      outBytes += chunk.length;
      if (outBytes <= OUTPUT_MAX_BYTES) out.push(chunk);
    });
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (chunk) => {
      if (err.length < 4096) err += chunk;
    });
    child.on('error', (error) => {
      settle({ reason: 'check-crashed', message: `the command ${command.path} could not run: ${error.message}` });
    });
    child.on('close', (status, signal) => {
      if (status !== 0 || outBytes > OUTPUT_MAX_BYTES) {
        const why = signal !== null ? `was ended by ${signal}` : status !== 0 ? `exited with status ${status}`
          : `answered more than ${OUTPUT_MAX_BYTES} bytes`;
        settle({ reason: 'check-crashed', message: `the command ${command.path} ${why}`
          + (err.trim() === '' ? '' : `: ${firstLine(err)}`) });
        return;
      }
      try {
        const resolution = JSON.parse(Buffer.concat(out).toString('utf8'));
        if (typeof resolution?.effective !== 'object' || !Array.isArray(resolution?.changes)) throw new Error('not a resolution');
        settle({ resolution });
      } catch (error) {
        settle({ reason: 'check-crashed', message: `the command ${command.path} answered what is not a resolution `
          + `(${error.message})` });
      }
    });
    // A command that exits before reading its input closes the pipe: that
    // is its exit status's to say, not an error here.
    child.stdin.on('error', () => {});
    child.stdin.end(JSON.stringify(target));
  });
}

/** What index.js's `detectNative` asks of Node: the host, and the probe. */
export const nativeRunner = {
  host: () => ({ platform: process.platform, arch: process.arch }),
  run: runProbe,
};

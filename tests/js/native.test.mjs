// detectNative()'s Node side on the source (pkg-template/native.js), with no
// build: where the command is looked for, and how its run is bounded and
// read. Stand-in commands (small shell scripts) answer, hang, fail or talk
// nonsense; each outcome is an answer (`{ resolution }` or `{ reason,
// message }`), never a rejection, and a hung command is ended by the call's
// bound from its first line.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { test } from 'node:test';
import { COMMAND_VARIABLE, locateCommand, platformPackage, runProbe } from '../../pkg-template/native.js';

const dir = mkdtempSync(join(tmpdir(), 'bt-native-'));

/** A stand-in command: a shell script with `body`. */
function command(name, body) {
  const path = join(dir, name);
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

const TARGET = { os: 'linux', arch: 'x86_64', accelerator: 'cuda', features: ['nativeCuda', 'cuDNN'] };
const ANSWER = { declared: TARGET, effective: { ...TARGET, accelerator: 'none', features: [] }, availability: {}, changes: [], probe: { isolation: 'process', checks: [] } };

test('the platform package is named as npm installs it: platform, arch, and on Linux the C library', () => {
  assert.equal(platformPackage('darwin', 'arm64'), 'backend-targets-darwin-arm64');
  assert.equal(platformPackage('win32', 'x64'), 'backend-targets-win32-x64');
  const glibc = process.report.getReport().header.glibcVersionRuntime !== undefined;
  assert.equal(platformPackage('linux', 'x64'), `backend-targets-linux-x64-${glibc ? 'gnu' : 'musl'}`);
});

test('without the platform package or a command named, there is none, and the reason says what to install', () => {
  const located = locateCommand({});
  assert.equal(located.path, undefined);
  assert.match(located.missing, /the package backend-targets-linux-x64-(gnu|musl) is not installed/);
  assert.match(located.missing, new RegExp(COMMAND_VARIABLE));
  assert.match(locateCommand({ [COMMAND_VARIABLE]: join(dir, 'nowhere') }).missing, /which does not exist/);
});

test('the command is given the target on stdin and a bound inside the call\'s; its answer is read', async () => {
  const seen = join(dir, 'seen');
  const path = command('answers', `echo "$@" > ${seen}; cat >> ${seen}; echo '${JSON.stringify(ANSWER)}'`);
  const began = performance.now();
  const outcome = await runProbe(TARGET, 2000, began, { [COMMAND_VARIABLE]: path });
  assert.deepEqual(outcome, { resolution: ANSWER });
  const [args, stdin] = readFileSync(seen, 'utf8').split('\n');
  const [probe, dash, flag, ms] = args.split(' ');
  assert.deepEqual([probe, dash, flag], ['probe', '-', '--timeout-ms']);
  assert.ok(Number(ms) >= 1500 && Number(ms) < 2000, `the command's own bound leaves time to answer: ${ms}`);
  assert.deepEqual(JSON.parse(stdin), TARGET);
});

test('a command that hangs is ended at the call\'s bound, counted from the call\'s first line', async () => {
  const pidFile = join(dir, 'pid');
  const path = command('hangs', `echo $$ > ${pidFile}; exec sleep 30`);
  const began = performance.now() - 200; // 200 ms of the call already spent
  const outcome = await runProbe(TARGET, 600, began, { [COMMAND_VARIABLE]: path });
  const took = performance.now() - began;
  assert.equal(outcome.reason, 'timeout');
  assert.match(outcome.message, /no answer within 600 ms/);
  assert.ok(took >= 550 && took < 1100, `answered by the bound: ${took} ms`);
  // Ended: the signal reached it (give it a moment).
  await new Promise((done) => setTimeout(done, 200));
  const pid = Number(readFileSync(pidFile, 'utf8'));
  assert.equal(spawnSync('kill', ['-0', String(pid)]).status, 1, 'the hung command was ended');
});

test('a command that fails, crashes or answers nonsense is check-crashed with why', async () => {
  const cases = [
    ['exits 2', command('fails', 'echo "backend-targets: error [usage] at x: no" >&2; exit 2'), /exited with status 2: backend-targets: error \[usage\]/],
    ['killed', command('killed', 'kill -9 $$'), /was ended by SIGKILL/],
    ['not JSON', command('garbage', 'echo "hello"'), /answered what is not a resolution/],
    ['JSON but no resolution', command('other', 'echo "[1,2]"'), /answered what is not a resolution/],
    ['no input read', command('early', 'exec true'), /answered what is not a resolution/],
  ];
  for (const [name, path, message] of cases) {
    const outcome = await runProbe(TARGET, 5000, performance.now(), { [COMMAND_VARIABLE]: path });
    assert.equal(outcome.reason, 'check-crashed', name);
    assert.match(outcome.message, message, name);
  }
  const notExecutable = join(dir, 'plain');
  writeFileSync(notExecutable, 'not a program');
  const outcome = await runProbe(TARGET, 5000, performance.now(), { [COMMAND_VARIABLE]: notExecutable });
  assert.equal(outcome.reason, 'check-crashed');
  assert.match(outcome.message, /could not (run|start)/);
});

test('an answer past the output cap is refused, not buffered', async () => {
  const path = command('floods', 'head -c 6000000 /dev/zero');
  const outcome = await runProbe(TARGET, 5000, performance.now(), { [COMMAND_VARIABLE]: path });
  assert.equal(outcome.reason, 'check-crashed');
  assert.match(outcome.message, /answered more than 4194304 bytes/);
});

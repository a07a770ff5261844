// One command table for every edge: the command's (crates/cli/src/help.rs,
// `COMMANDS`, which its help prints and its dispatch follows) is what the
// npm package's exports answer to. Each command maps to the exports that
// give the same answer; every export the package has is either one of
// those or listed below as the JavaScript API's own, with why. A command
// added to the table, or an export added to pkg-template/index.js, fails
// here until it is placed. (The service's routes are held to the same table
// by http/src/service.rs's tests.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { NATIVE_BIN, ROOT } from './common.mjs';

/** The presets' exports, as the core's preset table gives them: each name
 *  pkg-template/presets.generated.js (written by tests/generated_js.rs)
 *  exports, `export const NAME` or `export { NAME as ALIAS }`. */
const PRESET_EXPORTS = [...readFileSync(join(ROOT, 'pkg-template', 'presets.generated.js'), 'utf8')
  .matchAll(/^export (?:const (\w+) = |\{ \w+ as (\w+) \};$)/gm)].map((match) => match[1] ?? match[2]);

/** Each command, and the exports of the package that answer as it does. */
const COMMAND_EXPORTS = {
  presets: ['presets'],
  target: [...PRESET_EXPORTS, 'parseTarget'],
  availability: ['declaredAvailability', 'devices', 'providers'],
  plan: ['plan', 'planJson'],
  probe: ['probe', 'detect', 'resolve', 'clearVerifications', 'detectNative'],
  'reference-capsules': ['referenceCapsules'],
  schema: ['schema'],
};

/** The JavaScript API's own exports, which no command has, and why. */
const JS_ONLY = {
  default: 'init(): instantiates the module (a command is a process)',
  initSync: 'init() without a promise',
  BackendTargetsError: 'the error class (a command writes one line on stderr)',
  isBackendTargetsError: 'the error class, across copies of the package',
  executionProviders: 'a resolution read for ONNX Runtime Web (the browser decision)',
  transformersOptions: 'a resolution read for Transformers.js (the browser decision)',
  supportReport: 'a resolution as text for a bug report (the command prints its JSON)',
};

/** The command names, as the command's own help lists them. */
function commandNames() {
  const run = spawnSync(NATIVE_BIN, ['--help'], { encoding: 'utf8' });
  assert.equal(run.status, 0, run.stderr);
  const section = run.stdout.split('\nCommands:\n')[1].split('\n\n')[0];
  return section.split('\n').filter((line) => /^ {2}\S/.test(line)).map((line) => line.trim().split(' ')[0]);
}

test('every command has its exports in the package, and every export is a command\'s or the JS API\'s own', async () => {
  const names = commandNames();
  assert.deepEqual(names, Object.keys(COMMAND_EXPORTS), 'the command table, in its order');
  const pkg = await import(pathToFileURL(join(ROOT, 'pkg', 'node.js')));
  const exported = new Set(Object.keys(pkg));
  for (const [command, exports] of Object.entries(COMMAND_EXPORTS)) {
    for (const name of exports) assert.ok(exported.has(name), `${command}: the package has no export ${name}`);
  }
  const placed = new Set([...Object.values(COMMAND_EXPORTS).flat(), ...Object.keys(JS_ONLY)]);
  const unplaced = [...exported].filter((name) => !placed.has(name));
  assert.deepEqual(unplaced, [], 'exports no command answers to and not listed as the JS API\'s own');
  // Each command's exports answer as the command does, for one case each.
  const native = (args) => JSON.parse(spawnSync(NATIVE_BIN, args, { encoding: 'utf8' }).stdout);
  assert.deepEqual(pkg.presets(), native(['presets']));
  // The preset exports are the presets: each preset under its own name, and
  // every one of them (an alias too) gives a preset's target.
  const targets = new Map(pkg.presets().map(({ name, target }) => [name, target]));
  assert.ok(targets.size > 0 && targets.size === pkg.presets().length, 'the presets, each named once');
  assert.ok(PRESET_EXPORTS.length >= targets.size, `preset exports: ${PRESET_EXPORTS}`);
  for (const [name, target] of targets) {
    assert.ok(PRESET_EXPORTS.includes(name), `the preset ${name} is not exported under its own name`);
    assert.deepEqual(pkg[name](), target, `${name}()`);
  }
  for (const name of PRESET_EXPORTS) {
    const target = pkg[name]();
    assert.ok([...targets.values()].some((preset) => JSON.stringify(preset) === JSON.stringify(target)),
      `${name}() gives no preset's target`);
  }
  assert.deepEqual(pkg.linuxCuda({ enableLibTorch: true }), native(['target', 'linuxCuda', '--enable-libtorch']));
  assert.deepEqual(pkg.declaredAvailability(pkg.linuxRocm()), native(['availability', 'linuxRocm']));
  assert.deepEqual(pkg.referenceCapsules(), native(['reference-capsules']));
  assert.deepEqual(pkg.schema('PlanRequest'), native(['schema', 'PlanRequest']));
});

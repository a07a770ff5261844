// scripts/wasm-names.mjs against a fixture: a small module (written in WAT,
// assembled by binaryen) whose imports and exports are named as wasm-bindgen
// names them, and a glue file shaped as wasm-bindgen 0.2.130 writes it (the
// import object `import0`, a snippet module's namespace, `wasm.NAME` reads).
// After the script: every import comes from module "a" under a short name,
// the API's exports keep theirs, wasm-bindgen's own get short ones, and the
// rewritten glue instantiates the rewritten module and calls through it, so
// the two still agree. A glue that is not what the script expects fails the
// script (and so the build), with the reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import binaryen from 'binaryen';
import { ROOT } from './common.mjs';

const SCRIPT = join(ROOT, 'scripts', 'wasm-names.mjs');
const GLUE_MODULE = './backend_targets_bg.js';
const SNIPPET = './snippets/backend-targets-browser-0123456789abcdef/src/probe.js';

// Two glue imports (one of them imported twice), one snippet import, and
// exports of both kinds: the API's (`memory`, `probe`, `plan`, a test hook)
// and wasm-bindgen's own (`__wbindgen_malloc`, `__wbg_finalize`).
const WAT = `(module
  (import "${GLUE_MODULE}" "__wbg_now_0a1b2c3d4e5f6789" (func $now (result i32)))
  (import "${GLUE_MODULE}" "__wbg_twice_00ff00ff00ff00ff" (func $twice (param i32) (result i32)))
  (import "${GLUE_MODULE}" "__wbg_now_0a1b2c3d4e5f6789" (func $now_again (result i32)))
  (import "${SNIPPET}" "requestEarly" (func $early (result i32)))
  (memory (export "memory") 1)
  (func (export "probe") (result i32) (i32.add (call $now) (call $now_again)))
  (func (export "plan") (param i32) (result i32) (call $twice (local.get 0)))
  (func (export "__forcePanicForTesting") (result i32) (call $early))
  (func (export "__wbindgen_malloc") (param i32) (result i32) (i32.const 1024))
  (func (export "__wbg_finalize") (result i32) (i32.const 7)))`;

const GLUE = `import * as import1 from "${SNIPPET}"

let wasm;
export function probe() { return wasm.probe(); }
export function plan(n) { return wasm.plan(n); }
export function hook() { return wasm.__forcePanicForTesting(); }
export function malloc(n) { return wasm.__wbindgen_malloc(n); }
export function finalize() { return wasm.__wbg_finalize(); }

function __wbg_get_imports() {
    const import0 = {
        __proto__: null,
        __wbg_now_0a1b2c3d4e5f6789: function() {
            return 20;
        },
        __wbg_twice_00ff00ff00ff00ff: function(arg0) {
            return arg0 * 2;
        },
    };
    return {
        __proto__: null,
        "${GLUE_MODULE}": import0,
        "${SNIPPET}": import1,
    };
}

export function initSync(module) {
    wasm = new WebAssembly.Instance(module, __wbg_get_imports()).exports;
    return wasm;
}
`;

const TYPES = `export interface InitOutput {
  readonly memory: WebAssembly.Memory;
  readonly probe: () => number;
  readonly __wbindgen_malloc: (a: number) => number;
}
`;

/** A fresh folder holding the fixture (module, glue, snippet, types), with `glue` as the glue's text. */
function fixture(glue = GLUE) {
  const dir = mkdtempSync(join(tmpdir(), 'bt-wasm-names-'));
  const module = binaryen.parseText(WAT);
  writeFileSync(join(dir, 'module.wasm'), module.emitBinary());
  module.dispose();
  writeFileSync(join(dir, 'glue.js'), glue);
  writeFileSync(join(dir, 'glue.d.ts'), TYPES);
  mkdirSync(join(dir, 'snippets', 'backend-targets-browser-0123456789abcdef', 'src'), { recursive: true });
  writeFileSync(join(dir, SNIPPET), 'export function requestEarly() { return 5; }\n');
  return dir;
}

const run = (dir) => spawnSync(process.execPath,
  [SCRIPT, join(dir, 'module.wasm'), join(dir, 'glue.js'), join(dir, 'glue.d.ts')], { encoding: 'utf8' });

test('wasm-names: short import and export names, the glue rewritten to match, and the pair still working', async () => {
  const dir = fixture();
  try {
    const before = readFileSync(join(dir, 'module.wasm'));
    const result = run(dir);
    assert.equal(result.status, 0, result.stderr);
    assert.match(result.stdout, /3 imports and 2 exports renamed, \d+ -> \d+ bytes/);
    const after = readFileSync(join(dir, 'module.wasm'));
    assert.ok(after.length < before.length, `${before.length} -> ${after.length}`);

    const module = new WebAssembly.Module(after);
    const imports = WebAssembly.Module.imports(module);
    assert.deepEqual(imports.map((i) => i.module), ['a', 'a', 'a', 'a'], 'one import module');
    assert.ok(imports.every((i) => i.name.length <= 2), JSON.stringify(imports));
    assert.equal(imports[0].name, imports[2].name, 'an import named twice keeps one short name');
    assert.equal(new Set(imports.map((i) => i.name)).size, 3);
    const exports = WebAssembly.Module.exports(module).map((e) => e.name);
    for (const api of ['memory', 'probe', 'plan', '__forcePanicForTesting']) assert.ok(exports.includes(api), api);
    assert.ok(!exports.some((name) => name.startsWith('__wbindgen_') || name.startsWith('__wbg_')), exports.join());

    const glue = readFileSync(join(dir, 'glue.js'), 'utf8');
    assert.doesNotMatch(glue, /__wbg_now_|__wbg_twice_|__wbindgen_malloc|__wbg_finalize/, glue);
    assert.match(glue, /^\s*a: import0,$/m);
    assert.ok(!glue.includes(`"${SNIPPET}": import1`), 'the snippet module is no longer its own import module');
    assert.match(glue, /^\s*[a-zA-Z]{1,2}: import1\.requestEarly,$/m);
    const types = readFileSync(join(dir, 'glue.d.ts'), 'utf8');
    assert.doesNotMatch(types, /__wbindgen_malloc/);
    assert.match(types, /readonly probe: /);

    // The rewritten glue instantiates the rewritten module, and every call
    // reaches the import it did before.
    const bound = await import(pathToFileURL(join(dir, 'glue.js')));
    bound.initSync(module);
    assert.equal(bound.probe(), 40);
    assert.equal(bound.plan(21), 42);
    assert.equal(bound.hook(), 5);
    assert.equal(bound.malloc(8), 1024);
    assert.equal(bound.finalize(), 7);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('wasm-names: a glue that is not what it expects fails the script, with the reason, and changes nothing', () => {
  const cases = [
    // Another wasm-bindgen's import object.
    [GLUE.replace('const import0 = {', 'const imports = {'), /the import object import0: expected once in the glue, found 0 times/],
    // An import named where the script cannot rename it.
    [GLUE.replace('let wasm;', 'let wasm; // __wbg_twice_00ff00ff00ff00ff'), /the import __wbg_twice_00ff00ff00ff00ff/],
    // A snippet module the returned object does not map.
    [GLUE.replace(`"${SNIPPET}": import1,`, ''), /no namespace for the module/],
  ];
  for (const [glue, reason] of cases) {
    const dir = fixture(glue);
    try {
      const before = readFileSync(join(dir, 'module.wasm'));
      const result = run(dir);
      assert.equal(result.status, 1, `${reason}: ${result.stdout}`);
      assert.match(result.stderr, reason);
      assert.match(result.stderr, /^wasm-names\.mjs: /);
      assert.deepEqual(readFileSync(join(dir, 'module.wasm')), before, 'the module is left as it was');
      assert.equal(readFileSync(join(dir, 'glue.js'), 'utf8'), glue, 'the glue is left as it was');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  // Without its arguments: usage, status 2.
  const usage = spawnSync(process.execPath, [SCRIPT], { encoding: 'utf8' });
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /^usage: node scripts\/wasm-names\.mjs MODULE\.wasm GLUE\.js/);
});

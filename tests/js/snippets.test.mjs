// Every JavaScript and TypeScript snippet of the documentation compiles as a
// user would write it: each ```js / ```ts block of README.md,
// pkg-template/README.md and docs/*.md (docs/benchmarks-history.md aside: a
// record of what was) is one file of a temporary project, type-checked by
// tsc with --strict --noUncheckedIndexedAccess --noEmit against the
// package's types (a ```js block as JavaScript with checkJs, so that an
// implicit any or a string where a union is due fails as it would in a
// checked editor; a ```ts block as TypeScript).
//
// `backend-targets` resolves to the package as it would be installed: the
// template's package.json and hand-written .d.ts (pkg-template/, as they are
// in the tree) over the generated types of the last build
// (pkg/backend_targets.d.ts, else target/pkg-raw/'s; scripts/build.sh).
// `onnxruntime-web` and `@huggingface/transformers` resolve to tests/js's own
// copies, their real types; a third-party module not installed there gets an
// ambient `declare module` (any), and the test says which.
//
// A block opts out only with a marker on its first line,
// `// not type-checked: <why>`; the test prints each opt-out and its reason.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from './common.mjs';

const TOOLS = join(ROOT, 'tests', 'js', 'node_modules');
const TSC = join(TOOLS, 'typescript', 'bin', 'tsc');

/** The documents whose snippets are checked. */
const DOCUMENTS = ['README.md', 'pkg-template/README.md',
  ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== 'benchmarks-history.md').sort().map((name) => `docs/${name}`)];

/** A fence that opens a JavaScript or TypeScript block, and its language. */
const OPENING = /^(\s*)(`{3,}|~{3,})\s*(js|javascript|mjs|ts|typescript)\s*$/;
/** The first line of a block that opts out of the check, and why. */
const OPT_OUT = /^\s*\/\/\s*not type-checked:\s*(\S.*)$/;

/** Every ```js / ```ts block of `text`: { lang: 'js' | 'ts', line (of its first code line), code }. */
export function extractSnippets(text) {
  const lines = text.split('\n');
  const snippets = [];
  for (let i = 0; i < lines.length; i++) {
    const open = OPENING.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang] = open;
    const closing = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    const body = [];
    let j = i + 1;
    for (; j < lines.length && !closing.test(lines[j]); j++) {
      body.push(lines[j].startsWith(indent) ? lines[j].slice(indent.length) : lines[j].trimStart());
    }
    assert.ok(j < lines.length, `an unclosed ${lang} block at line ${i + 1}`);
    snippets.push({ lang: /^(ts|typescript)$/.test(lang) ? 'ts' : 'js', line: i + 2, code: body.join('\n') });
    i = j;
  }
  return snippets;
}

/** The bare specifiers a snippet imports (statically or with a literal `import()`). */
function importedModules(code) {
  const names = new Set();
  for (const [, specifier] of code.matchAll(/(?:\bfrom\s*|\bimport\s*\(\s*|^\s*import\s+)['"]([^'"]+)['"]/gm)) {
    if (/^[./]/.test(specifier) || specifier.startsWith('node:')) continue;
    const parts = specifier.split('/');
    names.add(specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0]);
  }
  return names;
}

/** The package's generated types: the last build's. */
function generatedTypes() {
  const candidates = [join(ROOT, 'pkg', 'backend_targets.d.ts'), join(ROOT, 'target', 'pkg-raw', 'backend_targets.d.ts')];
  const found = candidates.find((path) => existsSync(path));
  assert.ok(found, `no generated types (${candidates.join(', ')}): run scripts/build.sh first`);
  return found;
}

/** Makes the temporary project for `snippets` in `dir`; returns the files' names, in order, and the ambient modules. */
function writeProject(dir, snippets) {
  const pkg = join(dir, 'node_modules', 'backend-targets');
  mkdirSync(pkg, { recursive: true });
  for (const file of ['package.json', 'index.d.ts', 'detect.d.ts', 'verified.d.ts']) {
    copyFileSync(join(ROOT, 'pkg-template', file), join(pkg, file));
  }
  copyFileSync(generatedTypes(), join(pkg, 'backend_targets.d.ts'));

  const modules = new Set(snippets.flatMap(({ code }) => [...importedModules(code)]));
  modules.delete('backend-targets');
  const ambient = [];
  for (const name of [...modules].sort()) {
    if (existsSync(join(TOOLS, name, 'package.json'))) {
      mkdirSync(join(dir, 'node_modules', name, '..'), { recursive: true });
      symlinkSync(join(TOOLS, name), join(dir, 'node_modules', name), 'dir');
    } else {
      ambient.push(name);
    }
  }
  writeFileSync(join(dir, 'ambient.d.ts'), ambient.map((name) => `declare module '${name}';\ndeclare module '${name}/*';\n`).join(''));

  const files = snippets.map((snippet, index) => {
    const name = `snippet-${String(index).padStart(2, '0')}.${snippet.lang === 'ts' ? 'ts' : 'js'}`;
    // A module of its own (top-level await; no name shared with another block).
    writeFileSync(join(dir, name), `${snippet.code}\nexport {};\n`);
    return name;
  });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'snippets', private: true, type: 'module' }));
  writeFileSync(join(dir, 'tsconfig.json'), JSON.stringify({
    compilerOptions: {
      strict: true,
      noUncheckedIndexedAccess: true,
      noEmit: true,
      allowJs: true,
      checkJs: true,
      target: 'es2022',
      module: 'esnext',
      moduleResolution: 'bundler',
      lib: ['es2024', 'dom', 'dom.iterable', 'webworker.importscripts'],
      types: ['node'],
      typeRoots: [join(TOOLS, '@types')],
      // Third-party declaration files are theirs to keep consistent.
      skipLibCheck: true,
    },
    files: ['ambient.d.ts', ...files],
  }, null, 2));
  return { files, ambient };
}

/** Runs tsc in `dir`; returns its status and output with each snippet file named by its document and line. */
function typeCheck(dir, files, snippets) {
  const r = spawnSync(process.execPath, [TSC, '-p', 'tsconfig.json', '--pretty', 'false'], { cwd: dir, encoding: 'utf8', timeout: 180_000 });
  if (r.error) throw r.error;
  const output = `${r.stdout}${r.stderr}`.replace(/^(snippet-\d+\.[jt]s)\((\d+),(\d+)\)/gm, (whole, file, line, column) => {
    const snippet = snippets[files.indexOf(file)];
    return snippet ? `${snippet.document}:${snippet.line + Number(line) - 1}:${column} (${file})` : whole;
  });
  return { status: r.status, output };
}

/** Every snippet of the documents, with where it is; the opt-outs apart. */
function collect() {
  const checked = [];
  const optedOut = [];
  for (const document of DOCUMENTS) {
    for (const snippet of extractSnippets(readFileSync(join(ROOT, document), 'utf8'))) {
      const reason = OPT_OUT.exec(snippet.code.split('\n')[0] ?? '');
      (reason ? optedOut : checked).push({ ...snippet, document, reason: reason?.[1] });
    }
  }
  return { checked, optedOut };
}

test('every JS/TS snippet of the READMEs and docs/ compiles under tsc --strict --noUncheckedIndexedAccess', () => {
  const { checked, optedOut } = collect();
  console.log(`${checked.length} snippets checked, ${optedOut.length} opted out`);
  for (const { document, line, reason } of optedOut) console.log(`opted out: ${document}:${line}: ${reason}`);
  assert.ok(checked.length >= 8, `only ${checked.length} snippets found: has the fence syntax changed?`);
  const dir = mkdtempSync(join(tmpdir(), 'backend-targets-snippets-'));
  try {
    const { files, ambient } = writeProject(dir, checked);
    if (ambient.length) console.log(`ambient (not installed in tests/js): ${ambient.join(', ')}`);
    const { status, output } = typeCheck(dir, files, checked);
    assert.equal(status, 0, `a documented snippet does not compile:\n${output}`);
  } finally {
    if (!process.env.KEEP_SNIPPETS_DIR) rmSync(dir, { recursive: true, force: true });
  }
});

test('the check fails on a snippet that does not compile (a misspelled dtype, an unchecked index, an implicit any)', () => {
  const broken = [
    { lang: 'ts', document: 'broken', line: 1, code: "import { transformersOptions, type Resolution } from 'backend-targets';\ndeclare const r: Resolution;\ntransformersOptions(r, ['fp3']);" },
    { lang: 'js', document: 'broken', line: 1, code: "import { presets } from 'backend-targets';\nconst all = presets();\nconsole.log(all[0].name);" },
    { lang: 'js', document: 'broken', line: 1, code: 'export const capsule = (op) => ({ op });' },
  ];
  const dir = mkdtempSync(join(tmpdir(), 'backend-targets-snippets-broken-'));
  try {
    const { files } = writeProject(dir, broken);
    const { status, output } = typeCheck(dir, files, broken);
    assert.notEqual(status, 0, output);
    assert.match(output, /broken:3:\d+ \(snippet-00\.ts\): error TS\d+: .*(\n .*)*'"fp3"' is not assignable to type 'TransformersDtype'/, output);
    assert.match(output, /broken:3:\d+ \(snippet-01\.js\): error TS2532/, output);
    assert.match(output, /broken:1:\d+ \(snippet-02\.js\): error TS7006/, output);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the package README\'s API table names every value the package exports, and transformersOptions\'s two forms', () => {
  const readme = readFileSync(join(ROOT, 'pkg-template', 'README.md'), 'utf8');
  const start = readme.indexOf('\n## API\n');
  assert.ok(start >= 0, 'the package README has an "## API" section');
  const api = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const exported = new Set();
  for (const file of [generatedTypes(), join(ROOT, 'pkg-template', 'index.d.ts')]) {
    const text = readFileSync(file, 'utf8');
    for (const [, name] of text.matchAll(/^export (?:declare )?(?:function|class|const) (\w+)/gm)) exported.add(name);
    for (const [, list] of text.matchAll(/^export \{([^}]*)\} from/gm)) {
      for (const item of list.split(',')) exported.add(item.trim().split(/\s+as\s+/).at(-1));
    }
  }
  // wasm-bindgen's default export (`__wbg_init`) is `init` to a user.
  exported.delete('__wbg_init');
  exported.delete('default');
  exported.add('init');
  assert.ok(exported.size > 25, `only ${exported.size} exports found: ${[...exported]}`);
  const missing = [...exported].filter((name) => !new RegExp(`\`${name}[(\`]`).test(api));
  assert.deepEqual(missing, [], 'exports the API table does not name');
  assert.match(api, /`transformersOptions\(resolution, available\)`/);
  assert.match(api, /`supportReport\(/);
});

test('the snippet extractor reads fences as Markdown does (indented, tildes, longer fences, opt-out marker)', () => {
  const text = ['# t', '```js', 'a();', '```', '- item', '  ```ts', '  const b = 1;', '  ```', '````js', '```', 'c();', '````', '~~~ts', '// not type-checked: a fragment', '~~~', '```sh', 'ls', '```'].join('\n');
  assert.deepEqual(extractSnippets(text), [
    { lang: 'js', line: 3, code: 'a();' },
    { lang: 'ts', line: 7, code: 'const b = 1;' },
    { lang: 'js', line: 10, code: '```\nc();' },
    { lang: 'ts', line: 14, code: '// not type-checked: a fragment' },
  ]);
});

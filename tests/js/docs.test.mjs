// The documentation against the tree, with no build: every repository path
// a document names exists, every relative link resolves, every #anchor a
// link names is a heading of the document it links to, no line of Markdown
// runs over 1,000 characters, and the READMEs stay pages read in minutes.
// (The package README's size figures are held to the build by
// tests/js/sizes.test.mjs.)
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { ROOT } from './common.mjs';

/** The documents held here: the root's, the package README, docs/ (its
 *  history of measurements aside: a record of what was, paths included). */
const DOCUMENTS = ['README.md', 'ARCHITECTURE.md', 'CONTRIBUTING.md', 'BENCHMARKS.md', 'CHANGELOG.md', 'pkg-template/README.md',
  ...readdirSync(join(ROOT, 'docs')).filter((name) => name.endsWith('.md') && name !== 'benchmarks-history.md').map((name) => `docs/${name}`)];

/** A repository path, as documents name them: under one of the tree's own folders. */
const REPOSITORY_PATH = /^(src|crates|tests|scripts|pkg-template|bench|www|deploy|docs|examples|fuzz|http|schemas|xtask|\.ci|\.cargo)\//;

/** What the build and the suites write (named in documents, absent from a clean tree). */
const WRITTEN = /^(tests\/js\/(artifacts|node_modules)|fuzz\/(corpus|artifacts|target)|http\/target)(\/|$)/;

const read = (file) => readFileSync(join(ROOT, file), 'utf8');

test('every repository path a document names (in code spans) exists', () => {
  const missing = [];
  for (const file of DOCUMENTS) {
    for (const [, token] of read(file).matchAll(/`([^`\s]+)`/g)) {
      const path = token.replace(/[.,:;)]+$/, '').replace(/:\d+(-\d+)?$/, '');
      // (A pattern or a placeholder names no one file.)
      if (!REPOSITORY_PATH.test(path) || WRITTEN.test(path) || /[*<>{}]|NAME|\.\.\./.test(path)) continue;
      if (!existsSync(join(ROOT, path))) missing.push(`${file}: ${path}`);
    }
  }
  assert.deepEqual(missing, []);
});

test('every relative link of a document resolves', () => {
  const broken = [];
  for (const file of DOCUMENTS) {
    for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:|#)/.test(target)) continue;
      const path = target.split('#')[0];
      if (!existsSync(join(ROOT, dirname(file), path))) broken.push(`${file}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

/** GitHub's anchor for a heading: lower case, punctuation dropped (`-` and
 *  `_` kept), each space a `-`; a repeated heading gets `-1`, `-2`, ... */
function anchors(markdown) {
  const seen = new Map();
  const found = new Set();
  let fenced = false;
  for (const line of markdown.split('\n')) {
    if (/^\s*(```|~~~)/.test(line)) fenced = !fenced;
    const heading = !fenced && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1].toLowerCase().replace(/[^\p{L}\p{N}\s_-]/gu, '').replace(/\s/g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    found.add(count ? `${base}-${count}` : base);
  }
  return found;
}

test('every anchor a link names (#heading, in its own document or another) is a heading there', () => {
  const broken = [];
  for (const file of DOCUMENTS) {
    for (const [, target] of read(file).matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^(https?:|mailto:)/.test(target) || !target.includes('#')) continue;
      const [path, anchor] = target.split('#');
      const linked = path ? join(dirname(file), path) : file;
      if (!linked.endsWith('.md') || !existsSync(join(ROOT, linked))) continue;
      if (!anchors(read(linked)).has(decodeURIComponent(anchor))) broken.push(`${file}: ${target}`);
    }
  }
  assert.deepEqual(broken, []);
});

test('no line of Markdown runs over 1,000 characters', () => {
  const long = [];
  for (const file of DOCUMENTS) {
    read(file).split('\n').forEach((line, i) => {
      if (line.length > 1000) long.push(`${file}:${i + 1}: ${line.length} characters`);
    });
  }
  assert.deepEqual(long, []);
});

test('the root README is a page a newcomer reads in minutes: at most 300 lines', () => {
  const lines = read('README.md').split('\n').length;
  assert.ok(lines <= 300, `README.md has ${lines} lines`);
});

test('the package README is a page a web developer reads in minutes: at most 400 lines', () => {
  // (The long material is in docs/package-details.md and docs/verify.md.)
  const lines = read('pkg-template/README.md').split('\n').length;
  assert.ok(lines <= 400, `pkg-template/README.md has ${lines} lines`);
});

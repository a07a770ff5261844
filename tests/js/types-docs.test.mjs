// The doc comments of the package's generated types (pkg/backend_targets.d.ts,
// tsify's and wasm-bindgen's output), as an editor's hover shows them: no
// empty doc comment, and no vocabulary entry that names a spelling and then
// says nothing. Every closed vocabulary's JSDoc lists its documented
// spellings as "spelling", "—", its doc (src/spelling.rs, `spelled_enum!`);
// a variant without a doc once added "spelling —" and nothing else (208
// entries, most of them empty). Run by scripts/test.sh after scripts/build.sh;
// a package that is not built fails.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './common.mjs';

const TYPES = join(ROOT, 'pkg', 'backend_targets.d.ts');

/** Each `/** ... *\/` comment of `text`, with the line it starts on. */
function docComments(text) {
  return [...text.matchAll(/\/\*\*([\s\S]*?)\*\//g)].map((match) => ({
    body: match[1],
    line: text.slice(0, match.index).split('\n').length,
  }));
}

/** The comment's lines without their leading ` * `. */
const linesOf = (body) => body.split('\n').map((line) => line.replace(/^\s*\*?\s?/, '').trimEnd());

test('no doc comment of the generated types is empty', () => {
  const comments = docComments(readFileSync(TYPES, 'utf8'));
  assert.ok(comments.length > 100, `only ${comments.length} doc comments in ${TYPES}: not the package's types?`);
  const empty = comments.filter(({ body }) => linesOf(body).every((line) => line === '')).map(({ line }) => `line ${line}`);
  assert.deepEqual(empty, [], 'empty /** */ comments');
});

test('every vocabulary entry of the generated types says something after its dash', () => {
  const comments = docComments(readFileSync(TYPES, 'utf8'));
  const hollow = [];
  let entries = 0;
  for (const { body, line } of comments) {
    const lines = linesOf(body);
    lines.forEach((text, i) => {
      if (text !== '\u2014') return;
      entries += 1;
      // The spelling is the line before the dash; its doc the next line.
      if ((lines[i + 1] ?? '') === '') hollow.push(`line ${line}: ${lines[i - 1] ?? '?'} \u2014 (nothing)`);
    });
  }
  console.log(`${entries} documented vocabulary entries in pkg/backend_targets.d.ts`);
  assert.ok(entries > 0, 'no vocabulary entry at all: has spelled_enum!\'s layout changed? Update this test with it');
  assert.deepEqual(hollow, []);
});

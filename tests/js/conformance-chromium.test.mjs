// The conformance vectors (tests/vectors/) in real headless Chromium, through
// the built package's browser entry: every request gives the command's golden
// bytes (planJson), and every malformed input its documented code and path.
// The same vectors run natively (crates/cli/tests/cli.rs), in Node (package*.test.mjs)
// and under WASI (wasi.test.mjs).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT, VECTORS, malformedCases } from './common.mjs';
import { serve } from './static-server.mjs';
import { withChromium } from './chromium.mjs';


test('Chromium: request vectors give the golden bytes; malformed inputs their code and path', async () => {
  const requests = readdirSync(join(VECTORS, 'requests')).filter((f) => f.endsWith('.json')).map((f) => ({
    name: f.slice(0, -5),
    text: readFileSync(join(VECTORS, 'requests', f), 'utf8'),
    golden: readFileSync(join(VECTORS, 'cli', `plan-${f.slice(0, -5)}.out`), 'utf8'),
  }));
  const malformed = malformedCases();
  assert.ok(requests.length >= 20 && malformed.length >= 50);
  const server = await serve(ROOT, { pages: { '/conformance.html': '<!doctype html><meta charset="utf-8"><title>conformance</title>' } });
  try {
    await withChromium([], (context) => checkVectors(context, server.origin, requests, malformed));
  } finally {
    await server.close();
  }
});

async function checkVectors(context, origin, requests, malformed) {
  const page = context.pages()[0] ?? (await context.newPage());
  await page.goto(`${origin}/conformance.html`);
  const out = await page.evaluate(async ({ requests, malformed }) => {
    const m = await import('/pkg/index.js');
    await m.default();
    const plans = requests.map((r) => ({ name: r.name, same: m.planJson(r.text) + '\n' === r.golden }));
    const errors = malformed.map((c) => {
      try { m.planJson(c.input); return { name: c.name, thrown: false }; } catch (e) {
        return { name: c.name, thrown: true, ok: e.name === 'BackendTargetsError' && e.code === c.code && e.path === c.path, got: `${e.code} ${e.path}` };
      }
    });
    return { plans, errors };
  }, { requests, malformed });
  assert.deepEqual(out.plans.filter((p) => !p.same).map((p) => p.name), [], 'requests whose bytes differ');
  assert.deepEqual(out.errors.filter((e) => !e.ok), [], 'malformed inputs without their code and path');
  assert.equal(out.plans.length, requests.length);
  assert.equal(out.errors.length, malformed.length);
}

// Headless Debian Chromium for the browser suites and the benchmarks, driven
// by playwright-core (never a downloaded browser): a fresh temporary profile,
// the flags this closed network needs, closed and removed afterwards.
// Not a test file: `node --test tests/js/` does not pick it up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { inPagesOf } from './pages.mjs';

export const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
export const BASE_ARGS = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/** Runs `fn(context)` in a fresh headless Chromium with `extraArgs`, then closes it. */
export async function withChromium(extraArgs, fn, options = {}) {
  const profile = mkdtempSync(join(tmpdir(), 'bt-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [...BASE_ARGS, ...extraArgs],
    timeout: 30_000,
    ...options,
  });
  try {
    return await fn(context);
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}

/** A headless Chromium with `extraArgs` whose contexts start empty (`browser.newContext()`); close it when done. */
export function launchChromium(extraArgs) {
  return chromium.launch({ executablePath: CHROMIUM, headless: true, args: [...BASE_ARGS, ...extraArgs], timeout: 30_000 });
}

/** `pages.mjs`'s `inPagesOf` in this engine (playwright): `browser`'s fresh context,
 *  `standIn(arg)` run before each page's scripts. */
export function inPages(browser, url, standIn, bodies, arg = {}, limitMs = 30_000) {
  const engine = { newContext: () => browser.newContext(), beforeScripts: (page, fn, value) => page.addInitScript(fn, value) };
  return inPagesOf(engine, url, standIn, bodies, arg, limitMs);
}

/**
 * An init script (`page.addInitScript(recordRequests, { answers })`): records
 * in `window.__order`, in order, each adapter request (`requestAdapter`),
 * with `answers` what it answered (`adapter` or `null`), and each `fetch`
 * (`fetch <path>`). Self-contained: the page runs its source.
 */
export function recordRequests({ answers = false } = {}) {
  window.__order = [];
  const request = GPU.prototype.requestAdapter;
  GPU.prototype.requestAdapter = function requestAdapter(options) {
    window.__order.push('requestAdapter');
    const answer = request.call(this, options);
    return answers ? answer.then((adapter) => {
      window.__order.push(adapter ? 'adapter' : 'null');
      return adapter;
    }) : answer;
  };
  const original = window.fetch;
  window.fetch = function fetch(input, init) {
    window.__order.push(`fetch ${new URL(String(input), location.href).pathname}`);
    return original.call(this, input, init);
  };
}

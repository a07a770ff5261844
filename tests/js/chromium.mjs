// Headless Debian Chromium for the browser suites and the benchmarks, driven
// by playwright-core (never a downloaded browser): a fresh temporary profile,
// the flags this closed network needs, closed and removed afterwards.
// Not a test file: `node --test tests/js/` does not pick it up.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';

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

/**
 * Runs each of `bodies` (functions of `arg`, run with `page.evaluate`) in a
 * page of its own, one after another, in one fresh context of `browser` (one
 * profile: their storage is shared), each page opened at `url` with
 * `standIn(arg)` run before its scripts (`addInitScript`). Each body's
 * answer, `{ threw }` for one that threw, or `{ hung: true, stage }` when it
 * has not answered after `limitMs` (a probe that never settles, a frozen
 * page; `stage`: what the body last set `globalThis.__stage` to, and
 * `pageAnswers`: whether the page still runs code); each with the page's
 * uncaught errors (`pageErrors`).
 */
/** Whether a page whose body hung still runs its own code: `true` if it
 *  answers within 2 s (a body awaiting a promise that never settles), else
 *  `false` (a frozen page). */
async function stillRuns(page) {
  let timer;
  const frozen = new Promise((resolve) => { timer = setTimeout(() => resolve(false), 2_000); });
  const alive = await Promise.race([page.evaluate(() => true).catch(() => false), frozen]);
  clearTimeout(timer);
  return alive;
}

export async function inPages(browser, url, standIn, bodies, arg = {}, limitMs = 30_000) {
  const context = await browser.newContext();
  try {
    const answers = [];
    for (const body of bodies) {
      const page = await context.newPage();
      const errors = [];
      page.on('pageerror', (error) => errors.push(error.message));
      // `globalThis.__stage`, as a body sets it, reaches here as it is set:
      // a frozen page still says where it stopped.
      let stage = '(none set)';
      page.on('console', (message) => {
        if (message.text().startsWith('__stage ')) stage = message.text().slice('__stage '.length);
      });
      await page.addInitScript(() => {
        let current;
        Object.defineProperty(globalThis, '__stage', {
          configurable: true,
          get: () => current,
          set: (value) => { current = value; console.debug(`__stage ${value}`); },
        });
      });
      if (standIn) await page.addInitScript(standIn, arg);
      await page.goto(url);
      let timer;
      const hung = new Promise((resolve) => { timer = setTimeout(() => resolve({ hung: true }), limitMs); });
      let answer = await Promise.race([page.evaluate(body, arg).catch((error) => ({ threw: error.message })), hung]);
      clearTimeout(timer);
      if (answer.hung) answer = { ...answer, stage, pageAnswers: await stillRuns(page) };
      answers.push({ ...answer, pageErrors: errors });
      await page.close();
    }
    return answers;
  } finally {
    await context.close();
  }
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

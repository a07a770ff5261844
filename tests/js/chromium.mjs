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

// Headless Debian Firefox ESR for the browser suites, driven by puppeteer-core
// over WebDriver BiDi (never a downloaded browser): a fresh temporary profile
// with the preferences this closed network needs and those of a WebGPU
// situation (PREFS), closed and removed by `browser.close()`; and `inPages`,
// chromium.mjs's, over puppeteer's API.
// Not a test file: `node --test tests/js/` does not pick it up.
import puppeteer from 'puppeteer-core';

export const FIREFOX = process.env.FIREFOX ?? '/usr/bin/firefox-esr';

/** The WebGPU situations Firefox gives on demand (Linux, Mesa's lavapipe installed). */
export const PREFS = {
  // Firefox's defaults on Linux: no navigator.gpu at all.
  none: {},
  // The API, but the GPU blocklist refuses every adapter: requestAdapter() answers null.
  blocked: { 'dom.webgpu.enabled': true },
  // The blocklist ignored: Mesa's lavapipe (Vulkan on the CPU) answers, as a fallback adapter.
  lavapipe: { 'dom.webgpu.enabled': true, 'gfx.webgpu.ignore-blocklist': true },
};

// Beside the preferences puppeteer writes into every profile (no updates,
// no health report, safe browsing off, blank first-run and home pages, ...)
// and those Firefox's remote agent sets once it starts (toolkit.telemetry.server,
// captive portal and connectivity checks off, ...): what keeps a Firefox
// that has nobody to talk to from trying, from its first second on.
const QUIET = {
  // Remote Settings (blocklists, experiments, ...): a server that answers
  // nothing. A release build ignores this unless MOZ_REMOTE_SETTINGS_DEVTOOLS
  // is set (launchFirefox sets it); without both, Firefox polls
  // firefox.settings.services.mozilla.com at start.
  'services.settings.server': 'data:,#remote-settings-dummy/v1',
  'app.normandy.enabled': false,
  'app.shield.optoutstudies.enabled': false,
  'extensions.blocklist.enabled': false,
  'extensions.systemAddon.update.enabled': false,
  // Telemetry and usage pings.
  'toolkit.telemetry.unified': false,
  'toolkit.telemetry.archive.enabled': false,
  'toolkit.telemetry.server': 'data:,',
  'datareporting.usage.uploadEnabled': false,
  // First-run and what's-new pages.
  'browser.aboutwelcome.enabled': false,
  'termsofuse.bypassNotification': true,
  // Background connections: captive portal and connectivity checks, push,
  // region lookup, prefetching, DNS over HTTPS.
  'network.captive-portal-service.enabled': false,
  'network.connectivity-service.enabled': false,
  'dom.push.connection.enabled': false,
  'browser.region.network.url': '',
  'browser.region.update.enabled': false,
  'network.prefetch-next': false,
  'network.dns.disablePrefetch': true,
  'network.trr.mode': 5,
  'browser.topsites.contile.enabled': false,
  'browser.ml.enable': false,
};

/** A headless Firefox with `prefs` (PREFS.*, or any) in a fresh temporary
 *  profile, whose contexts start empty (`browser.createBrowserContext()`);
 *  `browser.close()` closes it and removes the profile. */
export function launchFirefox(prefs = {}) {
  return puppeteer.launch({
    browser: 'firefox',
    executablePath: FIREFOX,
    headless: true,
    extraPrefsFirefox: { ...QUIET, ...prefs },
    env: { ...process.env, MOZ_REMOTE_SETTINGS_DEVTOOLS: '1' },
    timeout: 60_000,
  });
}

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

/**
 * Runs each of `bodies` (functions of `arg`, run with `page.evaluate`) in a
 * page of its own, one after another, in one fresh context of `browser` (one
 * user context: their storage is shared), each page opened at `url` with
 * `standIn(arg)` run before its scripts (`evaluateOnNewDocument`). Each
 * body's answer, `{ threw }` for one that threw, or `{ hung: true, stage }`
 * when it has not answered after `limitMs` (a probe that never settles, a
 * frozen page; `stage`: what the body last set `globalThis.__stage` to, and
 * `pageAnswers`: whether the page still runs code); each with the page's
 * uncaught errors (`pageErrors`: Firefox reports a CSP violation there too).
 */
export async function inPages(browser, url, standIn, bodies, arg = {}, limitMs = 30_000) {
  const context = await browser.createBrowserContext();
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
      await page.evaluateOnNewDocument(() => {
        let current;
        Object.defineProperty(globalThis, '__stage', {
          configurable: true,
          get: () => current,
          set: (value) => { current = value; console.debug(`__stage ${value}`); },
        });
      });
      if (standIn) await page.evaluateOnNewDocument(standIn, arg);
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

// Headless Debian Firefox ESR for the browser suites, driven by puppeteer-core
// over WebDriver BiDi (never a downloaded browser): a fresh temporary profile
// with the preferences this closed network needs and those of a WebGPU
// situation (PREFS), closed and removed by `browser.close()`; and `inPages`,
// chromium.mjs's, over puppeteer's API.
// Not a test file: `node --test tests/js/` does not pick it up.
import puppeteer from 'puppeteer-core';
import { inPagesOf } from './pages.mjs';

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

/** `pages.mjs`'s `inPagesOf` in this engine (puppeteer): `browser`'s fresh context,
 *  `standIn(arg)` run before each page's scripts. */
export function inPages(browser, url, standIn, bodies, arg = {}, limitMs = 30_000) {
  const engine = {
    newContext: () => browser.createBrowserContext(),
    beforeScripts: (page, fn, value) => page.evaluateOnNewDocument(fn, value),
  };
  return inPagesOf(engine, url, standIn, bodies, arg, limitMs);
}

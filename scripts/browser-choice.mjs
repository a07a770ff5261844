// The decision an inference app makes, as headless Chromium on this machine
// makes it (scripts/main.sh's summary): the built package (pkg/) served on a
// loopback port, then in a page
//   detect({ allowFallbackAdapter: false, verify: true }) and executionProviders()
// with WebGPU exposed (--enable-unsafe-webgpu, as a desktop browser has it).
// Prints one line: "use webgpu: ..." or "use wasm: <reason>: <message>".
// Needs tests/js's node_modules (playwright-core) and /usr/bin/chromium
// (scripts/setup.sh installs both); says so and exits 2 without them.
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = dirname(dirname(fileURLToPath(import.meta.url)));
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
if (!existsSync(join(ROOT, 'tests', 'js', 'node_modules', 'playwright-core')) || !existsSync(CHROMIUM)) {
  console.log('not asked: no playwright-core in tests/js/node_modules or no Chromium (scripts/setup.sh installs them)');
  process.exit(2);
}
const { serve } = await import('../tests/js/static-server.mjs');
const { withChromium } = await import('../tests/js/chromium.mjs');

const server = await serve(ROOT, { pages: { '/choice.html': '<!doctype html><title>choice</title>' } });
try {
  const answer = await withChromium(['--enable-unsafe-webgpu'], async (context) => {
    const page = await context.newPage();
    await page.goto(`${server.origin}/choice.html`);
    return page.evaluate(async () => {
      const { default: init, detect, executionProviders } = await import('/pkg/index.js');
      await init();
      const resolution = await detect({ allowFallbackAdapter: false, verify: true });
      const { reason, message } = resolution.probe;
      return { providers: executionProviders(resolution), reason, message };
    });
  });
  const { providers, reason, message } = answer;
  console.log(`use ${providers[0]} (executionProviders: ${JSON.stringify(providers)}): ${reason}: ${message}`);
} finally {
  await server.close();
}

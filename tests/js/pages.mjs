// The browser suites' one way to run page functions, for both engines
// (chromium.mjs over playwright-core, firefox.mjs over puppeteer-core): each
// engine gives how to make a fresh context and add a script that runs
// before a page's own; the rest is here.
// Not a test file: `node --test tests/js/` does not pick it up.

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
 * page of its own, one after another, in one fresh context
 * (`engine.newContext()`: their storage is shared), each page opened at `url`
 * with `standIn(arg)` run before its scripts (`engine.beforeScripts(page,
 * fn, arg)`). Each body's answer, `{ threw }` for one that threw, or
 * `{ hung: true, stage }` when it has not answered after `limitMs` (a probe
 * that never settles, a frozen page; `stage`: what the body last set
 * `globalThis.__stage` to, and `pageAnswers`: whether the page still runs
 * code); each with the page's uncaught errors (`pageErrors`).
 */
export async function inPagesOf(engine, url, standIn, bodies, arg = {}, limitMs = 30_000) {
  const context = await engine.newContext();
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
      await engine.beforeScripts(page, () => {
        let current;
        Object.defineProperty(globalThis, '__stage', {
          configurable: true,
          get: () => current,
          set: (value) => { current = value; console.debug(`__stage ${value}`); },
        });
      });
      if (standIn) await engine.beforeScripts(page, standIn, arg);
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

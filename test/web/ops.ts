/** Shared steps of the operations and finance browser tests: sign-in, the page checks (axe, 375 px). */
import assert from 'node:assert/strict';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { startTestApp, type TestApp, type TestTenant } from '../helpers/app';
import { enforceCsp, ensureWebBuilt, findChromium, launch, screenshot, seriousViolations } from './browser';

export async function signIn(page: Page, app: TestApp, who: { email: string; password: string }, landing: RegExp = /\/app\/statements$/): Promise<void> {
  await page.goto(`${app.url}/app/signin`);
  await page.fill('input[type=email]', who.email);
  await page.fill('input[type=password]', who.password);
  await page.click('button[type=submit]');
  await page.waitForURL(landing);
}

/** Screenshot, then no serious or critical axe violation. */
export async function checkPage(page: Page, name: string): Promise<void> {
  await screenshot(page, name);
  assert.deepEqual(await seriousViolations(page), [], `axe on ${name}`);
}

/**
 * The page at `path` on a 375 px wide phone, once `ready` is visible: no sideways scrolling, and
 * axe finds nothing serious there either.
 */
export async function checkPhone(browser: Browser, app: TestApp, who: { email: string; password: string }, path: string, ready: string, name: string): Promise<void> {
  const ctx = await browser.newContext({ viewport: { width: 375, height: 800 } });
  try {
    const p = await ctx.newPage();
    await signIn(p, app, who, /\/app\/(statements|me)$/);
    await p.goto(`${app.url}/app${path}`);
    await p.locator(ready).first().waitFor();
    const [scroll, inner] = await p.evaluate(() => [(globalThis as any).document.documentElement.scrollWidth, (globalThis as any).innerWidth]);
    assert.ok(scroll <= inner, `no sideways scrolling on ${path} at 375 px (page ${scroll} px wide)`);
    await checkPage(p, `${name}-375`);
  } finally {
    await ctx.close();
  }
}

export interface WebRun { app: TestApp; t: TestTenant; browser: Browser; ctx: BrowserContext; page: Page; blocked: string[] }

/**
 * The hooks of a browser suite: a real Rondo with workers, the workspace `seed` makes (data
 * through the API), Chromium with a context under the strict content policy, and its admin
 * signed in. Without a Chromium the suite is skipped with a line saying so.
 */
export function browserSuite(what: string, seed: (app: TestApp) => Promise<TestTenant>): WebRun {
  const run = { blocked: [] as string[] } as WebRun;
  before(async function () {
    const chromium = findChromium();
    if (!chromium) {
      console.log(`    ${what} skipped: no Chromium found (apt-get install chromium, or set CHROMIUM_PATH); CI installs it`);
      this.skip();
    }
    ensureWebBuilt();
    run.app = await startTestApp({ workers: true });
    run.t = await seed(run.app);
    run.browser = await launch(chromium!);
    run.ctx = await run.browser.newContext({ viewport: { width: 1280, height: 900 }, acceptDownloads: true, locale: 'en-US' });
    await enforceCsp(run.ctx, run.blocked);
    run.page = await run.ctx.newPage();
    await signIn(run.page, run.app, run.t.users.admin!);
  });
  after(async () => {
    await run.browser?.close();
    await run.app?.close();
  });
  return run;
}

/** `fn` on a page of a new context (under the strict policy) where `who` is signed in; the context is closed afterwards. */
export async function asPerson(run: WebRun, who: { email: string; password: string }, landing: RegExp, fn: (page: Page) => Promise<void>): Promise<void> {
  const ctx = await run.browser.newContext({ viewport: { width: 1280, height: 900 } });
  await enforceCsp(ctx, run.blocked);
  try {
    const page = await ctx.newPage();
    await signIn(page, run.app, who, landing);
    await fn(page);
  } finally {
    await ctx.close();
  }
}

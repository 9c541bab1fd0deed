/**
 * Headless Chromium (the distribution's package) for the web app's end-to-end tests, driven by
 * playwright-core; axe-core for the accessibility check; screenshots into test/artifacts/web.
 */
import fs from 'node:fs';
import path from 'node:path';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import type { Browser, BrowserContext, Locator, Page } from 'playwright-core';

const CANDIDATES = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser', '/usr/bin/google-chrome'].filter(Boolean) as string[];
export const ARTIFACTS = path.resolve('test/artifacts/web');

export function findChromium(): string | null {
  return CANDIDATES.find((p) => fs.existsSync(p)) ?? null;
}

/** Set by the suite's global setup once it has built (or checked) web/dist: the files' own checks are then not repeated. */
export const WEB_BUILT_ENV = 'RONDO_TEST_WEB_BUILT';

/** web/dist is built by `npm install`; build it here when a checkout skipped that (once per run: see WEB_BUILT_ENV). */
export function ensureWebBuilt(): void {
  if (process.env[WEB_BUILT_ENV] === '1' && fs.existsSync('web/dist/index.html')) return;
  const r = spawnSync(process.execPath, ['web/build.mjs', '--if-stale'], { stdio: 'inherit' });
  if (r.status !== 0) throw new Error('building the web app failed');
  if (!fs.existsSync('web/dist/index.html')) throw new Error('web/dist/index.html is missing after the build');
}

export async function launch(executablePath: string): Promise<Browser> {
  const { chromium } = await import('playwright-core');
  fs.mkdirSync(ARTIFACTS, { recursive: true });
  // launch() gives every run a fresh temporary profile (user-data dir), removed on close
  return chromium.launch({
    executablePath,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

const axeSource = fs.readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** axe-core on the page as it is now: the serious and critical violations, as readable lines. */
export async function seriousViolations(page: Page): Promise<string[]> {
  // evaluated through the DevTools protocol: the app's CSP (no inline scripts) stays in force
  if (!(await page.evaluate(() => 'axe' in globalThis))) await page.evaluate(axeSource);
  const violations = await page.evaluate(async () => {
    const g = globalThis as any;
    const r = await g.axe.run(g.document, { resultTypes: ['violations'] });
    return r.violations.map((v: any) => ({ id: v.id, impact: v.impact, help: v.help, targets: v.nodes.slice(0, 3).map((n: any) => n.target.join(' ')) }));
  });
  return violations.filter((v: any) => v.impact === 'serious' || v.impact === 'critical').map((v: any) => `${v.impact} ${v.id}: ${v.help} (${v.targets.join('; ')})`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  await page.screenshot({ path: path.join(ARTIFACTS, `${name}.png`), fullPage: true });
}

/**
 * A picture of `what` with the sandboxed `srcdoc` frames inside it shown: headless Chromium's
 * capture leaves such a frame empty. Each frame's document is drawn on a page of its own at the
 * frame's size (scripts off, as the sandbox has them) and laid over the frame as an image while
 * the picture is taken, then removed; the page's sandbox and policy are left as they are.
 */
export async function screenshotWithFrames(what: Locator, frames: Locator, file: string): Promise<void> {
  const page = what.page();
  const shots: string[] = [];
  for (const frame of await frames.all()) {
    const [html, box] = await Promise.all([frame.getAttribute('srcdoc'), frame.evaluate((el) => ({ width: (el as any).clientWidth as number, height: (el as any).clientHeight as number }))]);
    const ctx = await page.context().browser()!.newContext({ viewport: { width: Math.max(1, box.width), height: Math.max(1, box.height) }, javaScriptEnabled: false });
    try {
      const p = await ctx.newPage();
      await p.setContent(html ?? '', { waitUntil: 'load' });
      shots.push(`data:image/png;base64,${(await p.screenshot()).toString('base64')}`);
    } finally {
      await ctx.close();
    }
  }
  const all = await frames.all();
  await Promise.all(all.map((frame, i) => frame.evaluate((el: any, src: string) => {
    const img = el.ownerDocument.createElement('img');
    img.src = src;
    img.alt = '';
    img.dataset.framePicture = '';
    img.style.cssText = `display:block;width:${el.clientWidth}px;height:${el.clientHeight}px;border:${el.ownerDocument.defaultView.getComputedStyle(el).border}`;
    el.style.display = 'none';
    el.before(img);
    return img.decode();
  }, shots[i]!)));
  try {
    await what.screenshot({ path: file });
  } finally {
    await Promise.all(all.map((frame) => frame.evaluate((el: any) => {
      el.previousElementSibling?.matches('img[data-frame-picture]') && el.previousElementSibling.remove();
      el.style.display = '';
    })));
  }
}

/** A strict policy like the one production headers set: the app must work with no inline script. */
export const STRICT_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; object-src 'none'; base-uri 'self'; form-action 'self'; frame-ancestors 'none'; script-src-attr 'none'";

/** Serves every page of the context under STRICT_CSP and records what the policy blocks. */
export async function enforceCsp(ctx: BrowserContext, blocked: string[]): Promise<void> {
  await ctx.route('**/*', async (route) => {
    if (route.request().resourceType() !== 'document') return route.continue();
    const res = await route.fetch({ maxRedirects: 0 }); // the browser follows redirects itself
    await route.fulfill({ response: res, headers: { ...res.headers(), 'content-security-policy': STRICT_CSP } });
  });
  ctx.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) blocked.push(m.text());
  });
}

/**
 * At `width` px (a phone), the outermost elements that stick out sideways (their parent does
 * not): [] when the page needs no sideways scrolling. The viewport is put back afterwards.
 */
export async function sidewaysOverflow(page: Page, width = 375): Promise<string[]> {
  const before = page.viewportSize();
  await page.setViewportSize({ width, height: 800 });
  const wider = await page.evaluate((w) => {
    const d = (globalThis as any).document;
    if (d.documentElement.scrollWidth <= w + 1) return [];
    return [...d.querySelectorAll('body *')]
      .filter((el: any) => el.getBoundingClientRect().right > w + 1 && el.parentElement.getBoundingClientRect().right <= w + 1)
      .slice(0, 5)
      .map((el: any) => `${el.tagName}.${el.className} in ${el.parentElement.tagName}.${el.parentElement.className}: ${Math.round(el.getBoundingClientRect().right)}`);
  }, width);
  if (before) await page.setViewportSize(before);
  return wider;
}

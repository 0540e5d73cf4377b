// End-to-end: the API reference in headless Chromium against the real binary. Try it opens in
// view and sends in one step; following an operation link leaves its heading below the sticky
// top bar.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import {
  createKey,
  launchBrowser,
  screenshot,
  seriousViolations,
  settled,
  signUp,
  startServer,
  topBarBox,
  watchConsole,
} from './harness.mjs';

let server;
let browser;
let context;
let page;
let consoleErrors = [];
let secret = '';

const viewport = { width: 1280, height: 800 };

async function openReference(hash = '') {
  // A fresh load each time: from the same page, going to a fragment would only follow it.
  if (new URL(page.url()).pathname === '/user/api/reference') await page.goto('about:blank');
  await page.goto(`${server.base}/user/api/reference${hash}`);
  await page.getByRole('navigation', { name: 'API operations' }).waitFor({ timeout: 15_000 });
  await settled(page);
}

/** Waits until the page stops scrolling (fragment navigation and scrollIntoView are instant here, but be sure). */
async function scrollSettled() {
  let last = -1;
  for (let i = 0; i < 20; i++) {
    const y = await page.evaluate(() => window.scrollY);
    if (y === last) return y;
    last = y;
    await page.waitForTimeout(50);
  }
  return last;
}

/** Asserts that the element is wholly inside the viewport and not under the sticky top bar. */
async function assertInView(locator, what) {
  const box = await locator.boundingBox();
  assert.ok(box, `${what}: not rendered`);
  const bar = await topBarBox(page);
  const { height } = page.viewportSize();
  assert.ok(box.y >= bar.y + bar.height, `${what} is under the top bar (top ${box.y}, bar bottom ${bar.y + bar.height})`);
  assert.ok(box.y + box.height <= height, `${what} is below the viewport (bottom ${box.y + box.height}, viewport ${height})`);
}

describe('API reference end to end', { timeout: 180_000 }, () => {
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport, baseURL: server.base });
    consoleErrors = watchConsole(context);
    page = await context.newPage();
    await signUp(page, server.base, { name: 'Rey Reference', email: `ref-${Date.now()}@example.com`, password: 'correct horse battery staple' });
    await page.goto(`${server.base}/user/api/keys`);
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor();
    const created = await createKey(page, 'reference key');
    secret = created.value;
    await created.secretDialog.getByRole('button', { name: 'Done' }).click();
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    if (process.exitCode && server) console.error(`--- server log (tail) ---\n${server.log().slice(-3000)}`);
    await server?.stop();
  });

  it('following an operation link leaves its heading below the sticky top bar', async () => {
    await openReference();
    const toc = page.getByRole('navigation', { name: 'API operations' });
    // Operation links are in the lists; each group's title links to the group.
    const hrefs = await toc.locator('li a').evaluateAll((as) => as.map((a) => a.getAttribute('href')));
    assert.ok(hrefs.length >= 3, `only ${hrefs.length} operation links`);
    // One group at a time: the first one, its title marked current.
    const groupOf = (href) => toc.locator('div', { has: page.locator(`a[href="${href}"]`) }).locator('a[aria-current]');
    const groups = await toc.locator('a[href^="#tag-"]').count();
    assert.ok(groups >= 3, `only ${groups} group links`);
    assert.equal(await toc.locator('a[aria-current="location"]').count(), 1);
    assert.equal(await page.getByRole('heading', { level: 2 }).count(), 1);
    assert.ok((await page.locator('[data-operation]').count()) < hrefs.length / 2, 'every operation is rendered');
    // First, one in the middle, last (the last cannot scroll to the top: still not hidden), each
    // in another group: the link renders its group, then scrolls to it.
    const visited = [];
    for (const href of [hrefs[1], hrefs[Math.floor(hrefs.length / 2)], hrefs.at(-1)]) {
      await toc.locator(`a[href="${href}"]`).click();
      await scrollSettled();
      const heading = page.locator(`[id="${href.slice(1)}"] h3`).first();
      await assertInView(heading, `heading of ${href}`);
      assert.equal(await groupOf(href).count(), 1, `the group of ${href} is not marked current`);
      visited.push(href);
    }
    await screenshot(page, '19-reference-link');

    // Back returns to the previous operation, in its group.
    await page.goBack();
    await page.waitForURL((url) => url.hash === visited.at(-2));
    await page.locator(`[id="${visited.at(-2).slice(1)}"] h3`).first().waitFor();
    await scrollSettled();
    assert.equal(await groupOf(visited.at(-2)).count(), 1, `back: the group of ${visited.at(-2)} is not marked current`);
    await page.goForward();
    await page.locator(`[id="${visited.at(-1).slice(1)}"] h3`).first().waitFor();

    // The filter searches every group; clearing it returns to the selected one.
    const filter = page.getByLabel('Filter operations');
    await filter.fill('get');
    assert.ok((await page.getByRole('heading', { level: 2 }).count()) > 1, 'a filter shows one group only');
    await filter.fill('');
    assert.equal(await page.getByRole('heading', { level: 2 }).count(), 1);
    await page.locator(`[id="${visited.at(-1).slice(1)}"]`).waitFor();

    // Opening a link from elsewhere (a bookmark, a shared URL) lands the same way.
    const target = hrefs[Math.floor(hrefs.length / 3)];
    await openReference(target);
    await scrollSettled();
    await assertInView(page.locator(`[id="${target.slice(1)}"] h3`).first(), `heading of ${target} opened directly`);

    // On a narrow screen too, where the sidebar becomes a bar above the content.
    await page.setViewportSize({ width: 800, height: 700 });
    try {
      await openReference();
      await page.locator(`a[href="${hrefs[2]}"]`).click();
      await scrollSettled();
      await assertInView(page.locator(`[id="${hrefs[2].slice(1)}"] h3`).first(), `heading of ${hrefs[2]} at 800 px`);
    } finally {
      await page.setViewportSize(viewport);
    }
  });

  it('Try it opens in view with focus on Send, and Enter sends the request', async () => {
    await openReference();
    await page.getByLabel('API key for cURL and Try it').fill(secret);
    await page.getByRole('navigation', { name: 'API operations' }).locator('a[href="#listModels"]').click();
    await scrollSettled();
    const op = page.locator('[data-operation="GET /api/v1/models"]');
    await op.getByRole('button', { name: 'Try it' }).click();
    await scrollSettled();

    const panel = op.getByRole('region', { name: 'Try GET /api/v1/models' });
    await panel.waitFor();
    await assertInView(panel, 'the Try it panel');
    const send = panel.getByRole('button', { name: 'Send request' });
    assert.ok(await send.evaluate((el) => el === document.activeElement), 'Send request is not focused');

    // One step: Enter.
    await page.keyboard.press('Enter');
    const status = panel.getByTestId('tryit-status');
    await status.filter({ hasText: '200' }).waitFor();
    assert.match(await panel.getByLabel('Response body').textContent(), /"object": "list"/);
    await assertInView(status, 'the response status');
    await assertInView(op.getByRole('button', { name: 'Hide Try it' }), 'the Hide Try it button');
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '20-reference-try-it-in-view');
  });

  it('without a pasted key, Try it asks for one in the panel; Enter there sends (narrow screen)', async () => {
    await page.evaluate(() => sessionStorage.clear());
    await page.setViewportSize({ width: 800, height: 700 });
    await openReference('#listModels');
    const op = page.locator('[data-operation="GET /api/v1/models"]');
    await op.scrollIntoViewIfNeeded();
    await op.getByRole('button', { name: 'Try it' }).click();
    const panel = op.getByRole('region', { name: 'Try GET /api/v1/models' });
    const keyField = panel.getByLabel('API key', { exact: true });
    await assertInView(keyField, 'the API key field in Try it');
    assert.ok(await keyField.evaluate((el) => el === document.activeElement), 'the API key field is not focused');
    await page.keyboard.type(secret);
    await page.keyboard.press('Enter');
    const status = panel.getByTestId('tryit-status');
    await status.filter({ hasText: '200' }).waitFor();
    // One column here: the response is below Send and is brought into view.
    await scrollSettled();
    await assertInView(status, 'the response status');
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '21-reference-try-it-narrow');
    await page.setViewportSize(viewport);
  });

  it('the browser console stayed free of errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});

// End-to-end: the short-link pages in headless Chromium against the real binary. A link with
// a custom slug is created in the console, found in the list, opened with its QR code (both
// downloads work); a visitor (a fetch from Node with a browser's User-Agent) follows /l/<slug>
// and is redirected, and the click shows up in the open detail page live, then in the list.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launchBrowser, screenshot, seriousViolations, settled, signUp, startServer, watchConsole } from './harness.mjs';

const viewport = { width: 1280, height: 800 };
const wait = { timeout: 20_000 };
const chromeUA =
  'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/131.0.0.0 Safari/537.36';
const slug = `e2e-${Date.now().toString(36)}`;
const target = 'https://example.com/landing?from=e2e';
let server;
let browser;
let context;
let page;
let consoleErrors = [];
let linkId;
/** Every LinkEvents subscription the page sends over its websocket. */
const subscriptions = [];

describe('short links end to end', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport, baseURL: server.base, acceptDownloads: true });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    consoleErrors = watchConsole(context);
    page = await context.newPage();
    page.on('websocket', (ws) =>
      ws.on('framesent', (f) => {
        const data = typeof f.payload === 'string' ? f.payload : String(f.payload);
        if (data.includes('"subscribe"') && data.includes('LinkEvents')) subscriptions.push(Date.now());
      }),
    );
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    if (process.exitCode && server) console.error(`--- server log (tail) ---\n${server.log().slice(-3000)}`);
    await server?.stop();
  });

  it('creates a link with a custom slug and finds it in the list', async () => {
    await signUp(page, server.base, { name: 'Lin Linker', email: `links-${Date.now()}@example.com`, password: 'correct horse battery staple' });
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Short links' }).click();
    await page.getByRole('heading', { name: 'Short links', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No short links yet' }).waitFor(wait);
    assert.deepEqual(await seriousViolations(page), []);

    await page.getByRole('button', { name: 'Create your first link' }).click();
    const dialog = page.getByRole('dialog', { name: 'New short link' });
    await dialog.getByLabel('Destination URL').fill(target);
    await dialog.getByLabel(/^Short link/).fill(slug);
    await dialog.getByLabel(/^Title/).fill('E2E launch');
    await dialog.getByLabel(/^Tags/).fill('e2e, promo');
    // The advanced options, opened from the keyboard.
    await dialog.getByRole('button', { name: /More options/ }).focus();
    await page.keyboard.press('Enter');
    await dialog.getByLabel(/^Click limit/).waitFor();
    await dialog.getByLabel('Redirect status').selectOption('302');
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'links-01-create');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await page.getByRole('status').filter({ hasText: `Short link ${server.base}/l/${slug} created` }).waitFor(wait);
    await dialog.waitFor({ state: 'detached' });

    const table = page.getByRole('table', { name: 'Short links' });
    const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: 'E2E launch' }) });
    await row.waitFor(wait);
    assert.match((await row.textContent()) ?? '', new RegExp(`/l/${slug}`));
    assert.match((await row.textContent()) ?? '', /example\.com\/landing/);

    // Copy the short URL from the list.
    await row.getByRole('button', { name: `Copy short link ${slug}` }).click();
    await row.getByRole('button', { name: `Copied short link ${slug}` }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), `${server.base}/l/${slug}`);

    // Search and tag filters find it; another tag does not.
    await page.getByRole('searchbox', { name: 'Search' }).fill(slug);
    await page.waitForURL(new RegExp(`q=${slug}`));
    await row.waitFor(wait);
    await page.getByLabel('Tag', { exact: true }).fill('nope');
    await page.getByRole('heading', { name: 'No links match' }).waitFor(wait);
    await page.getByRole('button', { name: 'Clear filters' }).first().click();
    await row.getByRole('button', { name: 'Show links tagged e2e' }).click();
    await page.waitForURL(/tag=e2e/);
    await row.waitFor(wait);
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'links-02-list');
  });

  it('opens the detail page with the QR code and downloads it as SVG and PNG', async () => {
    const subscribedBefore = subscriptions.length;
    await page.getByRole('link', { name: 'E2E launch' }).click();
    await page.waitForURL(/\/user\/api\/links\/lnk_/);
    linkId = page.url().split('/').pop();
    await page.getByRole('heading', { name: 'E2E launch', level: 1 }).waitFor();
    assert.equal(await page.getByTestId('short-url').textContent(), `${server.base}/l/${slug}`);

    const qr = page.getByRole('img', { name: `QR code for the short link ${slug}` });
    await qr.waitFor(wait);
    assert.match((await qr.getAttribute('src')) ?? '', /^data:image\/svg\+xml/);
    assert.ok(await qr.evaluate((img) => img.complete && img.naturalWidth > 0), 'the QR code image did not load');

    const [svgDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: 'Download SVG' }).click()]);
    assert.equal(svgDownload.suggestedFilename(), `${slug}-qr.svg`);
    assert.match(readFileSync(await svgDownload.path(), 'utf8'), /^<svg [^>]*viewBox/);
    const [pngDownload] = await Promise.all([page.waitForEvent('download'), page.getByRole('button', { name: 'Download PNG' }).click()]);
    assert.equal(pngDownload.suggestedFilename(), `${slug}-qr.png`);
    const png = readFileSync(await pngDownload.path());
    assert.deepEqual([...png.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

    await page.getByRole('heading', { name: 'No clicks in the last 30 days' }).waitFor(wait);
    assert.equal(await page.getByTestId('link-clicks').textContent(), '0 clicks');
    // The page listens for this link's clicks before anyone visits.
    for (const deadline = Date.now() + 20_000; subscriptions.length === subscribedBefore; ) {
      if (Date.now() > deadline) throw new Error('the detail page never subscribed to link events');
      await page.waitForTimeout(50);
    }
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'links-03-detail');
  });

  it('a visitor following /l/<slug> is redirected, and the click appears in the console', async () => {
    const res = await fetch(`${server.base}/l/${slug}`, {
      redirect: 'manual',
      headers: { 'User-Agent': chromeUA, Accept: 'text/html', Referer: 'https://news.example.org/post/1' },
    });
    assert.equal(res.status, 302);
    assert.equal(res.headers.get('location'), target);

    // Clicks are written in batches (every 250 ms) and announced as link.clicked: the open page updates itself.
    await page.getByTestId('link-clicks').filter({ hasText: /^1 click$/ }).waitFor(wait);
    await page.getByTestId('stats-clicks').filter({ hasText: /^1$/ }).waitFor(wait);
    await page.getByRole('img', { name: /^Clicks per day, last 30 days: 1 click/ }).waitFor(wait);
    const referrers = page.getByRole('table', { name: 'Referrers' });
    await referrers.getByText('news.example.org').waitFor(wait);
    await page.getByRole('table', { name: 'Browsers' }).getByText('Chrome').waitFor(wait);
    await page.getByRole('table', { name: 'Devices' }).getByText('Desktop').waitFor(wait);
    await page.getByRole('table', { name: 'Recent clicks' }).getByText('news.example.org').waitFor(wait);
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'links-04-clicked');

    // And the list counts it (shown from the cache at first, then refreshed).
    await page.getByRole('link', { name: 'Short links' }).first().click();
    const row = page.getByRole('table', { name: 'Short links' }).getByRole('row').filter({ has: page.getByRole('link', { name: 'E2E launch' }) });
    await row.getByRole('cell').nth(3).filter({ hasText: /^1$/ }).waitFor(wait);
    assert.equal(await page.getByRole('link', { name: 'E2E launch' }).getAttribute('href'), `/user/api/links/${linkId}`);
  });

  it('deletes the link after confirming; its short URL stops working', async () => {
    await page.getByRole('button', { name: `Delete ${slug}` }).click();
    const confirm = page.getByRole('alertdialog', { name: `Delete ${slug}?` });
    await confirm.getByRole('button', { name: 'Delete link' }).click();
    await page.getByRole('status').filter({ hasText: `Link ${slug} deleted` }).waitFor(wait);
    await page.getByRole('heading', { name: /No short links yet|No links match/ }).waitFor(wait);
    const res = await fetch(`${server.base}/l/${slug}`, { redirect: 'manual', headers: { 'User-Agent': chromeUA } });
    assert.equal(res.status, 404);
  });

  it('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});

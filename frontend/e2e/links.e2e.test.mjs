// End-to-end: the short-link pages in headless Chromium against the real binary. A link with
// a custom slug is created in the console, found in the list, opened with its QR code (both
// downloads work); a visitor (a fetch from Node with a browser's User-Agent) follows /l/<slug>
// and is redirected, and the click shows up in the open detail page live, then in the list.
// The browser is in Asia/Kolkata: the stats are asked for in its days, and the chart's last
// day is today in Kolkata. An expired link can still be edited (a new title saves), while a
// past expiry typed into the form is refused there, announced and focused.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { launchBrowser, screenshot, seriousViolations, settled, signUp, startServer, watchConsole } from './harness.mjs';

const viewport = { width: 1280, height: 800 };
const timezoneId = 'Asia/Kolkata';
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
/** The variables of every LinkStats query the page sends. */
const statsQueries = [];

/** Sends a GraphQL operation from the page, with its session cookie. */
async function graphql(page, query, variables) {
  const body = await page.evaluate(
    async ({ query, variables }) => {
      const res = await fetch('/graphql', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query, variables }),
      });
      return res.json();
    },
    { query, variables },
  );
  assert.equal(body.errors, undefined, JSON.stringify(body.errors));
  return body.data;
}

/** How the links table sits in its card: widths of the scroll area and the page, and each Created cell. */
function linksTableLayout(page) {
  return page.evaluate(() => {
    const table = document.querySelector('table[aria-label="Short links"]');
    const scroller = table.parentElement;
    return {
      scrollWidth: scroller.scrollWidth,
      clientWidth: scroller.clientWidth,
      pageScrollWidth: document.documentElement.scrollWidth,
      pageWidth: document.documentElement.clientWidth,
      created: [...table.tBodies[0].rows].map((row) => {
        const cell = row.cells[4];
        const time = cell.querySelector('time');
        return {
          text: time.textContent,
          whiteSpace: getComputedStyle(cell).whiteSpace,
          lines: Math.round(time.getBoundingClientRect().height / parseFloat(getComputedStyle(time).lineHeight)),
        };
      }),
      // The last row action (Delete) ends inside the card, not under its clipped edge.
      actionsInside: [...table.tBodies[0].rows].every(
        (row) => row.cells[5].lastElementChild.getBoundingClientRect().right <= scroller.getBoundingClientRect().right,
      ),
    };
  });
}

describe('short links end to end', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport, baseURL: server.base, acceptDownloads: true, timezoneId });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    consoleErrors = watchConsole(context);
    page = await context.newPage();
    page.on('request', (req) => {
      if (!req.url().endsWith('/graphql') || req.method() !== 'POST') return;
      const body = req.postDataJSON();
      if (body?.operationName === 'LinkStats') statsQueries.push(body.variables);
    });
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

    // At 1280 px the table fits its card even with a long title, URL, slug and tags: they are cut
    // with an ellipsis, and the Created cell stays on one line. (A second link, deleted again.)
    const longTitle = 'A very long title for the spring launch campaign landing page for newsletter readers';
    const { createLink: long } = await graphql(
      page,
      'mutation($input: CreateLinkInput!) { createLink(input: $input) { id } }',
      {
        input: {
          url: 'https://very-long-subdomain.marketing.example.com/campaigns/2026/spring-launch/landing-page?utm_source=newsletter&utm_medium=email',
          slug: `${slug}-with-a-much-longer-slug-than-usual`,
          title: longTitle,
          tags: ['promo', 'newsletter', 'a-rather-long-tag-name-for-europe'],
        },
      },
    );
    await page.reload();
    await table.getByRole('link', { name: longTitle }).waitFor(wait);
    await row.waitFor(wait);
    const layout = await linksTableLayout(page);
    assert.ok(layout.scrollWidth <= layout.clientWidth, `the links table overflows its card: ${JSON.stringify(layout)}`);
    assert.ok(layout.pageScrollWidth <= layout.pageWidth, `the page scrolls sideways: ${JSON.stringify(layout)}`);
    assert.ok(layout.actionsInside, `row actions reach past the card: ${JSON.stringify(layout)}`);
    for (const c of layout.created) {
      assert.equal(c.whiteSpace, 'nowrap', JSON.stringify(c));
      assert.equal(c.lines, 1, `Created wraps: ${JSON.stringify(c)}`);
    }
    await screenshot(page, 'links-02-list-long');
    await graphql(page, 'mutation($id: ID!) { deleteLink(id: $id) { id } }', { id: long.id });
    await page.reload();
    await row.waitFor(wait);
    await table.getByRole('link', { name: longTitle }).waitFor({ state: 'detached', ...wait });

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
    // Asked for in the browser's time zone (Chromium may name it by its older alias), and
    // today's click is on today's date in Kolkata, whatever the time in UTC.
    const zone = await page.evaluate(() => Intl.DateTimeFormat().resolvedOptions().timeZone);
    assert.ok(['Asia/Kolkata', 'Asia/Calcutta'].includes(zone), zone);
    assert.ok(statsQueries.length > 0, 'the page never asked for stats');
    assert.ok(statsQueries.every((v) => v.timezone === zone), JSON.stringify(statsQueries));
    const today = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: timezoneId }).format(new Date());
    await page.getByRole('img', { name: new RegExp(`^Clicks per day, last 30 days: 1 click, most on ${today} \\(1 click\\)`) }).waitFor(wait);
    assert.equal(await page.getByTestId('chart-timezone').textContent(), zone);
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

  it('edits an expired link: a new title saves; a past expiry typed in is refused, announced and focused', async () => {
    const expiring = `${slug}-flash`;
    // The server refuses an expiry in the past, so the link expires 2 s after it is created.
    const { createLink: flash } = await graphql(page, 'mutation($input: CreateLinkInput!) { createLink(input: $input) { id } }', {
      input: { url: 'https://example.com/flash-sale', slug: expiring, title: 'Flash sale', expiresAt: new Date(Date.now() + 2000).toISOString() },
    });
    await page.waitForTimeout(2500);
    await page.goto(`${server.base}/user/api/links/${flash.id}`);
    await page.getByRole('heading', { name: 'Flash sale', level: 1 }).waitFor(wait);

    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: `Edit ${expiring}` });
    await dialog.getByLabel(/^Title/).fill('Flash sale (over)');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: `Link ${expiring} saved` }).waitFor(wait);
    await dialog.waitFor({ state: 'detached' });
    await page.getByRole('heading', { name: 'Flash sale (over)', level: 1 }).waitFor(wait);

    // Another past expiry is the user's own change: refused before anything is sent.
    await page.getByRole('button', { name: 'Edit' }).click();
    const expires = dialog.getByLabel(/^Expires at/);
    await expires.fill('2020-01-01T10:00');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'Choose a time in the future.' }).waitFor(wait);
    assert.equal(await expires.getAttribute('aria-invalid'), 'true');
    const description = await expires.evaluate((el) =>
      (el.getAttribute('aria-describedby') ?? '')
        .split(' ')
        .map((id) => document.getElementById(id)?.textContent)
        .join(' '),
    );
    assert.match(description, /Choose a time in the future\./);
    // Focus is on the field to fix, not left on the Save button.
    await expires.evaluate(
      (el) =>
        new Promise((resolve, reject) => {
          const deadline = Date.now() + 5000;
          (function check() {
            if (document.activeElement === el) resolve();
            else if (Date.now() > deadline) reject(new Error(`focus is on ${document.activeElement?.outerHTML.slice(0, 120)}`));
            else setTimeout(check, 50);
          })();
        }),
    );
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'links-05-expired-edit');
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
  });

  it('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});

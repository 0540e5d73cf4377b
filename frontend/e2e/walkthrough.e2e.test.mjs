// End-to-end: what a new user runs into walking through the console in headless Chromium
// against the real binary. On a phone (390×844) no page scrolls sideways and every button of
// an instance card or a page header is on screen; closing a dialog gives focus back to the
// button that opened it; and a page whose code cannot be downloaded shows an error inside the
// console instead of blanking it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createKey, launchBrowser, screenshot, settled, signUp, startServer, watchConsole } from './harness.mjs';

const desktop = { width: 1280, height: 800 };
const phone = { width: 390, height: 844 };
const wait = { timeout: 20_000 };
let server;
let browser;
let context;
let page;
let consoleErrors = [];
let secret = '';

async function goto(path) {
  await page.goto(`${server.base}${path}`);
  await page.locator('h1').first().waitFor(wait);
  await settled(page);
}

async function api(method, path, body) {
  const res = await fetch(`${server.base}/api/v1${path}`, {
    method,
    headers: { Authorization: `Bearer ${secret}`, 'Content-Type': 'application/json' },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = await res.json().catch(() => null);
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${JSON.stringify(json)}`);
  return json;
}

/** How far the page scrolls sideways, and the element sticking out furthest. */
function sidewaysOverflow(p) {
  return p.evaluate(() => {
    const width = document.documentElement.clientWidth;
    const extra = document.documentElement.scrollWidth - width;
    let worst = '';
    let right = width;
    const scrolled = (el) => {
      for (let a = el.parentElement; a && a !== document.body; a = a.parentElement) if (getComputedStyle(a).overflowX !== 'visible') return true;
      return false;
    };
    for (const el of document.querySelectorAll('body *')) {
      const r = el.getBoundingClientRect();
      if (r.width > 0 && r.right > right && (getComputedStyle(el).position === 'absolute' || !scrolled(el))) {
        right = r.right;
        worst = `${el.tagName.toLowerCase()}.${String(el.className)} "${(el.textContent ?? '').trim().slice(0, 40)}"`;
      }
    }
    return { extra, worst };
  });
}

const focused = (p) => p.evaluate(() => `${document.activeElement?.tagName} ${document.activeElement?.textContent?.trim().slice(0, 40)}`);

describe('console walk-through', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: desktop, baseURL: server.base });
    consoleErrors = watchConsole(context);
    page = await context.newPage();
    await signUp(page, server.base, { name: 'Wendy Walker', email: `walk-${Date.now()}@example.com`, password: 'correct horse battery staple' });
    // A key for the API calls that put something on every page.
    const created = await page.evaluate(async () => {
      const res = await fetch('/graphql', {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({
          query: 'mutation { createApiKey(input: { name: "setup", scopes: ["instances:read", "instances:write", "messages:send", "links:write"] }) { secret } }',
        }),
      });
      return res.json();
    });
    secret = created.data?.createApiKey?.secret ?? '';
    assert.ok(secret, `no key: ${JSON.stringify(created)}`);
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    if (process.exitCode && server) console.error(`--- server log (tail) ---\n${server.log().slice(-3000)}`);
    await server?.stop();
  });

  it('closing a dialog gives focus back to the button that opened it', async () => {
    await goto('/user/api/keys');

    // Escape on the create dialog: back on the page's "Create API key" button.
    const create = page.getByRole('button', { name: 'Create API key' }).first();
    await create.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Create API key' });
    await dialog.getByLabel('Name').waitFor();
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.matches('main button') && document.activeElement.textContent?.includes('Create API key'), null, { timeout: 2_000 }).catch(async () => {
      assert.fail(`focus is on ${await focused(page)}, not on Create API key`);
    });

    // Create → secret (a second dialog) → Done: back on "Create API key" too.
    const created = await createKey(page, 'walk-through');
    await created.secretDialog.getByRole('button', { name: 'Done' }).click();
    await created.secretDialog.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.matches('main button') && document.activeElement.textContent?.includes('Create API key'), null, { timeout: 2_000 }).catch(async () => {
      assert.fail(`after the secret dialog focus is on ${await focused(page)}, not on Create API key`);
    });

    // Escape on the revoke confirmation: back on that key's Revoke button.
    const revoke = page.getByRole('row', { name: /walk-through/ }).getByRole('button', { name: 'Revoke' });
    await revoke.focus();
    await page.keyboard.press('Enter');
    const confirm = page.getByRole('alertdialog');
    await confirm.waitFor();
    await page.keyboard.press('Escape');
    await confirm.waitFor({ state: 'detached' });
    await page.waitForFunction(() => document.activeElement?.closest('tr')?.textContent?.includes('walk-through') && document.activeElement.textContent?.includes('Revoke'), null, { timeout: 2_000 }).catch(async () => {
      assert.fail(`after the confirmation focus is on ${await focused(page)}, not on Revoke`);
    });
  });

  it('on a phone no page scrolls sideways, and every button of an instance card or a page header is on screen', async () => {
    // Something on every page: a paired instance, a message (events), a short link, the key from above.
    const link = await api('POST', '/links', { url: 'https://example.com/spring/sale', slug: `spring-sale-${Date.now()}` });
    const a = await api('POST', '/instances', { name: 'Support line with a long name', config: { auto_pair: true }, connect: true });
    const b = await api('POST', '/instances', { name: 'Sales', config: { auto_pair: true }, connect: true });
    for (let i = 0; i < 50; i++) {
      const [x, y] = await Promise.all([api('GET', `/instances/${a.id}`), api('GET', `/instances/${b.id}`)]);
      if (x.status === 'connected' && y.status === 'connected') {
        await api('POST', `/instances/${a.id}/messages`, { to: y.address, text: 'Hello from the walk-through' });
        break;
      }
      assert.ok(i < 49, 'the instances did not connect');
      await new Promise((r) => setTimeout(r, 200));
    }

    await page.setViewportSize(phone);
    const overflowing = [];
    for (const path of ['/user/api', '/user/api/keys', '/user/api/instances', '/user/api/events', '/user/api/messages', '/user/api/webhooks', '/user/api/automation', `/user/api/links/${link.id}`, '/user/api/reference#retryWebhookDelivery']) {
      await goto(path);
      if (path.includes('#')) await page.locator(`[id="${path.split('#')[1]}"]`).waitFor(wait);
      if (path.endsWith('/events')) await page.locator('[data-event-type="message.queued"]').first().waitFor(wait);
      if (path.endsWith('/instances')) await page.getByText('Connected', { exact: true }).first().waitFor(wait);
      const { extra, worst } = await sidewaysOverflow(page);
      if (extra > 0) await screenshot(page, `walkthrough-overflow-${path.split('/').pop()}`);
      if (extra > 0) overflowing.push(`${path} scrolls ${extra}px sideways at 390px; furthest right: ${worst}`);
    }
    assert.deepEqual(overflowing, []);

    await goto('/user/api/instances');
    for (const name of ['Disconnect', 'Restart', 'Edit', 'Delete']) {
      const button = page.getByRole('button', { name: `${name} Support line with a long name` });
      await button.scrollIntoViewIfNeeded();
      const box = await button.boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= phone.width, `${name} is off screen: ${JSON.stringify(box)}`);
    }
    await screenshot(page, 'walkthrough-instances-phone');

    // A page header with several actions: they go below the title, all on screen.
    await goto(`/user/api/links/${link.id}`);
    for (const name of ['Edit', 'Archive', 'Delete']) {
      const box = await page.getByRole('main').getByRole('button', { name, exact: true }).boundingBox();
      assert.ok(box && box.x >= 0 && box.x + box.width <= phone.width, `${name} is off screen: ${JSON.stringify(box)}`);
    }

    // The smallest phones (320px wide) too, on the page with the most controls in a row.
    await page.setViewportSize({ width: 320, height: 640 });
    await page.getByLabel('Period').waitFor(wait);
    await settled(page);
    const small = await sidewaysOverflow(page);
    assert.ok(small.extra <= 0, `the link page scrolls ${small.extra}px sideways at 320px; furthest right: ${small.worst}`);
    await page.setViewportSize(phone);

    // The events list: each row's time is on screen.
    await goto('/user/api/events');
    const time = page.locator('[data-event-type] time').first();
    const box = await time.boundingBox();
    assert.ok(box && box.x + box.width <= phone.width, `an event's time is cut off: ${JSON.stringify(box)}`);
    await page.setViewportSize(desktop);
  });

  it('event type checkboxes keep their size next to long descriptions', async () => {
    await goto('/user/api/webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add webhook endpoint' });
    await dialog.getByLabel('Selected events').check();
    const boxes = dialog.getByRole('checkbox');
    await boxes.first().waitFor();
    const widths = new Set();
    for (const box of await boxes.all()) {
      const b = await box.boundingBox();
      if (b) widths.add(Math.round(b.width));
    }
    assert.equal(widths.size, 1, `checkboxes of different widths: ${[...widths].join(', ')}`);
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    assert.deepEqual(consoleErrors, []);
  });

  it('a page whose code cannot be downloaded shows an error in the console, not a blank page', async () => {
    // A fresh tab that has not loaded the webhooks page's code yet; downloading it fails.
    const p = await context.newPage();
    await p.goto(`${server.base}/user/api`);
    await p.getByRole('heading', { level: 1 }).waitFor(wait);
    await p.route(/\/user\/assets\/WebhooksPage-[^/]*\.js$/, (route) => route.abort('internetdisconnected'));
    await p.getByRole('navigation').getByRole('link', { name: 'Webhooks' }).click();
    const alert = p.getByRole('alert').filter({ hasText: 'Could not load this page' });
    await alert.waitFor(wait);
    assert.match((await alert.textContent()) ?? '', /Check your connection/);
    // The console around it stays: the user can go elsewhere.
    await p.getByRole('navigation').getByRole('link', { name: 'API keys' }).click();
    await p.getByRole('heading', { name: 'API keys', level: 1 }).waitFor(wait);
    assert.equal(await p.getByRole('alert').filter({ hasText: 'Could not load this page' }).count(), 0);
    await p.close();
  });
});

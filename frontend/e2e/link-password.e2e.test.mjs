// End-to-end: a visitor opens a password-protected short link in headless Chromium, is
// refused with a wrong password, and with the right one lands on the target, which is on
// another origin (a second local server). The browser, not an HTTP client, is what matters
// here: a Content-Security-Policy on the password page can block the redirect that answers
// the form, which curl never notices.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { launchBrowser, signUp, startServer, watchConsole } from './harness.mjs';

const wait = { timeout: 20_000 };
const slug = `pw-${Date.now().toString(36)}`;
let server;
let targetServer;
let target;
let browser;
let context;
let page;
let consoleErrors = [];

describe('password-protected short link in a browser', { timeout: 180_000 }, () => {
  before(async () => {
    server = await startServer();
    targetServer = createServer((_req, res) => {
      res.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      res.end('<!doctype html><title>Target</title><h1>You made it</h1>');
    });
    await new Promise((ok) => targetServer.listen(0, '127.0.0.1', ok));
    target = `http://127.0.0.1:${targetServer.address().port}/landing`;
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.base });
    consoleErrors = watchConsole(context);
    page = await context.newPage();
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    targetServer?.close();
    if (process.exitCode && server) console.error(`--- server log (tail) ---\n${server.log().slice(-3000)}`);
    await server?.stop();
  });

  it('asks for the password, refuses a wrong one and redirects with the right one', async () => {
    await signUp(page, server.base, { name: 'Pat Password', email: `pw-${Date.now()}@example.com`, password: 'correct horse battery staple' });
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Short links' }).click();
    await page.getByRole('button', { name: 'Create your first link' }).click(wait);
    const dialog = page.getByRole('dialog', { name: 'New short link' });
    await dialog.getByLabel('Destination URL').fill(target);
    await dialog.getByLabel(/^Short link/).fill(slug);
    await dialog.getByRole('button', { name: /More options/ }).click();
    await dialog.getByLabel(/^Password/).fill('open sesame');
    await dialog.getByRole('button', { name: 'Create link' }).click();
    await dialog.waitFor({ state: 'detached', ...wait });

    const visitor = await browser.newContext({ viewport: { width: 800, height: 600 } });
    const blocked = [];
    visitor.on('console', (m) => {
      if (m.type() === 'error' && /Content Security Policy/i.test(m.text())) blocked.push(m.text());
    });
    const v = await visitor.newPage();
    await v.goto(`${server.base}/l/${slug}`);
    await v.getByRole('heading', { name: 'This link is protected' }).waitFor(wait);
    await v.getByLabel('Enter the password to continue').fill('guess');
    await v.getByRole('button', { name: 'Continue' }).click();
    await v.getByRole('alert').filter({ hasText: 'Wrong password' }).waitFor(wait);

    await v.getByLabel('Enter the password to continue').fill('open sesame');
    await v.getByRole('button', { name: 'Continue' }).click();
    await v.waitForURL(target, wait);
    await v.getByRole('heading', { name: 'You made it' }).waitFor(wait);
    // Back from the target returns to the password page, not to "Confirm Form Resubmission":
    // the wrong password was answered by a redirect to the page (post/redirect/get).
    await v.goBack(wait);
    await v.getByRole('heading', { name: 'This link is protected' }).waitFor(wait);
    assert.equal(v.url(), `${server.base}/l/${slug}`);
    assert.deepEqual(blocked, []);
    await visitor.close();
    assert.deepEqual(consoleErrors, []);
  });
});

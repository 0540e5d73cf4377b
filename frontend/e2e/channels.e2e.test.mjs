// End-to-end: a WhatsApp Cloud instance created in the console against the real binary. The
// form offers the channel's fields (secrets as write-only password inputs) and checks the
// required ones; the card shows the callback URL under the server's base URL and the secrets
// as ********; Rotate URL gives a new URL and the old one stops answering; editing a setting
// keeps the secrets; connecting fails (the Graph API is pointed at a closed port) and the
// card says why.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, screenshot, seriousViolations, settled, signUp, startServer, watchConsole } from './harness.mjs';

const viewport = { width: 1280, height: 800 };
const wait = { timeout: 20_000 };
const name = 'Meta line';
let server;
let browser;
let context;
let page;
let consoleErrors = [];

/** The card (list item) of an instance on the instances page. */
const card = (p, n) => p.getByRole('listitem').filter({ has: p.getByRole('heading', { name: new RegExp(`^${n}\\b`) }) });

describe('channels end to end', { timeout: 300_000 }, () => {
  before(async () => {
    // The harness starts the binary with this process's environment: WhatsApp's Graph API is
    // a closed port, so connecting fails without reaching Meta.
    process.env.SWITCHBOARD_WHATSAPP_GRAPH_URL = 'http://127.0.0.1:9';
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport, baseURL: server.base });
    consoleErrors = watchConsole(context);
    page = await context.newPage();
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    if (process.exitCode && server) console.error(`--- server log (tail) ---\n${server.log().slice(-3000)}`);
    await server?.stop();
  });

  it('creates a WhatsApp Cloud instance by filling its fields', async () => {
    await signUp(page, server.base, { name: 'Wanda Webhook', email: `chan-${Date.now()}@example.com`, password: 'correct horse battery staple' });
    await page.getByRole('link', { name: 'Instances' }).click();
    await page.getByRole('heading', { name: 'Instances', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No instances yet' }).waitFor(wait);

    await page.getByRole('button', { name: 'Create your first instance' }).click();
    const dialog = page.getByRole('dialog', { name: 'New instance' });
    const picker = dialog.getByRole('group', { name: 'Channel' });
    for (const channel of ['Sandbox', 'Telegram', 'WhatsApp Cloud']) await picker.getByRole('radio', { name: channel }).waitFor(wait);
    assert.equal(await picker.getByRole('radio', { name: 'Sandbox' }).isChecked(), true);
    await picker.getByRole('radio', { name: 'WhatsApp Cloud' }).check();

    const phone = dialog.getByLabel(/^Phone number ID/);
    assert.equal(await phone.getAttribute('type'), 'text');
    for (const label of [/^Access token/, /^App secret/, /^Verify token/]) {
      assert.equal(await dialog.getByLabel(label).getAttribute('type'), 'password', `${label} is a password input`);
      assert.equal(await dialog.getByLabel(label).getAttribute('autocomplete'), 'off');
    }
    await dialog.getByText('Meta App Dashboard → WhatsApp → API Setup', { exact: false }).waitFor();

    // Required fields are checked before anything is sent.
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByRole('button', { name: 'Create instance' }).click();
    await dialog.getByText('Enter the phone number ID.').waitFor(wait);
    await dialog.getByText('Enter the verify token.').waitFor(wait);

    await phone.fill('106540352242922');
    await dialog.getByLabel(/^Access token/).fill('EAAG-e2e-access-token');
    await dialog.getByLabel(/^App secret/).fill('e2e-app-secret');
    await dialog.getByLabel(/^Verify token/).fill('e2e-verify-token');
    await dialog.getByLabel('Connect now').uncheck();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'channels-01-create-whatsapp');
    await dialog.getByRole('button', { name: 'Create instance' }).click();
    await page.getByRole('status').filter({ hasText: `Instance ${name} created` }).waitFor(wait);
    await card(page, name).getByText('Disconnected', { exact: true }).waitFor(wait);
  });

  let firstUrl = '';

  it('shows the callback URL under the base URL with guidance, and the secrets as ********', async () => {
    const c = card(page, name);
    const url = c.getByLabel('Callback URL');
    await url.waitFor(wait);
    firstUrl = await url.inputValue();
    assert.ok(firstUrl.startsWith(`${server.base}/channels/whatsapp_cloud/`), `callback URL ${firstUrl}`);
    assert.ok(firstUrl.length > `${server.base}/channels/whatsapp_cloud/`.length + 16, `a token in ${firstUrl}`);
    assert.equal(await url.getAttribute('readonly'), '');
    await c.getByRole('button', { name: 'Copy' }).waitFor();
    await c.getByText('subscribe to the messages field', { exact: false }).waitFor();

    await c.getByText('Settings', { exact: true }).click();
    const settings = c.getByLabel(`Settings of ${name}`);
    await settings.waitFor(wait);
    assert.equal(await settings.getByText('********', { exact: true }).count(), 3);
    await settings.getByText('106540352242922', { exact: true }).waitFor();
    const text = (await c.textContent()) ?? '';
    for (const secret of ['EAAG-e2e-access-token', 'e2e-app-secret', 'e2e-verify-token']) assert.ok(!text.includes(secret), `${secret} is shown`);

    // The URL answers: Meta's verification handshake with the verify token echoes the challenge.
    const hs = await fetch(`${firstUrl}?hub.mode=subscribe&hub.verify_token=e2e-verify-token&hub.challenge=4242`);
    assert.equal(hs.status, 200);
    assert.equal(await hs.text(), '4242');
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'channels-02-callback-url');
  });

  it('rotates the callback URL after a confirm; the old one stops answering', async () => {
    const c = card(page, name);
    await c.getByRole('button', { name: 'Rotate URL' }).click();
    const confirm = page.getByRole('alertdialog', { name: `Rotate the callback URL of ${name}?` });
    await confirm.getByText('stops working at once', { exact: false }).waitFor(wait);
    await confirm.getByRole('button', { name: 'Rotate URL' }).click();
    await confirm.waitFor({ state: 'detached', ...wait });
    const url = c.getByLabel('Callback URL');
    await page.waitForFunction(
      ([el, old]) => el instanceof HTMLInputElement && el.value !== old,
      [await url.elementHandle(), firstUrl],
      wait,
    );
    const secondUrl = await url.inputValue();
    assert.notEqual(secondUrl, firstUrl);
    assert.ok(secondUrl.startsWith(`${server.base}/channels/whatsapp_cloud/`), `callback URL ${secondUrl}`);
    const query = '?hub.mode=subscribe&hub.verify_token=e2e-verify-token&hub.challenge=4242';
    assert.equal((await fetch(`${firstUrl}${query}`)).status, 404);
    assert.equal((await fetch(`${secondUrl}${query}`)).status, 200);
  });

  it('edits a setting and keeps the secrets left as ********', async () => {
    await page.getByRole('button', { name: `Edit ${name}` }).click();
    const dialog = page.getByRole('dialog', { name: `Edit ${name}` });
    assert.equal(await dialog.getByLabel(/^Access token/).inputValue(), '********');
    await dialog.getByLabel(/^Phone number ID/).fill('106540352242923');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    await page.getByRole('status').filter({ hasText: `${name} saved` }).waitFor(wait);
    const settings = card(page, name).getByLabel(`Settings of ${name}`);
    await settings.getByText('106540352242923', { exact: true }).waitFor(wait);
    assert.equal(await settings.getByText('********', { exact: true }).count(), 3);
    assert.equal(await settings.getByText('not set', { exact: true }).count(), 0);

    // The verify token still works: the secret was kept, not replaced by the asterisks.
    const url = await card(page, name).getByLabel('Callback URL').inputValue();
    const hs = await fetch(`${url}?hub.mode=subscribe&hub.verify_token=e2e-verify-token&hub.challenge=77`);
    assert.equal(await hs.text(), '77');
  });

  it('connects, fails (the Graph API is unreachable) and shows the reason', async () => {
    const c = card(page, name);
    await c.getByRole('button', { name: `Connect ${name}` }).click();
    await c.getByText('Failed', { exact: true }).waitFor({ timeout: 90_000 });
    const alert = c.getByRole('alert').filter({ hasText: 'Connection failed:' });
    await alert.waitFor(wait);
    const reason = ((await alert.textContent()) ?? '').replace(/^.*Connection failed:\s*/, '');
    assert.ok(reason.length > 'no reason given'.length && !reason.startsWith('no reason given'), `reason: ${reason}`);
    await c.getByRole('button', { name: `Connect ${name}` }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'channels-03-failed');
  });

  it('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});

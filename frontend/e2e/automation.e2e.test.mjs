// End-to-end: the automation pages in headless Chromium against the real binary. An inbound
// endpoint with a create_link action is created in the console (its template previewed
// against a sample payload), its URL copied; a tool (a fetch from Node) POSTs JSON to that URL
// and gets 202 with an event id; the call and its succeeded run show up in the open detail
// page, and the link the run made is in the Short links page. Then verification, rotation
// and deletion, each confirmed. Last, the subscriptions list (REST hooks): a loopback target
// refused under its field, a subscription to automation.published made (its secret shown
// once), listed, and deleted after confirming.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, screenshot, seriousViolations, settled, signUp, startServer, watchConsole } from './harness.mjs';

const viewport = { width: 1280, height: 800 };
const wait = { timeout: 20_000 };
const name = 'E2E orders';
const target = 'https://example.com/x';
let server;
let browser;
let context;
let page;
let consoleErrors = [];
let hookURL;
let callID;

/** A tool's call: JSON POSTed to the endpoint's URL, no API key. */
async function publish(url, body, headers = {}) {
  const res = await fetch(url, { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { status: res.status, body: await res.json().catch(() => null) };
}

describe('automation endpoints end to end', { timeout: 300_000 }, () => {
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport, baseURL: server.base });
    await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: server.base });
    consoleErrors = watchConsole(context);
    page = await context.newPage();
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    if (process.exitCode && server) console.error(`--- server log (tail) ---\n${server.log().slice(-3000)}`);
    await server?.stop();
  });

  it('creates an endpoint with a create_link action, previewing its template, and copies its URL', async () => {
    await signUp(page, server.base, { name: 'Otto Mation', email: `auto-${Date.now()}@example.com`, password: 'correct horse battery staple' });
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Automation' }).click();
    await page.getByRole('heading', { name: 'Automation', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No endpoints yet' }).waitFor(wait);
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);

    // Opened from the keyboard.
    await page.getByRole('button', { name: 'Create your first endpoint' }).focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'New inbound endpoint' });
    await dialog.getByLabel('Name').fill(name);
    await dialog.getByLabel('What to do with each call').selectOption('CREATE_LINK');
    await dialog.getByLabel('Destination URL').fill('{{payload.url}}');

    // The preview renders the template against the sample payload; a missing field is an error.
    const preview = dialog.getByTestId('template-preview');
    const sample = dialog.getByLabel('Sample payload');
    await sample.fill('{"order_id": "A-1"}');
    await preview.getByText('{{payload.url}}: the payload has no payload.url').waitFor();
    await sample.fill(JSON.stringify({ url: target }));
    await preview.getByText(target, { exact: true }).waitFor();
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'automation-01-create');

    await dialog.getByRole('button', { name: 'Create endpoint' }).click();
    await page.getByRole('status').filter({ hasText: `Endpoint ${name} created` }).waitFor(wait);
    await dialog.waitFor({ state: 'detached' });

    const row = page.getByRole('table', { name: 'Inbound endpoints' }).getByRole('row').filter({ has: page.getByRole('link', { name }) });
    await row.waitFor(wait);
    await row.getByRole('button', { name: `Copy URL of ${name}` }).click();
    await row.getByRole('button', { name: `Copied URL of ${name}` }).waitFor();
    hookURL = await page.evaluate(() => navigator.clipboard.readText());
    assert.match(hookURL, new RegExp(`^${server.base.replace(/[.]/g, '\\.')}/hooks/[A-Za-z0-9_-]{20,}$`));
    assert.match((await row.textContent()) ?? '', /Create a short link/);
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'automation-02-list');
  });

  it('a tool POSTs to the URL: 202 with an event id; the call and its succeeded run show in the detail page', async () => {
    await page.getByRole('link', { name }).click();
    await page.waitForURL(/\/user\/api\/automation\/pub_/);
    await page.getByRole('heading', { name, level: 1 }).waitFor();
    assert.equal(await page.getByTestId('endpoint-url').textContent(), hookURL);
    await page.getByRole('heading', { name: 'No calls yet' }).waitFor(wait);

    const res = await publish(hookURL, { url: target });
    assert.equal(res.status, 202);
    assert.match(res.body?.id ?? '', /^evt_[0-9a-z]+$/);
    callID = res.body.id;

    // The open page learns of the call and of the run's end (events, and polling while queued).
    const calls = page.getByRole('table', { name: 'Recent calls' });
    await calls.getByRole('cell', { name: callID, exact: true }).waitFor(wait);
    assert.match((await calls.textContent()) ?? '', /"url":"https:\/\/example\.com\/x"/);
    const runs = page.getByRole('table', { name: 'Runs' });
    const run = runs.getByRole('row').filter({ hasText: callID });
    await run.getByText('succeeded').waitFor(wait);
    // The run's output (folded to one line) names the link it made.
    const linkID = ((await run.textContent()) ?? '').match(/lnk_[0-9a-z]+/)?.[0];
    assert.ok(linkID, `no link id in the run: ${await run.textContent()}`);
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await runs.scrollIntoViewIfNeeded();
    await screenshot(page, 'automation-03-detail');

    // And the link exists in the Short links page.
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Short links' }).click();
    const links = page.getByRole('table', { name: 'Short links' });
    await links.getByText('example.com/x', { exact: true }).waitFor(wait);
    await page.goBack();
    await page.getByRole('heading', { name, level: 1 }).waitFor(wait);
  });

  it('a test payload from the console runs too; header-token verification shows its secret once', async () => {
    const card = page.getByRole('region', { name: 'Send test payload' });
    await card.getByLabel('Payload (JSON)').fill(JSON.stringify({ url: 'https://example.com/from-console' }));
    await card.getByRole('button', { name: 'Send test payload' }).click();
    const accepted = card.getByRole('status').filter({ hasText: /Test payload accepted as evt_/ });
    await accepted.waitFor(wait);
    const testID = ((await accepted.textContent()) ?? '').match(/evt_[0-9a-z]+/)?.[0];
    await page.getByRole('table', { name: 'Runs' }).getByRole('row').filter({ hasText: testID }).getByText('succeeded').waitFor(wait);

    await page.getByRole('button', { name: 'Edit' }).click();
    const dialog = page.getByRole('dialog', { name: `Edit ${name}` });
    await dialog.getByLabel('Verification').selectOption('HEADER_TOKEN');
    await dialog.getByRole('button', { name: 'Save changes' }).click();
    const secretDialog = page.getByRole('dialog', { name: 'Save your endpoint secret' });
    await secretDialog.waitFor(wait);
    const secret = ((await secretDialog.getByTestId('secret-value').textContent()) ?? '').trim();
    assert.match(secret, /^sbt_/);
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'automation-04-secret');
    await secretDialog.getByRole('button', { name: 'Done' }).click();
    await secretDialog.waitFor({ state: 'detached' });

    assert.equal((await publish(hookURL, { url: target })).status, 401);
    assert.equal((await publish(hookURL, { url: target }, { 'X-Switchboard-Token': secret })).status, 202);
  });

  it('rotates the URL after confirming: the old one answers 404', async () => {
    await page.getByRole('button', { name: 'Rotate URL' }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Rotate the URL?' });
    await confirm.getByRole('button', { name: 'Rotate URL' }).click();
    await confirm.waitFor({ state: 'detached' });
    const urlText = page.getByTestId('endpoint-url');
    await page.waitForFunction((old) => document.querySelector('[data-testid="endpoint-url"]')?.textContent !== old, hookURL, wait);
    const newURL = (await urlText.textContent()) ?? '';
    assert.notEqual(newURL, hookURL);
    assert.equal((await publish(hookURL, { url: target })).status, 404);
    hookURL = newURL;
  });

  it('deletes the endpoint after confirming; its URL stops working', async () => {
    await page.getByRole('button', { name: 'Delete endpoint' }).click();
    const confirm = page.getByRole('alertdialog', { name: `Delete ${name}?` });
    await confirm.getByRole('button', { name: 'Delete endpoint' }).click();
    await page.waitForURL(/\/user\/api\/automation$/);
    await page.getByRole('status').filter({ hasText: `Endpoint ${name} deleted` }).waitFor(wait);
    await page.getByRole('heading', { name: 'No endpoints yet' }).waitFor(wait);
    assert.equal((await publish(hookURL, { url: target })).status, 404);
  });

  it('subscribes a URL to automation.published (loopback refused under the field), lists it, deletes it after confirming', async () => {
    const section = page.getByRole('region', { name: 'Subscriptions (REST hooks)' });
    await section.getByRole('heading', { name: 'No subscriptions yet' }).waitFor(wait);
    await section.getByRole('button', { name: 'Subscribe a URL' }).click();
    const dialog = page.getByRole('dialog', { name: 'Subscribe a URL to events' });
    const targetField = dialog.getByLabel('Target URL');
    await dialog.getByRole('radio', { name: 'Selected events' }).check();
    await dialog.getByRole('checkbox', { name: /^automation\.published / }).check();

    // The harness starts the server without SWITCHBOARD_WEBHOOK_ALLOWLIST (unless the caller's
    // environment sets it), so the SSRF policy refuses a loopback target, and says so under it.
    const allowList = (process.env.SWITCHBOARD_WEBHOOK_ALLOWLIST ?? '').split(',').map((h) => h.trim());
    if (!allowList.includes('127.0.0.1')) {
      await targetField.fill('http://127.0.0.1:9/hook');
      await dialog.getByRole('button', { name: 'Subscribe' }).click();
      await dialog.getByText(/non-public address/).waitFor(wait);
      const description = await targetField.evaluate((el) =>
        (el.getAttribute('aria-describedby') ?? '').split(' ').map((id) => document.getElementById(id)?.textContent ?? '').join(' '),
      );
      assert.match(description, /target_url targets a non-public address/);
      assert.equal(await targetField.getAttribute('aria-invalid'), 'true');
      await settled(page);
      assert.deepEqual(await seriousViolations(page), []);
      await screenshot(page, 'automation-05-subscribe-refused');
    }

    // A public host is accepted (it is not resolved until something is delivered, and nothing is
    // published after this).
    const subTarget = 'https://example.com/hook';
    await targetField.fill(subTarget);
    await dialog.getByRole('textbox', { name: /^Description/ }).fill('E2E zap');
    await dialog.getByRole('button', { name: 'Subscribe' }).click();
    const secretDialog = page.getByRole('dialog', { name: 'Save your subscription secret' });
    await secretDialog.waitFor(wait);
    assert.match(((await secretDialog.getByTestId('secret-value').textContent()) ?? '').trim(), /^whsec_/);
    await secretDialog.getByText('This is the only time the secret is shown.').waitFor();
    await secretDialog.getByText(/Zapier ignores it/).waitFor();
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'automation-06-subscription-secret');
    await secretDialog.getByRole('button', { name: 'Done' }).click();
    await secretDialog.waitFor({ state: 'detached' });

    const row = section.getByRole('table', { name: 'Subscriptions' }).getByRole('row').filter({ hasText: subTarget });
    await row.waitFor(wait);
    const text = (await row.textContent()) ?? '';
    assert.match(text, /automation\.published/);
    assert.match(text, /E2E zap/);
    assert.match(text, /Enabled/);
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'automation-07-subscriptions');

    // Deleted only after confirming (from the keyboard), and still gone after a reload.
    await row.getByRole('button', { name: `Delete subscription to ${subTarget}` }).click();
    const confirm = page.getByRole('alertdialog', { name: 'Delete this subscription?' });
    await confirm.getByRole('button', { name: 'Delete subscription' }).focus();
    await page.keyboard.press('Enter');
    await confirm.waitFor({ state: 'detached' });
    await page.getByRole('status').filter({ hasText: `Subscription to ${subTarget} deleted` }).waitFor(wait);
    await section.getByRole('heading', { name: 'No subscriptions yet' }).waitFor(wait);
    await page.reload();
    await section.getByRole('heading', { name: 'No subscriptions yet' }).waitFor(wait);
  });

  it('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});

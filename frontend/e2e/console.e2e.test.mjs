// End-to-end: the console in headless Chromium against the real binary on a temp SQLite DB.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { createKey, launchBrowser, screenshot, seriousViolations, settled, startServer, watchConsole } from './harness.mjs';

const email = `e2e-${Date.now()}@example.com`;
const password = 'correct horse battery staple';
let server;
let browser;
let context;
let page;
let consoleErrors = [];
let secret = '';
let webhookId = '';

const viewport = { width: 1280, height: 800 };

async function goto(path) {
  await page.goto(`${server.base}${path}`);
  await page.locator('h1').first().waitFor({ timeout: 15_000 });
  await settled(page);
}

async function callModels(key) {
  const res = await fetch(`${server.base}/api/v1/models`, { headers: { Authorization: `Bearer ${key}` } });
  return { status: res.status, body: await res.json().catch(() => null) };
}

async function graphql(p, query) {
  return p.evaluate(async (q) => {
    const res = await fetch('/graphql', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      credentials: 'same-origin',
      body: JSON.stringify({ query: q }),
    });
    return res.text();
  }, query);
}

describe('console end to end', { timeout: 300_000 }, () => {
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

  it('signed-out visitors are sent to sign in; sign-up lands on /user/api with a workspace', async () => {
    await page.goto(`${server.base}/user/api`);
    await page.waitForURL(/\/user\/sign-in\?next=/);
    await page.getByRole('heading', { name: 'Sign in to Switchboard' }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '01-sign-in');

    // Inline error for a wrong password, no redirect.
    await page.getByLabel('Email').fill('nobody@example.com');
    await page.getByLabel('Password').fill('wrong password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').filter({ hasText: 'do not match' }).waitFor();

    await page.getByRole('link', { name: 'Create an account' }).click();
    await page.getByRole('heading', { name: 'Create your account' }).waitFor();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '02-sign-up');
    await page.getByLabel('Name').fill('Erin Example');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Create account' }).click();
    await page.waitForURL(`${server.base}/user/api`);
    await page.getByRole('heading', { name: 'Welcome, Erin' }).waitFor();
    await settled(page);
    assert.match(await page.locator('main').textContent(), /ws_/);
    assert.match(await page.locator('main').textContent(), new RegExp(`curl ${server.base}/api/v1/models`));
  });

  it('creates a key whose secret is shown once, copies it, and never shows it again', async () => {
    await goto('/user/api/keys');
    const { secretDialog, value } = await createKey(page, 'e2e key');
    secret = value;
    assert.match(secret, /^sb_[a-z]+_[0-9A-Za-z]{30,}$/);
    assert.match(await secretDialog.textContent(), /will not be shown again/);
    await secretDialog.getByRole('button', { name: 'Copy' }).click();
    await secretDialog.getByRole('button', { name: 'Copied' }).waitFor();
    assert.equal(await page.evaluate(() => navigator.clipboard.readText()), secret);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '04-key-secret-once');
    await secretDialog.getByRole('button', { name: 'Done' }).click();
    await secretDialog.waitFor({ state: 'detached' });
    assert.ok(!(await page.content()).includes(secret), 'secret still on the page after closing the dialog');

    // After a reload the secret is nowhere: not in the page, not in any GraphQL response.
    const bodies = [];
    const onResponse = async (res) => {
      if (res.url().endsWith('/graphql')) bodies.push(await res.text().catch(() => ''));
    };
    page.on('response', onResponse);
    await page.reload();
    await page.getByRole('table', { name: 'API keys' }).waitFor();
    await settled(page);
    page.off('response', onResponse);
    assert.ok(bodies.length > 0, 'no GraphQL responses seen');
    assert.ok(!(await page.content()).includes(secret), 'secret on the page after reload');
    for (const b of bodies) assert.ok(!b.includes(secret), 'secret in a GraphQL response');
    const listed = await graphql(page, '{ apiKeys { id name prefix lastFour scopes status createdAt lastUsedAt expiresAt } }');
    assert.match(listed, /e2e key/);
    assert.ok(!listed.includes(secret), 'secret in the apiKeys response');
    const row = page.getByRole('row').filter({ hasText: 'e2e key' });
    assert.match(await row.textContent(), /Active/);
    assert.match(await row.textContent(), new RegExp(`${secret.slice(-4)}`));
  });

  it('the key calls /api/v1/models and gets 200', async () => {
    const { status, body } = await callModels(secret);
    assert.equal(status, 200);
    assert.equal(body.object, 'list');
    assert.ok(Array.isArray(body.data));
  });

  it('keyboard: the create dialog traps focus, Escape closes it and focus returns', async () => {
    await goto('/user/api/keys');
    const trigger = page.getByRole('button', { name: 'Create API key' }).first();
    await trigger.focus();
    await page.keyboard.press('Enter');
    const dialog = page.getByRole('dialog', { name: 'Create API key' });
    await dialog.getByLabel('Name').waitFor();
    // Focus starts in the first field.
    assert.ok(await dialog.getByLabel('Name').evaluate((el) => el === document.activeElement), 'name field not focused');
    for (let i = 0; i < 25; i++) {
      await page.keyboard.press('Tab');
      assert.ok(await dialog.evaluate((d) => d.contains(document.activeElement)), 'focus left the dialog');
    }
    await page.keyboard.press('Escape');
    await dialog.waitFor({ state: 'detached' });
    // The button that opened it, not <body> (whose text also includes the button's).
    await page.waitForFunction(
      () => document.activeElement?.tagName === 'BUTTON' && document.activeElement.textContent?.includes('Create API key'),
      null,
      { timeout: 2_000 },
    );
  });

  it('API reference shows GET /api/v1/models with Parameters, Request body, cURL, Responses; Try it returns 200', async () => {
    // The reference shows one group at a time: the fragment selects the one with GET /api/v1/models.
    await goto('/user/api/reference#listModels');
    const op = page.locator('[data-operation="GET /api/v1/models"]');
    await op.waitFor();
    for (const heading of ['Parameters', 'Request body', 'cURL', 'Responses']) {
      await op.getByRole('heading', { name: heading, exact: true }).waitFor();
    }
    const curl = op.getByLabel('cURL example for GET /api/v1/models');
    assert.match(await curl.textContent(), new RegExp(`curl ${server.base}/api/v1/models`));
    assert.match(await op.textContent(), /200/);
    await page.getByLabel('API key for cURL and Try it').fill(secret);
    assert.match(await curl.textContent(), new RegExp(`Bearer ${secret}`));
    await op.getByRole('button', { name: 'Try it' }).click();
    await op.getByRole('button', { name: 'Send request' }).click();
    await op.getByTestId('tryit-status').filter({ hasText: '200' }).waitFor();
    assert.match(await op.getByLabel('Response body').textContent(), /"object": "list"/);
    assert.match(await op.getByRole('region', { name: 'Response headers' }).textContent(), /x-request-id/i);
    // The pasted key stays in this tab's session storage.
    assert.equal(await page.evaluate(() => sessionStorage.getItem('switchboard.reference.apiKey')), secret);
    await op.scrollIntoViewIfNeeded();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '07-reference-try-it');
  });

  it('live events page shows an event caused in another page', async () => {
    await goto('/user/api/events');
    await page.getByText('Live', { exact: true }).waitFor({ timeout: 10_000 });
    const selector = '[data-event-type="api_key.created"]';
    const before = await page.locator(selector).count();
    const other = await context.newPage();
    await other.goto(`${server.base}/user/api/keys`);
    await other.getByRole('heading', { name: 'API keys' }).waitFor();
    const { secretDialog } = await createKey(other, 'live event key');
    await secretDialog.getByRole('button', { name: 'Done' }).click();
    await page.waitForFunction(({ s, n }) => document.querySelectorAll(s).length > n, { s: selector, n: before }, { timeout: 5_000 });
    await other.close();
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '08-events');
  });

  it('revoking in the UI confirms it in a status message, and the same key gets 401 at once', async () => {
    await goto('/user/api/keys');
    // A second key with the same name: each Revoke button says which key it revokes.
    const { secretDialog } = await createKey(page, 'e2e key');
    await secretDialog.getByRole('button', { name: 'Done' }).click();
    await page.getByRole('row').filter({ hasText: 'e2e key' }).nth(1).waitFor();
    const labels = await page.getByRole('button', { name: /^Revoke key e2e key \(/ }).evaluateAll((bs) => bs.map((b) => b.getAttribute('aria-label')));
    assert.equal(labels.length, 2, `Revoke buttons: ${labels.join(', ')}`);
    assert.notEqual(labels[0], labels[1], 'two keys named alike have Revoke buttons named alike');

    const mine = page.getByRole('button', { name: new RegExp(`^Revoke key e2e key \\(sb_[a-z]+_\\w+…${secret.slice(-4)}\\)$`) });
    await mine.click();
    const confirm = page.getByRole('alertdialog');
    assert.match(await confirm.textContent(), /cannot be undone/);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '05-key-revoke-confirm');
    await confirm.getByRole('button', { name: 'Revoke key' }).click();
    await confirm.waitFor({ state: 'detached' });
    const toast = page.getByRole('status').filter({ hasText: /^Key e2e key \(.+\) revoked/ });
    await toast.waitFor({ state: 'visible' });
    assert.match(await toast.textContent(), new RegExp(`…${secret.slice(-4)}\\) revoked`));
    await page.getByRole('row').filter({ hasText: secret.slice(-4) }).filter({ hasText: 'Revoked' }).waitFor();
    // The Revoke button that opened the confirmation is gone: focus is on the page's heading, not <body>.
    await page.waitForFunction(() => document.activeElement?.matches('main h1') && document.activeElement.textContent === 'API keys', null, {
      timeout: 2_000,
    });
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '05-key-revoked');
    const { status, body } = await callModels(secret);
    assert.equal(status, 401);
    assert.equal(body.error.type, 'authentication_error');
  });

  it('webhooks: create shows the secret once, detail page sends a test event', async () => {
    await goto('/user/api/webhooks');
    await page.getByRole('button', { name: 'Add endpoint' }).first().click();
    const dialog = page.getByRole('dialog', { name: 'Add webhook endpoint' });
    await dialog.getByLabel('Endpoint URL').fill('https://hooks.example.com/switchboard');
    await dialog.getByLabel('Description').fill('Order system');
    await dialog.getByRole('button', { name: 'Add endpoint' }).click();
    const secretDialog = page.getByRole('dialog', { name: 'Save your signing secret' });
    await secretDialog.waitFor();
    const whsec = (await secretDialog.getByTestId('secret-value').textContent())?.trim() ?? '';
    assert.match(whsec, /^whsec_/);
    await screenshot(page, '10-webhook-secret-once');
    await secretDialog.getByRole('button', { name: 'Done' }).click();
    await page.waitForURL(/\/user\/api\/webhooks\/wh_/);
    webhookId = page.url().split('/').pop();
    await page.getByRole('heading', { name: 'Webhook endpoint' }).waitFor();
    await settled(page);
    assert.ok(!(await page.content()).includes(whsec), 'webhook secret still on the page');
    await page.getByRole('button', { name: 'Send test event' }).click();
    // The result follows the delivery (no stale "pending"): once the first attempt is made it
    // says what became of it, as the deliveries table does, without Refresh being pressed.
    const result = page.getByRole('status').filter({ hasText: /^Test event webhook\.test \(\w+\)/ });
    await result.waitFor();
    await result.filter({ hasNotText: 'waiting for the endpoint' }).waitFor({ timeout: 30_000 });
    const text = (await result.textContent()) ?? '';
    const deliveryId = text.match(/\((\w+)\)/)?.[1];
    const row = page.getByRole('table', { name: 'Deliveries' }).getByRole('row').filter({ has: page.getByRole('button', { name: `Show attempts of ${deliveryId}` }) });
    const expected = text.includes(' delivered: ') ? 'succeeded' : text.includes(' failed: ') ? 'failed' : 'pending';
    await row.getByText(expected, { exact: true }).waitFor();
  });

  it('every page has no serious accessibility violations; screenshots saved', async () => {
    const pages = [
      ['03-overview', '/user/api'],
      ['04-keys', '/user/api/keys'],
      ['06-models', '/user/api/models'],
      ['07-reference', '/user/api/reference'],
      ['08-events-page', '/user/api/events'],
      ['09-webhooks', '/user/api/webhooks'],
      ['10-webhook-detail', `/user/api/webhooks/${webhookId}`],
      ['11-instances', '/user/api/instances'],
      ['12-messages', '/user/api/messages'],
      ['13-groups', '/user/api/groups'],
      ['14-contacts', '/user/api/contacts'],
      ['15-links', '/user/api/links'],
      ['16-automation', '/user/api/automation'],
      ['17-not-found', '/user/api/nowhere'],
    ];
    const failures = [];
    for (const [name, path] of pages) {
      await goto(path);
      const v = await seriousViolations(page);
      if (v.length) failures.push(`${path}:\n  ${v.join('\n  ')}`);
      await screenshot(page, name);
    }
    assert.deepEqual(failures, []);
  });

  it('sign-out returns to sign-in and protects the console again', async () => {
    await goto('/user/api');
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.waitForURL(/\/user\/sign-in/);
    await page.getByRole('status').filter({ hasText: 'You are signed out.' }).waitFor({ state: 'visible' });
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, '18-signed-out');
    await page.goto(`${server.base}/user/api/keys`);
    await page.waitForURL(/\/user\/sign-in\?next=%2Fuser%2Fapi%2Fkeys/);
    // Signing in returns to the page asked for.
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.base}/user/api/keys`);
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
  });

  it('an expired session sends the user to sign in and back to where they were', async () => {
    await context.clearCookies();
    await page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name: 'Models' }).click();
    await page.waitForURL(/\/user\/sign-in\?next=%2Fuser%2Fapi%2Fmodels&reason=expired/);
    await page.getByText('Your session has ended').waitFor();
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Password').fill(password);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.waitForURL(`${server.base}/user/api/models`);
    await page.getByRole('heading', { level: 1, name: 'Models' }).waitFor();
  });

  it('the browser console stayed free of errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});

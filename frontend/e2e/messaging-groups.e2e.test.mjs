// End-to-end: groups and contacts in headless Chromium against the real binary. Two sandbox
// instances are created and paired; A creates a group with B's number on the Groups page and
// B's Groups page (open in a second tab) shows it; A writes to the group from the conversation
// view and B's conversation shows it; B's contacts list A's number (created from the inbound
// message) and B renames it.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, screenshot, seriousViolations, settled, signUp, startServer, watchConsole } from './harness.mjs';

const viewport = { width: 1280, height: 800 };
const wait = { timeout: 20_000 };
const subject = 'Launch crew';
let server;
let browser;
let context;
let page;
let pageB;
let consoleErrors = [];
const instances = {}; // name → { id, address }

/** The card (list item) of an instance on the instances page. */
const card = (p, name) => p.getByRole('listitem').filter({ has: p.getByRole('heading', { name: new RegExp(`^${name}\\b`) }) });
const escape = (s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Resolves once page p has sent the MessagingEvents subscription of instance id. */
function subscribedTo(p, id) {
  const frames = [];
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no subscription sent; frames: ${frames.join(' | ')}`)), 20_000);
    p.on('websocket', (ws) =>
      ws.on('framesent', (f) => {
        const data = typeof f.payload === 'string' ? f.payload : String(f.payload);
        frames.push(data.slice(0, 200));
        if (data.includes('MessagingEvents') && data.includes(id)) {
          clearTimeout(timer);
          resolve();
        }
      }),
    );
  });
}

describe('messaging groups and contacts end to end', { timeout: 300_000 }, () => {
  before(async () => {
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

  it('creates two sandbox instances and pairs them with Pair now', async () => {
    await signUp(page, server.base, { name: 'Gus Groups', email: `groups-${Date.now()}@example.com`, password: 'correct horse battery staple' });
    await page.getByRole('link', { name: 'Instances' }).click();
    await page.getByRole('heading', { name: 'No instances yet' }).waitFor(wait);
    for (const [i, name] of ['Alpha', 'Bravo'].entries()) {
      await page.getByRole('button', { name: i === 0 ? 'Create your first instance' : 'New instance' }).click();
      const dialog = page.getByRole('dialog', { name: 'New instance' });
      await dialog.getByLabel('Name').fill(name);
      await dialog.getByRole('button', { name: 'Create instance' }).click();
      await page.getByRole('status').filter({ hasText: `Instance ${name} created` }).waitFor(wait);
      const c = card(page, name);
      await c.getByRole('button', { name: `Pair ${name} now` }).click(wait);
      await c.getByText('Connected', { exact: true }).waitFor(wait);
      const text = (await c.textContent()) ?? '';
      const address = text.match(/\+1555\d{7}/)?.[0];
      const id = text.match(/inst_[0-9a-z]+/)?.[0];
      assert.ok(address && id, `no number or id in ${text}`);
      instances[name] = { id, address };
    }
  });

  it('A creates a group with B’s number; B’s Groups page shows it live', async () => {
    const { Alpha, Bravo } = instances;

    // B's groups in a second tab, subscribed before the group is created.
    pageB = await context.newPage();
    const subscribed = subscribedTo(pageB, Bravo.id);
    await pageB.goto(`${server.base}/user/api/groups?instance=${Bravo.id}`);
    await pageB.getByRole('heading', { name: 'No groups yet' }).waitFor(wait);
    await subscribed;

    // A: from the instance card to its Groups page.
    await card(page, 'Alpha').getByRole('link', { name: 'Groups' }).click();
    await page.getByRole('heading', { name: 'Groups', level: 1 }).waitFor();
    await page.getByRole('heading', { name: 'No groups yet' }).waitFor(wait);
    assert.match(page.url(), new RegExp(`instance=${Alpha.id}`));
    const form = page.getByRole('form', { name: 'Create a group' });

    // The server's check of a participant shows on the Participants field.
    await form.getByLabel('Subject').fill(subject);
    await form.getByLabel('Participants').fill('not-a-number');
    await form.getByRole('button', { name: 'Create group' }).click();
    await page.locator('[aria-invalid="true"]').waitFor(wait);
    assert.equal(await form.getByLabel('Participants').getAttribute('aria-invalid'), 'true');
    assert.equal(await form.getByLabel('Subject').getAttribute('aria-invalid'), null);

    await form.getByLabel('Participants').fill(Bravo.address);
    await form.getByRole('button', { name: 'Create group' }).click();
    await page.getByRole('status').filter({ hasText: `Group ${subject} created` }).waitFor(wait);
    const membersA = page.getByRole('list', { name: `Participants of ${subject}` });
    await membersA.getByText(Bravo.address).waitFor(wait);
    await membersA.getByText(Alpha.address).waitFor(wait);
    await settled(page);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'groups-01-created');

    // B: the group appears without a reload, with both numbers.
    const membersB = pageB.getByRole('list', { name: `Participants of ${subject}` });
    await membersB.waitFor(wait);
    await membersB.getByText(Alpha.address).waitFor(wait);
    await membersB.getByText(Bravo.address).waitFor(wait);
    await screenshot(pageB, 'groups-02-member');
  });

  it('A writes to the group from the conversation view; B’s conversation shows it', async () => {
    const { Alpha, Bravo } = instances;
    await page.goto(`${server.base}/user/api/messages?instance=${Alpha.id}`);
    await page.getByRole('heading', { name: 'Messages', level: 1 }).waitFor();
    const chatA = page.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: new RegExp(escape(subject)) });
    await chatA.click(wait);
    const conversationA = page.getByRole('region', { name: `Conversation with ${subject}` });
    await conversationA.getByText('Group', { exact: true }).waitFor(wait);
    await conversationA.getByLabel('Message', { exact: true }).fill('Hello crew, Alpha here');
    await conversationA.getByRole('button', { name: 'Send' }).click();
    await conversationA.getByText('Hello crew, Alpha here').waitFor(wait);
    await conversationA.getByRole('img', { name: /Delivered|Read/ }).waitFor(wait);

    // B: to the conversations of Bravo; the group chat carries the message.
    await pageB.goto(`${server.base}/user/api/messages?instance=${Bravo.id}`);
    const chatB = pageB.getByRole('navigation', { name: 'Chats' }).getByRole('button', { name: new RegExp(escape(subject)) });
    await chatB.getByText('Hello crew, Alpha here').waitFor(wait);
    await chatB.click();
    const conversationB = pageB.getByRole('region', { name: `Conversation with ${subject}` });
    await conversationB.getByText('Hello crew, Alpha here').waitFor(wait);
    assert.deepEqual(await seriousViolations(pageB), []);
    await screenshot(pageB, 'groups-03-group-message');
  });

  it('B’s contacts list A’s number, created from the inbound message, and B renames it', async () => {
    const { Alpha, Bravo } = instances;
    await pageB.goto(`${server.base}/user/api/contacts?instance=${Bravo.id}`);
    const table = pageB.getByRole('table', { name: 'Contacts' });
    const row = table.getByRole('row').filter({ hasText: Alpha.address });
    await row.waitFor(wait);
    await row.getByText('No name').waitFor();
    await settled(pageB);
    assert.deepEqual(await seriousViolations(pageB), []);

    await row.getByRole('button', { name: `Edit ${Alpha.address}` }).click();
    const dialog = pageB.getByRole('dialog', { name: `Edit ${Alpha.address}` });
    await dialog.getByLabel(/^Name/).fill('Alpha desk');
    await dialog.getByLabel(/^Labels/).fill('team, e2e');
    await dialog.getByRole('button', { name: 'Save contact' }).click();
    await dialog.waitFor({ state: 'detached', ...wait });
    await pageB.getByRole('status').filter({ hasText: 'Contact Alpha desk saved' }).waitFor(wait);
    await row.getByText('Alpha desk').waitFor(wait);
    await screenshot(pageB, 'groups-04-contact-renamed');

    // It is stored: a reload shows the new name and labels.
    await pageB.reload();
    const renamed = pageB.getByRole('table', { name: 'Contacts' }).getByRole('row').filter({ hasText: Alpha.address });
    await renamed.getByText('Alpha desk').waitFor(wait);
    await renamed.getByText('team', { exact: true }).waitFor(wait);
    await renamed.getByText('e2e', { exact: true }).waitFor(wait);
    await pageB.close();
  });

  it('no console errors', () => {
    assert.deepEqual(consoleErrors, []);
  });
});

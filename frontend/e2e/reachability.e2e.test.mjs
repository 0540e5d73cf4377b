// End-to-end: the console while Switchboard cannot be reached. GraphQL requests are refused in
// the browser (page.route), as when the server is down: a page visited before keeps its data
// and the layout says it cannot reach Switchboard and since when; a page never visited shows
// its error. Once requests get through again the notice goes and both pages are fetched again
// without the user doing anything. Then the server itself stops and starts again: a page with
// live updates says so the moment its websocket drops, and live updates resume soon after.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, screenshot, seriousViolations, settled, signUp, startServer, watchConsole } from './harness.mjs';

const wait = { timeout: 20_000 };
let server;
let browser;
let context;
let page;
let consoleErrors = [];
/** The live connection as the page sees it: connection_ack frames received, subscribe frames sent. */
const live = { acks: 0, subscribes: [] };

const nav = (name) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });
const notice = () => page.getByRole('status').filter({ hasText: "Can't reach Switchboard" });

describe('console while the server cannot be reached', { timeout: 180_000 }, () => {
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.base });
    consoleErrors = watchConsole(context);
    page = await context.newPage();
    page.on('websocket', (ws) => {
      ws.on('framereceived', (f) => {
        if (String(f.payload).includes('"connection_ack"')) live.acks++;
      });
      ws.on('framesent', (f) => {
        const data = String(f.payload);
        if (data.includes('"subscribe"')) live.subscribes.push(data);
      });
    });
  });

  after(async () => {
    await context?.close().catch(() => {});
    await browser?.close().catch(() => {});
    if (process.exitCode && server) console.error(`--- server log (tail) ---\n${server.log().slice(-3000)}`);
    await server?.stop();
  });

  it('keeps a visited page with a notice, and recovers by itself once the server answers', async () => {
    await signUp(page, server.base, { name: 'Una Reachable', email: `reach-${Date.now()}@example.com`, password: 'correct horse battery staple' });
    await nav('API keys').click();
    await page.getByRole('heading', { level: 1, name: 'API keys' }).waitFor(wait);
    await page.getByText('No API keys yet').waitFor(wait);
    await nav('Overview').click();
    await page.getByRole('heading', { level: 1, name: /^Welcome/ }).waitFor(wait);
    await settled(page);
    assert.equal(await notice().count(), 0);

    await page.route('**/graphql', (route) => route.abort('connectionrefused'));
    await nav('API keys').click();
    await notice().waitFor(wait);
    assert.match(await notice().textContent(), /^Can't reach Switchboard — showing data from \d\d:\d\d [AP]M; retrying…$/);
    // The cached page stays, without an error in its place.
    assert.ok(await page.getByText('No API keys yet').isVisible(), 'cached keys page replaced');
    assert.equal(await page.getByText('Could not load API keys').count(), 0);
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'reachability-notice');

    // A page never visited has nothing to show but its error; the notice stays.
    await nav('Short links').click();
    await page.getByText('Could not load short links').waitFor(wait);
    assert.ok(await notice().isVisible());

    await page.unroute('**/graphql');
    await notice().waitFor({ state: 'detached', ...wait });
    // Fetched again on recovery, without Try again being pressed.
    await page.getByText('No short links yet').waitFor(wait);
    assert.equal(await page.getByRole('status').filter({ hasText: /\S/ }).filter({ hasText: /reach/ }).count(), 0);

    // Only the refused requests were logged as errors.
    const unexpected = consoleErrors.filter((e) => !/Failed to load resource: net::ERR_CONNECTION_REFUSED/.test(e));
    assert.deepEqual(unexpected, []);
  });

  it('says so the moment the live connection drops, without a click, and live updates resume soon after the server is back', async () => {
    const errorsBefore = consoleErrors.length;
    // Instances updates live: wait until its subscription is on a connected websocket.
    await nav('Instances').click();
    await page.getByRole('heading', { level: 1, name: 'Instances' }).waitFor(wait);
    await page.getByText('No instances yet').waitFor(wait);
    for (const deadline = Date.now() + 20_000; !live.subscribes.some((s) => s.includes('MessagingEvents')); ) {
      if (Date.now() > deadline) throw new Error('the instances page never subscribed to events');
      await page.waitForTimeout(50);
    }
    assert.equal(await notice().count(), 0);

    await server.down();
    // At once: "can't reach", or, while the stopping server still answers requests (its
    // drain) but no longer takes websockets, "live updates are paused".
    const lost = page.getByRole('status').filter({ hasText: /Can't reach Switchboard|Live updates are paused/ });
    await lost.waitFor({ timeout: 5_000 });
    assert.match(
      await lost.textContent(),
      /^(Can't reach Switchboard — showing data from \d\d:\d\d [AP]M; retrying…|Live updates are paused: Switchboard answers, but its live connection fails \(a proxy in front may not pass websockets\); retrying…)$/,
    );
    // Once it has stopped answering altogether, the notice says so.
    await notice().waitFor({ timeout: 15_000 });
    assert.ok(await page.getByText('No instances yet').isVisible(), 'the page lost its data');
    assert.deepEqual(await seriousViolations(page), []);
    await screenshot(page, 'reachability-live-lost');

    // Back: the websocket reconnects by itself (its first retries are quick) and the notice goes.
    const acks = live.acks;
    const subscribes = live.subscribes.length;
    await server.up();
    const back = Date.now();
    await notice().waitFor({ state: 'detached', timeout: 15_000 });
    assert.ok(live.acks > acks, 'the websocket did not reconnect');
    const resumed = Date.now() - back;
    assert.ok(resumed < 12_000, `live updates took ${resumed} ms to resume`);

    // And live updates flow again: an instance created elsewhere appears without a reload.
    for (const deadline = Date.now() + 10_000; !live.subscribes.slice(subscribes).some((s) => s.includes('MessagingEvents')); ) {
      if (Date.now() > deadline) throw new Error('the instances page did not subscribe again');
      await page.waitForTimeout(50);
    }
    const created = await page.evaluate(async () => {
      const res = await fetch('/graphql', {
        method: 'POST',
        credentials: 'same-origin',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ query: 'mutation { createInstance(input: { name: "Echo" }) { id } }' }),
      });
      return res.json();
    });
    assert.equal(created.errors, undefined, JSON.stringify(created.errors));
    await page.getByRole('heading', { name: /^Echo\b/ }).waitFor({ timeout: 10_000 });

    // While the server was down, only its refused connections were logged as errors.
    const unexpected = consoleErrors.slice(errorsBefore).filter((e) => !/ERR_CONNECTION_REFUSED|WebSocket connection to .* failed/.test(e));
    assert.deepEqual(unexpected, []);
  });
});

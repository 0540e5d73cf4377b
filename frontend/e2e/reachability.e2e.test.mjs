// End-to-end: the console while Switchboard cannot be reached. GraphQL requests are refused in
// the browser (page.route), as when the server is down: a page visited before keeps its data
// and the layout says it cannot reach Switchboard and since when; a page never visited shows
// its error. Once requests get through again the notice goes and both pages are fetched again
// without the user doing anything.
import { after, before, describe, it } from 'node:test';
import assert from 'node:assert/strict';
import { launchBrowser, screenshot, seriousViolations, settled, signUp, startServer, watchConsole } from './harness.mjs';

const wait = { timeout: 20_000 };
let server;
let browser;
let context;
let page;
let consoleErrors = [];

const nav = (name) => page.getByRole('navigation', { name: 'Console' }).getByRole('link', { name, exact: true });
const notice = () => page.getByRole('status').filter({ hasText: "Can't reach Switchboard" });

describe('console while the server cannot be reached', { timeout: 180_000 }, () => {
  before(async () => {
    server = await startServer();
    browser = await launchBrowser();
    context = await browser.newContext({ viewport: { width: 1280, height: 800 }, baseURL: server.base });
    consoleErrors = watchConsole(context);
    page = await context.newPage();
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
});

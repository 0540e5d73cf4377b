// Test harness for the console's end-to-end suite: starts the real switchboard binary on a
// free loopback port with a fresh SQLite file, drives Debian's Chromium through playwright-core,
// collects browser console errors, runs axe-core, and saves screenshots.
import { execFileSync, spawn } from 'node:child_process';
import { accessSync, constants, mkdtempSync, mkdirSync, openSync, readFileSync, rmSync, existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { AxeBuilder } from '@axe-core/playwright';

const here = dirname(fileURLToPath(import.meta.url));
export const frontendDir = resolve(here, '..');
export const screenshotDir = join(frontendDir, 'screenshots');

export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
export const switchboardBin = resolve(frontendDir, process.env.SWITCHBOARD_BIN ?? '../bin/switchboard');

function executable(path) {
  try {
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** What is missing before any test can run: Chromium that starts, and the switchboard binary. */
export function preflight() {
  const problems = [];
  if (!executable(chromiumPath)) {
    problems.push(
      `Chromium not found at ${chromiumPath}.\n    Install it:  apt-get install -y chromium\n    (or set CHROMIUM_PATH to a Chromium or Chrome binary)`,
    );
  } else {
    try {
      execFileSync(chromiumPath, ['--version'], { stdio: 'pipe', timeout: 20_000 });
    } catch (e) {
      const output = `${e.stderr ?? ''}${e.stdout ?? ''}`.trim() || e.message;
      problems.push(
        `Chromium at ${chromiumPath} does not start (${output.split('\n')[0]}).\n    Reinstall it:  apt-get install -y chromium\n    (or set CHROMIUM_PATH)`,
      );
    }
  }
  if (!existsSync(switchboardBin)) {
    problems.push(`switchboard binary not found at ${switchboardBin}.\n    Build it:  make build  (at the repository root), or set SWITCHBOARD_BIN`);
  }
  return problems;
}

/**
 * Starts `switchboard serve` and waits until /readyz answers 200. down() and up() stop it and
 * start it again on the same address and database (the server going away and coming back).
 */
export async function startServer() {
  const bin = switchboardBin;
  if (!existsSync(bin)) throw new Error(`switchboard binary not found at ${bin}; run make build (or set SWITCHBOARD_BIN)`);
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'switchboard-e2e-'));
  const db = join(dir, 'e2e.db');
  const base = `http://127.0.0.1:${port}`;
  const logPath = join(dir, 'server.log');
  const log = openSync(logPath, 'a');
  let running = null; // { child, exited }

  const launch = async () => {
    const child = spawn(bin, ['serve', '--addr', `127.0.0.1:${port}`, '--database-url', `sqlite://${db}`, '--base-url', base], {
      stdio: ['ignore', log, log],
      env: { ...process.env },
    });
    const proc = { child, exited: null };
    child.on('exit', (code, signal) => (proc.exited = { code, signal }));
    running = proc;
    const deadline = Date.now() + 30_000;
    for (;;) {
      if (proc.exited) throw new Error(`switchboard exited early (${JSON.stringify(proc.exited)}):\n${readFileSync(logPath, 'utf8').slice(-4000)}`);
      try {
        const res = await fetch(`${base}/readyz`);
        if (res.status === 200) break;
      } catch {
        // not listening yet
      }
      if (Date.now() > deadline) throw new Error(`switchboard not ready after 30s:\n${readFileSync(logPath, 'utf8').slice(-4000)}`);
      await sleep(100);
    }
  };
  const halt = async () => {
    const proc = running;
    running = null;
    if (!proc || proc.exited) return;
    proc.child.kill('SIGTERM');
    for (let i = 0; i < 50 && !proc.exited; i++) await sleep(100);
    if (!proc.exited) proc.child.kill('SIGKILL');
    for (let i = 0; i < 50 && !proc.exited; i++) await sleep(100);
  };

  await launch();
  return {
    base,
    logPath,
    /** The SQLite file, for the few tests that must put the server in a state no API reaches (an expired pairing code). */
    db,
    log: () => readFileSync(logPath, 'utf8'),
    /** Stops the server, keeping its database and address. */
    down: halt,
    /** Starts it again after down(); resolves once it is ready. */
    up: launch,
    async stop() {
      await halt();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export async function launchBrowser() {
  if (!executable(chromiumPath)) throw new Error(`Chromium not found at ${chromiumPath}; install it with: apt-get install -y chromium (or set CHROMIUM_PATH)`);
  return chromium.launch({
    executablePath: chromiumPath,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Records console errors and uncaught exceptions of every page in a context. */
export function watchConsole(context) {
  const errors = [];
  const attach = (page) => {
    page.on('console', (msg) => {
      if (msg.type() === 'error') errors.push(`${page.url()}: ${msg.text()}`);
    });
    page.on('pageerror', (err) => errors.push(`${page.url()}: uncaught ${err.message}`));
  };
  context.pages().forEach(attach);
  context.on('page', attach);
  return errors;
}

/** Runs axe-core on the page; returns serious and critical violations. */
export async function seriousViolations(page) {
  // Colours are judged at rest: a dialog fading in is half transparent, and axe would measure
  // its contrast mid-way. Finite animations are awaited; spinners (infinite) are not.
  await page.evaluate(() =>
    Promise.all(
      document
        .getAnimations()
        .filter((a) => a.effect?.getComputedTiming().iterations !== Infinity)
        .map((a) => a.finished.catch(() => undefined)),
    ),
  );
  const results = await new AxeBuilder({ page }).analyze();
  return results.violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}): ${v.help} — ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`);
}

export async function screenshot(page, name) {
  mkdirSync(screenshotDir, { recursive: true });
  await page.screenshot({ path: join(screenshotDir, `${name}.png`), fullPage: false });
}

/** Waits until nothing on the page says it is loading. */
export async function settled(page) {
  await page.waitForFunction(
    () => !Array.from(document.querySelectorAll('[role="status"]')).some((el) => /loading|opening/i.test(el.textContent ?? '')),
    null,
    { timeout: 15_000 },
  );
}

/** Signs up a new user in the browser and waits for the console's home page. */
export async function signUp(page, base, { name, email, password }) {
  await page.goto(`${base}/user/sign-up`);
  await page.getByLabel('Name').fill(name);
  await page.getByLabel('Email').fill(email);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Create account' }).click();
  await page.waitForURL(`${base}/user/api`);
  await settled(page);
}

/** Creates a key on the API keys page; returns the secret dialog (still open) and the secret. */
export async function createKey(page, name) {
  await page.getByRole('button', { name: 'Create API key' }).first().click();
  const dialog = page.getByRole('dialog', { name: 'Create API key' });
  await dialog.getByLabel('Name').fill(name);
  await dialog.getByRole('button', { name: 'Create key' }).click();
  const secretDialog = page.getByRole('dialog', { name: 'Save your API key' });
  await secretDialog.waitFor();
  const value = (await secretDialog.getByTestId('secret-value').textContent())?.trim() ?? '';
  return { secretDialog, value };
}

/** The bounding box of the console's sticky top bar. */
export async function topBarBox(page) {
  const box = await page.locator('header').first().boundingBox();
  if (!box) throw new Error('no top bar on the page');
  return box;
}

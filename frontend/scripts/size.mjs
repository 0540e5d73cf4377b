// Prints the gzipped size of the JavaScript a browser loads before the console can render:
// the entry chunk named in index.html plus every chunk it imports statically (recursively).
// Lazy pages (dynamic import) are listed separately. Fails if the initial JS exceeds the budget,
// or if the entry chunk alone is larger than Vite's chunk size warning limit (500 kB minified).
import { readFileSync, readdirSync, existsSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const BUDGET_KB = 300;
const ENTRY_LIMIT_KB = 500; // minified, in kB of 1000 bytes as Vite prints them
const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const dist = resolve(root, process.env.DIST_DIR ?? '../backend/web/dist');
const indexPath = join(dist, 'index.html');
if (!existsSync(indexPath)) {
  console.error(`size: ${indexPath} not found; run npm run build first`);
  process.exit(1);
}
const html = readFileSync(indexPath, 'utf8');
const base = '/user/';
const toFile = (url) => join(dist, url.startsWith(base) ? url.slice(base.length) : url.replace(/^\//, ''));

const entries = [...html.matchAll(/<script[^>]+type="module"[^>]+src="([^"]+)"/g)].map((m) => m[1]);
const preloads = [...html.matchAll(/<link[^>]+rel="modulepreload"[^>]+href="([^"]+)"/g)].map((m) => m[1]);
const css = [...html.matchAll(/<link[^>]+rel="stylesheet"[^>]+href="([^"]+)"/g)].map((m) => m[1]);

const seen = new Set();
const queue = [...entries, ...preloads].map(toFile);
while (queue.length) {
  const file = queue.shift();
  if (seen.has(file)) continue;
  seen.add(file);
  const code = readFileSync(file, 'utf8');
  // Static imports only: `import ... from "./x.js"` and `import "./x.js"`, not import("./x.js").
  for (const m of code.matchAll(/(?:^|[;}\s])import\s*(?:[\w*{}\s,$]+from\s*)?["']([^"']+\.js)["']/g)) {
    queue.push(resolve(dirname(file), m[1]));
  }
}

const gz = (file) => gzipSync(readFileSync(file), { level: 9 }).length;
const kb = (n) => (n / 1024).toFixed(1);
let total = 0;
console.log('Initial JavaScript (entry + static imports):');
for (const f of seen) {
  const size = gz(f);
  total += size;
  console.log(`  ${f.slice(dist.length + 1).padEnd(44)} ${kb(size).padStart(7)} KB gzip`);
}
const cssTotal = css.map(toFile).reduce((n, f) => n + gz(f), 0);
console.log(`Initial JS total: ${kb(total)} KB gzipped (budget ${BUDGET_KB} KB)`);
console.log(`Initial CSS total: ${kb(cssTotal)} KB gzipped`);
const lazy = readdirSync(join(dist, 'assets')).filter((f) => f.endsWith('.js') && !seen.has(join(dist, 'assets', f)));
if (lazy.length) {
  console.log('Lazy chunks:');
  for (const f of lazy.sort()) console.log(`  assets/${f.padEnd(37)} ${kb(gz(join(dist, 'assets', f))).padStart(7)} KB gzip`);
}
const entrySizes = entries.map((url) => [url, readFileSync(toFile(url)).length / 1000]);
for (const [url, size] of entrySizes) console.log(`Entry chunk ${url}: ${size.toFixed(1)} kB minified (limit ${ENTRY_LIMIT_KB} kB)`);
let failed = false;
if (total / 1024 > BUDGET_KB) {
  console.error(`size: initial JS ${kb(total)} KB exceeds the ${BUDGET_KB} KB budget`);
  failed = true;
}
for (const [url, size] of entrySizes) {
  if (size > ENTRY_LIMIT_KB) {
    console.error(`size: entry chunk ${url} is ${size.toFixed(1)} kB, over ${ENTRY_LIMIT_KB} kB: load more pages or libraries on demand`);
    failed = true;
  }
}
if (failed) process.exit(1);

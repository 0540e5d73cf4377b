// Runs the end-to-end suite: first checks that Chromium and the switchboard binary are there,
// and stops with one message saying how to get them, rather than letting every test fail on
// its own. Then hands over to node's test runner.
//
//   npm run test:e2e                                     every e2e/*.e2e.test.mjs
//   npm run test:e2e -- e2e/reference.e2e.test.mjs       one file
//   npm run test:e2e -- --test-name-pattern="revok"      node --test options pass through
import { spawn } from 'node:child_process';
import { preflight } from './harness.mjs';

const problems = preflight();
if (problems.length) {
  console.error(`e2e: cannot run the end-to-end tests:\n\n${problems.map((p) => `  - ${p}`).join('\n\n')}\n`);
  process.exit(1);
}

const args = process.argv.slice(2);
const files = args.filter((a) => !a.startsWith('-'));
const options = args.filter((a) => a.startsWith('-'));
const child = spawn(
  process.execPath,
  ['--test', '--test-concurrency=1', '--test-reporter=spec', ...options, ...(files.length ? files : ['e2e/'])],
  { stdio: 'inherit' },
);
child.on('exit', (code, signal) => process.exit(signal ? 1 : (code ?? 1)));

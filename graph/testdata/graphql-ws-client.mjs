// A real graphql-ws client (the library the console uses) against the Go handler.
// Usage: node graphql-ws-client.mjs <node_modules dir> <ws url> <api key> <after event id>
// Prints one JSON line per result and exits 0, or prints the error and exits 1.
import { createRequire } from 'node:module';

const [modules, url, key, after] = process.argv.slice(2);
const require = createRequire(modules + '/');
const { createClient } = require('graphql-ws');
const WebSocket = require('ws');

const client = createClient({
  url,
  webSocketImpl: WebSocket,
  connectionParams: { authorization: 'Bearer ' + key },
  retryAttempts: 0,
  keepAlive: 100, // client pings, answered by the server's pongs
});

function once(query, variables) {
  return new Promise((resolve, reject) => {
    let result;
    const dispose = client.subscribe({ query, variables }, {
      next: (v) => { result = v; dispose(); resolve(result); },
      error: reject,
      complete: () => resolve(result),
    });
  });
}

try {
  const event = await once(
    'subscription($after: ID) { events(after: $after) { id type workspaceId data } }', { after });
  console.log(JSON.stringify(event));
  // Stay connected across several server pings, then use the same connection again.
  await new Promise((r) => setTimeout(r, 1000));
  console.log(JSON.stringify(await once('{ viewer { workspace { id } } }')));
  await client.dispose();
  process.exit(0);
} catch (err) {
  console.log('error: ' + (err instanceof Error ? err.message : JSON.stringify(err)));
  process.exit(1);
}

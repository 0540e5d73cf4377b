import { Client, cacheExchange, fetchExchange, mapExchange, subscriptionExchange } from 'urql';
import { createClient as createWsClient, type Client as WsClient } from 'graphql-ws';
import { coalesceExchange } from './coalesce';
import { createReachability, type Reachability } from './reachability';

/**
 * The one place where an expired or missing session is handled: any operation that fails
 * with extensions.code UNAUTHENTICATED sends the user to sign in, and back afterwards.
 * Operations that are expected to fail that way (signIn, signUp) opt out with
 * context { authRedirect: false }.
 */
export type UnauthenticatedHandler = () => void;

export function redirectToSignIn(): void {
  const here = window.location.pathname + window.location.search + window.location.hash;
  if (window.location.pathname.startsWith('/user/sign-')) return;
  const next = encodeURIComponent(here);
  window.location.assign(`/user/sign-in?next=${next}&reason=expired`);
}

let unauthenticatedHandler: UnauthenticatedHandler = redirectToSignIn;

/** For tests: replace what happens when the session has expired. */
export function setUnauthenticatedHandler(handler: UnauthenticatedHandler): void {
  unauthenticatedHandler = handler;
}

export type ConnectionState = 'connecting' | 'connected' | 'closed';
type Listener = (state: ConnectionState) => void;

export interface ConsoleClient {
  client: Client;
  /** Live state of the websocket used by subscriptions. */
  onConnectionState(listener: Listener): () => void;
  /** Whether the server answers GraphQL requests (the layout shows a notice when not). */
  reachability: Reachability;
  dispose(): void;
}

/**
 * How long the live connection waits before its next reconnect: quick at first (0.5 s, 1 s,
 * 2 s, ...), so live updates resume soon after a short outage, and at most 10 s.
 */
export function liveRetryDelay(retries: number): number {
  return Math.min(500 * 2 ** retries, 10_000);
}

/** A close the client asked for (no subscription left, sign-out): not a lost connection. */
const NORMAL_CLOSURE = 1000;

function websocketURL(): string {
  const proto = window.location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${proto}//${window.location.host}/graphql`;
}

export function createConsoleClient(): ConsoleClient {
  const listeners = new Set<Listener>();
  let state: ConnectionState = 'closed';
  const setState = (next: ConnectionState) => {
    state = next;
    listeners.forEach((l) => l(next));
  };

  // Cuts the current reconnect wait short: the server answered, or the user asked to retry.
  let wakeLive: (() => void) | null = null;
  const reachability = createReachability({ onAnswer: () => wakeLive?.() });
  // Subscriptions in use: a connection lost while none is wants no reconnecting.
  let listening = 0;

  let ws: WsClient | null = null;
  const getWs = (): WsClient => {
    if (ws) return ws;
    ws = createWsClient({
      url: websocketURL(),
      lazy: true,
      // The session cookie travels with the upgrade request (same origin).
      connectionParams: {},
      retryAttempts: Infinity,
      // 4401/4403: the server refused the session; reconnecting will not help.
      shouldRetry: (e) => {
        const code = (e as { code?: number } | null)?.code;
        if (code === 4401 || code === 4403) {
          unauthenticatedHandler();
          return false;
        }
        return true;
      },
      retryWait: (retries) =>
        new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            wakeLive = null;
            resolve();
          };
          const timer = setTimeout(done, liveRetryDelay(retries));
          wakeLive = done;
        }),
      on: {
        connecting: () => setState('connecting'),
        connected: () => {
          setState('connected');
          reachability.setLive(true);
        },
        closed: (event) => {
          setState('closed');
          // Dropped under pages that listen: they say so at once (ReachabilityNotice).
          const code = (event as { code?: number } | null)?.code;
          if (listening > 0 && code !== NORMAL_CLOSURE) reachability.setLive(false);
        },
      },
    });
    return ws;
  };

  const client = new Client({
    url: '/graphql',
    // A page visited before shows its cached data at once and is fetched again, so data goes
    // stale only while the server cannot be reached, and then the layout says so.
    requestPolicy: 'cache-and-network',
    preferGetMethod: false,
    fetchOptions: { credentials: 'same-origin' },
    exchanges: [
      mapExchange({
        onError(error, operation) {
          if (operation.context.authRedirect === false) return;
          const unauthenticated = error.graphQLErrors.some(
            (e) => e.extensions?.code === 'UNAUTHENTICATED',
          );
          if (unauthenticated) unauthenticatedHandler();
        },
      }),
      cacheExchange,
      reachability.exchange,
      coalesceExchange,
      fetchExchange,
      subscriptionExchange({
        forwardSubscription(request) {
          const input = { ...request, query: request.query ?? '' };
          return {
            subscribe(sink) {
              listening++;
              let done = false;
              const release = () => {
                if (done) return;
                done = true;
                // Nothing listens any more: a lost connection no longer matters.
                if (--listening === 0) reachability.setLive(true);
              };
              const observer: typeof sink = {
                next: (value) => sink.next(value),
                error: (e) => (release(), sink.error(e)),
                complete: () => (release(), sink.complete()),
              };
              const unsubscribe = getWs().subscribe(input, observer);
              return {
                unsubscribe() {
                  release();
                  unsubscribe();
                },
              };
            },
          };
        },
      }),
    ],
  });

  return {
    client,
    onConnectionState(listener) {
      listeners.add(listener);
      listener(state);
      return () => listeners.delete(listener);
    },
    reachability,
    dispose() {
      listeners.clear();
      reachability.dispose();
      void ws?.dispose();
      ws = null;
    },
  };
}

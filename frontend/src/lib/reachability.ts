import { makeOperation, mapExchange, type Client, type CombinedError, type Exchange, type Operation } from 'urql';

/** Whether Switchboard answered the console's last request, and when it last did. */
export interface ReachabilityState {
  reachable: boolean;
  /** When a request last succeeded: while unreachable, how old the data on screen is. */
  lastSuccessAt: Date | null;
}

export interface Reachability {
  get(): ReachabilityState;
  subscribe(listener: (state: ReachabilityState) => void): () => void;
  /** Asks the server again now rather than at the next scheduled retry. */
  retryNow(): void;
  /** Goes between the cache and the transports: sees every request that reaches the server. */
  exchange: Exchange;
  dispose(): void;
}

export interface ReachabilityOptions {
  /** Resolves true when the server answers; the default posts `{ __typename }` to /graphql. */
  probe?: () => Promise<boolean>;
  now?: () => Date;
  /** Milliseconds between retries while unreachable; the last one repeats. */
  retryDelays?: number[];
}

/** No answer at all (offline, server down, connection refused) or a 5xx from it or a proxy. */
export function isUnreachable(error: CombinedError | undefined): boolean {
  if (!error) return false;
  const status = (error.response as Response | undefined)?.status;
  if (typeof status === 'number') return status >= 500;
  return !!error.networkError;
}

async function probeGraphQL(): Promise<boolean> {
  try {
    const res = await fetch('/graphql', {
      method: 'POST',
      credentials: 'same-origin',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ __typename }' }),
    });
    return res.status < 500;
  } catch {
    return false;
  }
}

/**
 * Tracks whether Switchboard can be reached, in one place for every page. When a request fails
 * because the server is unreachable (or answers 5xx), a query that has shown data before keeps
 * that data instead of an error (the layout says how old it is), the server is asked again
 * with growing pauses, and once it answers every query on screen is fetched again.
 */
export function createReachability({ probe = probeGraphQL, now = () => new Date(), retryDelays = [1000, 2000, 4000, 8000, 10000] }: ReachabilityOptions = {}): Reachability {
  let lastSuccessAt: Date | null = null;
  // A new object only when reachable changes, so listeners (and React) hear of transitions only.
  let state: ReachabilityState = { reachable: true, lastSuccessAt };
  const listeners = new Set<(state: ReachabilityState) => void>();
  const set = (next: ReachabilityState) => {
    state = next;
    listeners.forEach((l) => l(state));
  };

  let client: Client | null = null;
  // Queries sent to the server, by key; the client re-runs only those still on screen.
  const queries = new Map<number, Operation>();
  const lastData = new Map<number, unknown>();

  let timer: ReturnType<typeof setTimeout> | undefined;
  let attempt = 0;
  const stopRetrying = () => {
    clearTimeout(timer);
    timer = undefined;
  };
  const scheduleRetry = () => {
    stopRetrying();
    const delay = retryDelays[Math.min(attempt, retryDelays.length - 1)] ?? 10000;
    attempt++;
    timer = setTimeout(() => void tryAgain(), delay);
  };
  const tryAgain = async () => {
    stopRetrying();
    const ok = await probe();
    if (state.reachable) return; // a request succeeded meanwhile
    if (ok) succeeded();
    else scheduleRetry();
  };

  const succeeded = () => {
    lastSuccessAt = now();
    if (state.reachable) return;
    stopRetrying();
    attempt = 0;
    set({ reachable: true, lastSuccessAt });
    // Pages that kept older data, or showed an error, get fresh results.
    for (const op of queries.values()) client?.reexecuteOperation(makeOperation('query', op, { ...op.context, requestPolicy: 'network-only' }));
  };
  const failed = () => {
    if (!state.reachable) return;
    set({ reachable: false, lastSuccessAt });
    scheduleRetry();
  };

  const exchange: Exchange = (input) => {
    client = input.client;
    return mapExchange({
      onOperation(operation) {
        if (operation.kind === 'query') queries.set(operation.key, operation);
      },
      onResult(result) {
        const { operation } = result;
        if (operation.kind !== 'query' && operation.kind !== 'mutation') return result;
        if (!isUnreachable(result.error)) {
          succeeded();
          if (operation.kind === 'query' && result.data != null) lastData.set(operation.key, result.data);
          return result;
        }
        failed();
        const previous = operation.kind === 'query' ? lastData.get(operation.key) : undefined;
        return previous === undefined ? result : { ...result, data: previous, error: undefined };
      },
    })(input);
  };

  return {
    get: () => state,
    subscribe(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
    retryNow() {
      if (!state.reachable) void tryAgain();
    },
    exchange,
    dispose() {
      stopRetrying();
      listeners.clear();
    },
  };
}

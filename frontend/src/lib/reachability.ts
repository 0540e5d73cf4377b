import { makeOperation, mapExchange, type Client, type CombinedError, type Exchange, type Operation } from 'urql';

/** Whether Switchboard answered the console's last request, and when it last did. */
export interface ReachabilityState {
  reachable: boolean;
  /**
   * The server answers requests, but the live connection fails (a proxy that does not pass
   * websockets, say): only live updates are missing.
   */
  liveOnly: boolean;
  /** When a request last succeeded: while unreachable, how old the data on screen is. */
  lastSuccessAt: Date | null;
}

export interface Reachability {
  get(): ReachabilityState;
  subscribe(listener: (state: ReachabilityState) => void): () => void;
  /** Asks the server again now rather than at the next scheduled retry. */
  retryNow(): void;
  /**
   * Reports the live connection (the websocket of subscriptions): lost when it dropped while
   * pages listen on it, back when it is connected again or nothing listens any more. While it
   * is lost Switchboard counts as unreachable, so every page says so at once.
   */
  setLive(ok: boolean): void;
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
  /** Called when the server answers while the live connection is lost, or on retryNow: reconnect it now. */
  onAnswer?: () => void;
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
 * because the server is unreachable (or answers 5xx), or the live connection drops, a query
 * that has shown data before keeps that data instead of an error (the layout says how old it
 * is), the server is asked again with growing pauses, and once it answers (and the live
 * connection is back) every query on screen is fetched again: live events may have been missed.
 */
export function createReachability({
  probe = probeGraphQL,
  now = () => new Date(),
  retryDelays = [1000, 2000, 4000, 8000, 10000],
  onAnswer,
}: ReachabilityOptions = {}): Reachability {
  let lastSuccessAt: Date | null = null;
  // Requests fail for want of an answer; the live connection dropped.
  let requestsDown = false;
  let liveDown = false;
  // A new object only when reachable changes, so listeners (and React) hear of transitions only.
  // The server answered a probe made after the live connection dropped.
  let answersWhileLiveDown = false;
  let state: ReachabilityState = { reachable: true, liveOnly: false, lastSuccessAt };
  const listeners = new Set<(state: ReachabilityState) => void>();

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
    if (!requestsDown) return; // a request succeeded meanwhile
    if (ok) succeeded();
    else scheduleRetry();
  };

  /** Tells listeners when reachable changes; on the way back, pages get fresh results. */
  const update = () => {
    const reachable = !requestsDown && !liveDown;
    const liveOnly = liveDown && !requestsDown && answersWhileLiveDown;
    if (reachable === state.reachable && liveOnly === state.liveOnly) return;
    const back = reachable && !state.reachable;
    state = { reachable, liveOnly, lastSuccessAt };
    listeners.forEach((l) => l(state));
    // Pages that kept older data, or showed an error, get fresh results.
    if (back) for (const op of queries.values()) client?.reexecuteOperation(makeOperation('query', op, { ...op.context, requestPolicy: 'network-only' }));
  };
  const succeeded = () => {
    lastSuccessAt = now();
    if (liveDown) onAnswer?.();
    if (!requestsDown) return;
    stopRetrying();
    attempt = 0;
    requestsDown = false;
    update();
  };
  const failed = () => {
    if (requestsDown) return;
    requestsDown = true;
    update();
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
      if (liveDown) onAnswer?.();
      if (requestsDown) void tryAgain();
    },
    setLive(ok) {
      liveDown = !ok;
      if (ok) answersWhileLiveDown = false;
      update();
      if (ok) return;
      // Is the server down, or only the live connection (a proxy that drops websockets)? The
      // notice says which; asked again at every failed reconnect (a server stopping may
      // still answer the first time), without flickering back to "can't reach" meanwhile.
      void probe().then((answered) => {
        if (!liveDown) return;
        if (!answered) {
          answersWhileLiveDown = false;
          return failed();
        }
        lastSuccessAt = now();
        answersWhileLiveDown = true;
        update();
      });
    },
    exchange,
    dispose() {
      stopRetrying();
      listeners.clear();
    },
  };
}

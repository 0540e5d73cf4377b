import { Client, getOperationName, makeErrorResult, makeResult, type Exchange, type Operation } from 'urql';
import { filter, fromPromise, fromValue, map, mergeMap, pipe, takeUntil, type Source } from 'wonka';
import type { ConsoleClient, ConnectionState } from '../lib/client';
import { createReachability } from '../lib/reachability';

export type MockResponse = { data?: unknown; errors?: { message: string; extensions?: Record<string, unknown> }[] } | { networkError: Error };
export type Handler = (variables: Record<string, unknown>, op: Operation) => MockResponse | Source<MockResponse> | Promise<MockResponse>;

function toResult(op: Operation, r: MockResponse) {
  if ('networkError' in r) return makeErrorResult(op, r.networkError);
  return makeResult(op, { data: (r.data ?? null) as Record<string, unknown> | null, errors: r.errors as never });
}

/** A real urql Client whose transport answers operations by name from handlers. */
export function mockClient(handlers: Record<string, Handler>): { client: Client; calls: Operation[] } {
  const calls: Operation[] = [];
  const exchange: Exchange = () => (ops$) =>
    pipe(
      ops$,
      filter((op) => op.kind !== 'teardown'),
      mergeMap((op) => {
        calls.push(op);
        const name = getOperationName(op.query) ?? '';
        const handler = handlers[name];
        if (!handler) throw new Error(`mockClient: no handler for ${name}`);
        const out = handler((op.variables ?? {}) as Record<string, unknown>, op);
        const teardown$ = pipe(
          ops$,
          filter((o) => o.kind === 'teardown' && o.key === op.key),
        );
        if (out instanceof Promise) {
          return pipe(
            fromPromise(out),
            map((r) => toResult(op, r)),
            takeUntil(teardown$),
          );
        }
        if (typeof out === 'function') {
          return pipe(
            out as Source<MockResponse>,
            map((r) => toResult(op, r)),
            takeUntil(teardown$),
          );
        }
        return pipe(fromValue(out), map((r) => toResult(op, r)));
      }),
    );
  const client = new Client({ url: '/graphql', exchanges: [exchange], requestPolicy: 'network-only' });
  return { client, calls };
}

export function fakeConsoleClient(client: Client, state: ConnectionState = 'connected'): ConsoleClient {
  return {
    client,
    onConnectionState(listener) {
      listener(state);
      return () => {};
    },
    reachability: createReachability(),
    dispose() {},
  };
}

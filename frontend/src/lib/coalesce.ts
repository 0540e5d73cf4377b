import type { Exchange, Operation } from 'urql';
import { filter, makeSubject, map, merge, pipe } from 'wonka';

/**
 * At most one request in flight per query. urql's refetch tears the running request down (the
 * browser aborts it: net::ERR_ABORTED) and sends it again, so a live event arriving while a
 * page's query loads cancelled it. Here, while a query's request is under way:
 *
 * - its teardown is not passed on: the request finishes, and its answer still fills the cache
 *   and reaches the page if it asks for the same query again;
 * - asking for it again (any number of times) sends it once more, when the running one ends.
 *
 * A teardown in the same tick as the send still cancels it: nothing has left yet (urql asks and
 * tears down at once when a page mounts). Goes right before fetchExchange; mutations and
 * subscriptions pass through.
 */
export const coalesceExchange: Exchange = ({ forward }) => {
  return (ops$) => {
    const inFlight = new Set<number>();
    // Sent in this tick: the fetch has not started yet.
    const starting = new Set<number>();
    // The latest ask for a query in flight, by key: sent when the running request ends.
    const waiting = new Map<number, Operation>();
    const later = makeSubject<Operation>();

    const sending = (op: Operation) => {
      inFlight.add(op.key);
      starting.add(op.key);
      queueMicrotask(() => starting.delete(op.key));
      return op;
    };

    const now$ = pipe(
      ops$,
      filter((op) => {
        if (op.kind === 'teardown') {
          // Nobody is left to want a waiting refetch; a refetch asked for after this comes next.
          waiting.delete(op.key);
          if (!inFlight.has(op.key)) return true;
          if (!starting.has(op.key)) return false;
          inFlight.delete(op.key);
          return true;
        }
        if (op.kind !== 'query') return true;
        if (inFlight.has(op.key)) {
          waiting.set(op.key, op);
          return false;
        }
        sending(op);
        return true;
      }),
    );

    return pipe(
      forward(merge([now$, later.source])),
      map((result) => {
        const { operation } = result;
        const { key } = operation;
        if (operation.kind !== 'query' || result.hasNext) return result;
        if (!waiting.has(key)) {
          inFlight.delete(key);
          return result;
        }
        // Sent after this result is delivered (even by a transport that answers at once), as
        // still wanted then; the key stays in flight meanwhile, so further asks join it.
        queueMicrotask(() => {
          const next = waiting.get(key);
          waiting.delete(key);
          if (next) later.next(sending(next));
          else inFlight.delete(key);
        });
        // Fresher data is on its way.
        return { ...result, stale: true };
      }),
    );
  };
};

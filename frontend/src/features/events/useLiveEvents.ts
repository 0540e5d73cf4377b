import { useCallback, useEffect, useRef, useState } from 'react';
import { useClient, type CombinedError } from 'urql';
import { LiveEventsDocument, RecentEventsDocument, type EventFieldsFragment } from '../../graphql/generated';

export const MAX_EVENTS = 200;

interface StreamState {
  /** The type filter this state belongs to; a new filter starts from scratch. */
  key: string;
  events: EventFieldsFragment[];
  /** Events that arrived while paused, newest first. */
  pending: EventFieldsFragment[];
  loading: boolean;
  historyError: CombinedError | null;
  liveError: CombinedError | null;
  freshIds: Set<string>;
}

export interface LiveEvents extends Omit<StreamState, 'key'> {
  flush: () => void;
}

const initial = (key: string): StreamState => ({
  key,
  events: [],
  pending: [],
  loading: true,
  historyError: null,
  liveError: null,
  freshIds: new Set(),
});

export function mergeEvents(incoming: EventFieldsFragment[], current: EventFieldsFragment[]): EventFieldsFragment[] {
  const seen = new Set(current.map((e) => e.id));
  const fresh = incoming.filter((e) => !seen.has(e.id));
  if (!fresh.length) return current;
  return [...fresh, ...current]
    .sort((a, b) => (a.timestamp < b.timestamp ? 1 : a.timestamp > b.timestamp ? -1 : a.id < b.id ? 1 : -1))
    .slice(0, MAX_EVENTS);
}

/**
 * The workspace's recent events, then new ones live (subscription `events`, resuming after the
 * newest event loaded so nothing falls in between). While paused, new events are held back.
 */
export function useLiveEvents(types: string[], paused: boolean): LiveEvents {
  const client = useClient();
  const typesKey = types.join(',');
  const [raw, setRaw] = useState<StreamState>(() => initial(typesKey));
  const state = raw.key === typesKey ? raw : initial(typesKey);
  const pausedRef = useRef(paused);
  useEffect(() => {
    pausedRef.current = paused;
  }, [paused]);

  useEffect(() => {
    const key = typesKey;
    const update = (fn: (s: StreamState) => Partial<StreamState>) =>
      setRaw((prev) => {
        const base = prev.key === key ? prev : initial(key);
        return { ...base, ...fn(base) };
      });
    const filter = key ? key.split(',') : null;
    let cancelled = false;
    let unsubscribe: (() => void) | null = null;

    client
      .query(RecentEventsDocument, { types: filter, first: 25 }, { requestPolicy: 'network-only' })
      .toPromise()
      .then((result) => {
        if (cancelled) return;
        const history = result.data?.events.nodes ?? [];
        update((s) => ({
          loading: false,
          historyError: result.data ? null : (result.error ?? null),
          events: mergeEvents(history, s.events),
        }));
        const after = history[0]?.id ?? null;
        const sub = client.subscription(LiveEventsDocument, { types: filter, after }).subscribe((r) => {
          if (r.error) {
            update(() => ({ liveError: r.error ?? null }));
            return;
          }
          const event = r.data?.events;
          if (!event) return;
          if (pausedRef.current) {
            update((s) => ({ liveError: null, pending: mergeEvents([event], s.pending) }));
          } else {
            update((s) => ({ liveError: null, events: mergeEvents([event], s.events), freshIds: new Set(s.freshIds).add(event.id) }));
          }
        });
        unsubscribe = () => sub.unsubscribe();
      });

    return () => {
      cancelled = true;
      unsubscribe?.();
    };
  }, [client, typesKey]);

  const flush = useCallback(() => {
    setRaw((s) => ({ ...s, events: mergeEvents(s.pending, s.events), freshIds: new Set(s.pending.map((e) => e.id)), pending: [] }));
  }, []);

  return {
    events: state.events,
    pending: state.pending,
    loading: state.loading,
    historyError: state.historyError,
    liveError: state.liveError,
    freshIds: state.freshIds,
    flush,
  };
}

/** A few words about what an event is about, from its data: a name, URL or email. */
export function eventSummary(data: unknown): string {
  if (!data || typeof data !== 'object') return '';
  const d = data as Record<string, unknown>;
  const nested = ['api_key', 'webhook', 'workspace', 'object'].map((k) => d[k]).find((v) => v && typeof v === 'object') as
    | Record<string, unknown>
    | undefined;
  for (const source of [d, nested]) {
    if (!source) continue;
    for (const key of ['name', 'url', 'email', 'slug', 'title']) {
      const v = source[key];
      if (typeof v === 'string' && v) return v.length > 60 ? `${v.slice(0, 57)}…` : v;
    }
  }
  return '';
}

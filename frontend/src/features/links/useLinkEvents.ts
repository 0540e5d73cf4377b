import { useEffect, useRef } from 'react';
import { useClient } from 'urql';
import { LinkEventsDocument } from '../../graphql/generated';

/**
 * The link events a page reloads on. Never link.listed: reading the list records one, and
 * reloading on it would loop.
 */
export const linkChangeTypes = ['link.created', 'link.updated', 'link.deleted', 'link.clicked'];

/** The id of the link an event is about: data.id (created, updated, deleted) or data.link.id (clicked). */
export function eventLinkId(data: unknown): string | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const d = data as { id?: unknown; link?: { id?: unknown } };
  const id = d.link?.id ?? d.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Calls onChange when a link of the workspace (or only linkId) is created, changed, deleted
 * or clicked, from the `events` subscription. The event is the signal and the query the
 * truth, so calls are coalesced: at most one per throttleMs, the last one trailing, so a
 * burst of clicks costs one reload rather than one per click.
 */
export function useLinkEvents(onChange: () => void, { linkId, throttleMs = 1000 }: { linkId?: string; throttleMs?: number } = {}) {
  const client = useClient();
  const callback = useRef(onChange);
  useEffect(() => {
    callback.current = onChange;
  });
  useEffect(() => {
    let last = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fire = () => {
      last = Date.now();
      timer = undefined;
      callback.current();
    };
    const sub = client.subscription(LinkEventsDocument, { types: linkChangeTypes }).subscribe((r) => {
      const e = r.data?.events;
      if (!e || (linkId && eventLinkId(e.data) !== linkId)) return;
      if (timer) return; // a reload is already due
      const wait = last + throttleMs - Date.now();
      if (wait <= 0) fire();
      else timer = setTimeout(fire, wait);
    });
    return () => {
      sub.unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [client, linkId, throttleMs]);
}

/** Refetches (from the network) whenever version changes after the first render. */
export function useRefetchOn(version: number, refetch: (opts: { requestPolicy: 'network-only' }) => void) {
  const latest = useRef(refetch);
  useEffect(() => {
    latest.current = refetch;
  });
  useEffect(() => {
    if (version > 0) latest.current({ requestPolicy: 'network-only' });
  }, [version]);
}

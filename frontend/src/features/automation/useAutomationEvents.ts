import { useEffect, useRef } from 'react';
import { useClient } from 'urql';
import { AutomationEventsDocument } from '../../graphql/generated';

/** Endpoint changes: the list reloads on them. */
export const endpointChangeTypes = ['automation.endpoint_created', 'automation.endpoint_updated', 'automation.endpoint_deleted'];

/** What happens at an endpoint: a call, a run finishing, or the endpoint changing. */
export const endpointActivityTypes = ['automation.published', 'automation.action_succeeded', 'automation.action_failed', ...endpointChangeTypes];

/** The endpoint an automation event is about: data.endpoint_id (calls, runs) or data.id (the endpoint's own events). */
export function eventEndpointId(data: unknown): string | undefined {
  if (!data || typeof data !== 'object') return undefined;
  const d = data as { id?: unknown; endpoint_id?: unknown };
  const id = d.endpoint_id ?? d.id;
  return typeof id === 'string' ? id : undefined;
}

/**
 * Calls onChange when an automation event of types happens (for endpointId only, when
 * given), from the `events` subscription. The event is the signal and the queries the
 * truth, so calls are coalesced: at most one per throttleMs, the last one trailing.
 */
export function useAutomationEvents(
  onChange: () => void,
  { types, endpointId, throttleMs = 1000 }: { types: string[]; endpointId?: string; throttleMs?: number },
) {
  const client = useClient();
  const callback = useRef(onChange);
  useEffect(() => {
    callback.current = onChange;
  });
  const typeKey = types.join(',');
  useEffect(() => {
    let last = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const fire = () => {
      last = Date.now();
      timer = undefined;
      callback.current();
    };
    const sub = client.subscription(AutomationEventsDocument, { types: typeKey.split(',') }).subscribe((r) => {
      const e = r.data?.events;
      if (!e || (endpointId && eventEndpointId(e.data) !== endpointId)) return;
      if (timer) return; // a reload is already due
      const wait = last + throttleMs - Date.now();
      if (wait <= 0) fire();
      else timer = setTimeout(fire, wait);
    });
    return () => {
      sub.unsubscribe();
      if (timer) clearTimeout(timer);
    };
  }, [client, endpointId, throttleMs, typeKey]);
}

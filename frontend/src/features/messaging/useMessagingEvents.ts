import { useEffect, useRef } from 'react';
import { useClient } from 'urql';
import { MessagingEventsDocument } from '../../graphql/generated';

/**
 * Calls onEvent with the type of every new event of the workspace (of one instance when
 * instanceId is given) whose type starts with one of prefixes, from the `events`
 * subscription. Pages refetch what the event changed: the event is the signal, the query the
 * truth, so nothing is lost if two events arrive together.
 */
export function useMessagingEvents(instanceId: string | null, prefixes: string[], onEvent: (type: string) => void, enabled = true) {
  const client = useClient();
  const callback = useRef(onEvent);
  useEffect(() => {
    callback.current = onEvent;
  });
  const key = prefixes.join(',');
  useEffect(() => {
    if (!enabled) return;
    const wanted = key.split(',');
    const sub = client.subscription(MessagingEventsDocument, { types: null, instanceId }).subscribe((r) => {
      const type = r.data?.events.type;
      if (type && wanted.some((p) => type.startsWith(p))) callback.current(type);
    });
    return () => sub.unsubscribe();
  }, [client, instanceId, key, enabled]);
}

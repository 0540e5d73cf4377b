import { createContext, useContext, useEffect, useState, useSyncExternalStore } from 'react';
import type { ConnectionState, ConsoleClient } from './client';
import type { ReachabilityState } from './reachability';

export interface ClientContextValue {
  consoleClient: ConsoleClient;
  /** Drops every cached result and the websocket, e.g. after sign-in or sign-out. */
  reset: () => void;
}

export const ClientContext = createContext<ClientContextValue | null>(null);

function useClientContext(): ClientContextValue {
  const ctx = useContext(ClientContext);
  if (!ctx) throw new Error('ClientProvider missing');
  return ctx;
}

export function useResetClient(): () => void {
  return useClientContext().reset;
}

/** The state of the websocket used by subscriptions. */
export function useConnectionState(): ConnectionState {
  const { consoleClient } = useClientContext();
  const [state, setState] = useState<ConnectionState>('closed');
  useEffect(() => consoleClient.onConnectionState(setState), [consoleClient]);
  return state;
}

/** Whether Switchboard answers requests, when it last did, and a way to ask it again now. */
export function useReachability(): ReachabilityState & { retryNow: () => void } {
  const { reachability } = useClientContext().consoleClient;
  const state = useSyncExternalStore(reachability.subscribe, reachability.get);
  return { ...state, retryNow: reachability.retryNow };
}

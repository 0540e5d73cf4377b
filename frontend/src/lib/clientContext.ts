import { createContext, useContext, useEffect, useState } from 'react';
import type { ConnectionState, ConsoleClient } from './client';

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

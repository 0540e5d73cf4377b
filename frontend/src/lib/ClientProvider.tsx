import { useCallback, useEffect, useMemo, useState, type ReactNode } from 'react';
import { Provider } from 'urql';
import { createConsoleClient, type ConsoleClient } from './client';
import { ClientContext } from './clientContext';

/** Provides the one GraphQL client; reset() replaces it (new cache, new websocket). */
export function ClientProvider({ children, create = createConsoleClient }: { children: ReactNode; create?: () => ConsoleClient }) {
  const [consoleClient, setConsoleClient] = useState(create);
  useEffect(() => () => consoleClient.dispose(), [consoleClient]);
  const reset = useCallback(() => setConsoleClient(create()), [create]);
  const value = useMemo(() => ({ consoleClient, reset }), [consoleClient, reset]);
  return (
    <ClientContext.Provider value={value}>
      <Provider value={consoleClient.client}>{children}</Provider>
    </ClientContext.Provider>
  );
}

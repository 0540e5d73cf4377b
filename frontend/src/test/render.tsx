import { render, type RenderOptions } from '@testing-library/react';
import type { ReactElement } from 'react';
import { MemoryRouter, Route, Routes, type InitialEntry } from 'react-router';
import { Provider, type Client } from 'urql';
import { vi } from 'vitest';
import { ClientContext } from '../lib/clientContext';
import { SessionContext, type Session } from '../lib/session';
import { fakeConsoleClient } from './mockClient';

export const testSession: Session = {
  user: { id: 'usr_1', email: 'ada@example.com', name: 'Ada Lovelace' },
  workspace: { id: 'ws_1', name: "Ada's workspace", createdAt: '2025-01-01T00:00:00.000Z' },
};

/** Renders inside the providers the console uses: GraphQL client, router and session. */
export function renderWithClient(
  ui: ReactElement,
  { client, route = '/', path, session = testSession, ...options }: { client: Client; route?: InitialEntry; path?: string; session?: Session | null } & RenderOptions,
) {
  const reset = vi.fn();
  const tree = (
    <ClientContext.Provider value={{ consoleClient: fakeConsoleClient(client), reset }}>
      <Provider value={client}>
        <SessionContext.Provider value={session}>
          <MemoryRouter initialEntries={[route]}>
            {path ? (
              <Routes>
                <Route path={path} element={ui} />
                <Route path="*" element={<div data-testid="elsewhere" />} />
              </Routes>
            ) : (
              ui
            )}
          </MemoryRouter>
        </SessionContext.Provider>
      </Provider>
    </ClientContext.Provider>
  );
  return { reset, ...render(tree, options) };
}

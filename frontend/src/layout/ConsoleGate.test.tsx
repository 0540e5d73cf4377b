import { screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { lazy, Suspense } from 'react';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { mockClient } from '../test/mockClient';
import { renderWithClient, testSession } from '../test/render';
import { ConsoleGate } from './ConsoleGate';

// A page loaded on demand whose code cannot be downloaded (offline, or a new release).
const Unreachable = lazy(() => Promise.reject(new TypeError('Failed to fetch dynamically imported module: /user/assets/WebhooksPage-x.js')));

function Thrower(): never {
  throw new Error('boom');
}

function renderConsole(route: string) {
  const { client } = mockClient({
    Viewer: () => ({ data: { viewer: { user: testSession.user, workspace: testSession.workspace } } }),
    EnsureWorkspace: () => ({ data: { ensureWorkspace: testSession.workspace } }),
  });
  return renderWithClient(
    <Routes>
      <Route path="/api" element={<ConsoleGate />}>
        <Route index element={<h1>Overview</h1>} />
        <Route
          path="webhooks"
          element={
            <Suspense fallback={null}>
              <Unreachable />
            </Suspense>
          }
        />
        <Route path="broken" element={<Thrower />} />
      </Route>
    </Routes>,
    { client, route },
  );
}

describe('ConsoleGate', () => {
  it('keeps the console and shows an error when a page’s code cannot be downloaded', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderConsole('/api/webhooks');
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load this page');
    expect(alert).toHaveTextContent('Check your connection');
    expect(screen.getByRole('button', { name: /try again/i })).toBeInTheDocument();
    // The navigation stays, so the user can go elsewhere.
    expect(screen.getByRole('link', { name: 'Overview' })).toBeInTheDocument();
    vi.restoreAllMocks();
  });

  it('shows an error in place of a page that fails to render, and leaves it behind on another page', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {});
    renderConsole('/api/broken');
    expect(await screen.findByRole('alert')).toHaveTextContent('Something went wrong while showing this page');
    await userEvent.click(screen.getByRole('link', { name: 'Overview' }));
    expect(await screen.findByRole('heading', { name: 'Overview' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
    vi.restoreAllMocks();
  });
});

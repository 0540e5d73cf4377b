import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useQuery } from 'urql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Button } from '../components/Button';
import { ViewerDocument } from '../graphql/generated';
import { ClientProvider } from '../lib/ClientProvider';
import { ReachabilityNotice } from './ReachabilityNotice';

const viewer = {
  viewer: {
    __typename: 'Viewer',
    user: { __typename: 'User', id: 'usr_1', email: 'ada@example.com', name: 'Ada' },
    workspace: { __typename: 'Workspace', id: 'ws_1', name: 'Ada', createdAt: '2025-01-01T00:00:00Z' },
  },
};

const json = (body: unknown, status = 200) => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json' } });
const down = () => Promise.reject(new TypeError('Failed to fetch'));

/** A page with cached data and a Reload button, inside the console's real GraphQL client. */
function Page() {
  const [result, refetch] = useQuery({ query: ViewerDocument });
  return (
    <>
      <ReachabilityNotice />
      {result.error ? <p>Error: {result.error.message}</p> : <p>{result.data?.viewer.user?.email ?? 'Loading…'}</p>}
      <Button onClick={() => refetch({ requestPolicy: 'network-only' })}>Reload</Button>
    </>
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('ReachabilityNotice', () => {
  it('says the server cannot be reached while the page keeps its data, and goes once a request succeeds', async () => {
    const fetchMock = vi.fn().mockImplementation(() => Promise.resolve(json({ data: viewer })));
    vi.stubGlobal('fetch', fetchMock);
    const user = userEvent.setup();
    render(
      <ClientProvider>
        <Page />
      </ClientProvider>,
    );
    expect(await screen.findByText('ada@example.com')).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('');

    fetchMock.mockImplementation(down);
    await user.click(screen.getByRole('button', { name: 'Reload' }));
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(/^Can't reach Switchboard — showing data from \d\d:\d\d [AP]M; retrying…$/));
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
    expect(screen.queryByText(/^Error/)).not.toBeInTheDocument();

    fetchMock.mockImplementation(() => Promise.resolve(json({ data: viewer })));
    const before = fetchMock.mock.calls.length;
    await user.click(screen.getByRole('button', { name: 'Retry now' }));
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(''));
    expect(screen.queryByRole('button', { name: 'Retry now' })).not.toBeInTheDocument();
    // The probe, then the page's query fetched again.
    await waitFor(() => expect(fetchMock.mock.calls.length).toBeGreaterThanOrEqual(before + 2));
    const bodies = fetchMock.mock.calls.slice(before).map(([, init]) => String((init as RequestInit).body));
    expect(bodies[0]).toContain('__typename');
    expect(bodies.some((b) => b.includes('query Viewer'))).toBe(true);
  });

  it('counts a 5xx answer as unreachable, but not a GraphQL error', async () => {
    const fetchMock = vi.fn().mockImplementation(() => Promise.resolve(json({ data: viewer })));
    vi.stubGlobal('fetch', fetchMock);
    const user = userEvent.setup();
    render(
      <ClientProvider>
        <Page />
      </ClientProvider>,
    );
    await screen.findByText('ada@example.com');

    fetchMock.mockImplementation(() => Promise.resolve(json({ data: null, errors: [{ message: 'Not allowed', extensions: { code: 'FORBIDDEN' } }] })));
    await user.click(screen.getByRole('button', { name: 'Reload' }));
    expect(await screen.findByText(/Not allowed/)).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('');

    fetchMock.mockImplementation(() => Promise.resolve(new Response('Bad gateway', { status: 502, headers: { 'content-type': 'text/plain' } })));
    await user.click(screen.getByRole('button', { name: 'Reload' }));
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(/Can't reach Switchboard/));
  });
});

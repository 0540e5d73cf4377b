import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useQuery, useSubscription } from 'urql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Button } from '../components/Button';
import { LinkEventsDocument, ViewerDocument } from '../graphql/generated';
import { liveRetryDelay } from '../lib/client';
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

/**
 * A browser WebSocket to a graphql-transport-ws server that accepts every connection: the
 * test opens each socket (the server answers) or drops it (the server went away).
 */
class FakeSocket {
  static readonly CONNECTING = 0;
  static readonly OPEN = 1;
  static readonly CLOSING = 2;
  static readonly CLOSED = 3;
  static all: FakeSocket[] = [];
  readyState = FakeSocket.CONNECTING;
  sent: { type: string }[] = [];
  onopen: ((e: unknown) => void) | null = null;
  onclose: ((e: { code: number; reason: string }) => void) | null = null;
  onerror: ((e: unknown) => void) | null = null;
  onmessage: ((e: { data: string }) => void) | null = null;
  constructor(
    readonly url: string,
    readonly protocol: string,
  ) {
    FakeSocket.all.push(this);
  }
  send(data: string) {
    const message = JSON.parse(data) as { type: string };
    this.sent.push(message);
    if (message.type === 'connection_init') queueMicrotask(() => this.onmessage?.({ data: JSON.stringify({ type: 'connection_ack' }) }));
  }
  close(code = 1000, reason = '') {
    if (this.readyState === FakeSocket.CLOSED) return;
    this.readyState = FakeSocket.CLOSED;
    this.onclose?.({ code, reason });
  }
  open() {
    this.readyState = FakeSocket.OPEN;
    this.onopen?.({});
  }
  /** The connection breaks (server down): the browser reports close code 1006. */
  drop() {
    this.close(1006);
  }
}

/** A page with live updates (a subscription) and a query, as the Instances and Links pages have. */
function LivePage() {
  useSubscription({ query: LinkEventsDocument, variables: { types: ['link.created'] } });
  const [result] = useQuery({ query: ViewerDocument });
  return (
    <>
      <ReachabilityNotice />
      <p>{result.data?.viewer.user?.email ?? 'Loading…'}</p>
    </>
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
  FakeSocket.all = [];
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

  it('says so on every page as soon as the live connection drops, and clears once it is back', async () => {
    const fetchMock = vi.fn().mockImplementation(() => Promise.resolve(json({ data: viewer })));
    vi.stubGlobal('fetch', fetchMock);
    vi.stubGlobal('WebSocket', FakeSocket);
    render(
      <ClientProvider>
        <LivePage />
      </ClientProvider>,
    );
    expect(await screen.findByText('ada@example.com')).toBeInTheDocument();
    await waitFor(() => expect(FakeSocket.all).toHaveLength(1));
    act(() => FakeSocket.all[0]?.open());
    await waitFor(() => expect(FakeSocket.all[0]?.sent.map((m) => m.type)).toContain('subscribe'));
    expect(screen.getByRole('status')).toHaveTextContent('');

    // The server goes away: the notice shows without the user doing anything.
    fetchMock.mockImplementation(down);
    act(() => FakeSocket.all[0]?.drop());
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(/^Can't reach Switchboard — showing data from .*; retrying…$/));
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();

    // The first reconnect comes quickly; once connected the notice goes and the page is fetched again.
    fetchMock.mockImplementation(() => Promise.resolve(json({ data: viewer })));
    await waitFor(() => expect(FakeSocket.all).toHaveLength(2), { timeout: 3000 });
    const fetches = fetchMock.mock.calls.length;
    act(() => FakeSocket.all[1]?.open());
    await waitFor(() => expect(screen.getByRole('status')).toHaveTextContent(''));
    await waitFor(() => expect(FakeSocket.all[1]?.sent.map((m) => m.type)).toContain('subscribe'));
    await waitFor(() => expect(fetchMock.mock.calls.length).toBeGreaterThan(fetches));
  });

  it('says only live updates are missing when the server answers but its live connection fails', async () => {
    const fetchMock = vi.fn().mockImplementation(() => Promise.resolve(json({ data: viewer })));
    vi.stubGlobal('fetch', fetchMock);
    vi.stubGlobal('WebSocket', FakeSocket);
    render(
      <ClientProvider>
        <LivePage />
      </ClientProvider>,
    );
    expect(await screen.findByText('ada@example.com')).toBeInTheDocument();
    await waitFor(() => expect(FakeSocket.all).toHaveLength(1));
    // A proxy that does not pass websockets: the socket never opens, requests still work.
    act(() => FakeSocket.all[0]?.drop());
    await waitFor(() =>
      expect(screen.getByRole('status')).toHaveTextContent(
        'Live updates are paused: Switchboard answers, but its live connection fails (a proxy in front may not pass websockets); retrying…',
      ),
    );
    expect(screen.getByText('ada@example.com')).toBeInTheDocument();
  });

  it('retries the live connection quickly at first, then at most every 10 s', () => {
    expect([0, 1, 2, 3, 4, 5, 6, 20].map(liveRetryDelay)).toEqual([500, 1000, 2000, 4000, 8000, 10_000, 10_000, 10_000]);
  });
});


import { act, render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useQuery } from 'urql';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Button } from '../components/Button';
import { ViewerDocument } from '../graphql/generated';
import { ClientProvider } from './ClientProvider';

const viewer = (email: string) => ({
  data: {
    viewer: {
      __typename: 'Viewer',
      user: { __typename: 'User', id: 'usr_1', email, name: 'Ada' },
      workspace: { __typename: 'Workspace', id: 'ws_1', name: 'Ada', createdAt: '2025-01-01T00:00:00Z' },
    },
  },
});

/** The browser's fetch, answering when the test says; counts requests aborted before their answer (net::ERR_ABORTED). */
function slowServer() {
  const requests: { answer: (body: unknown) => void }[] = [];
  let aborted = 0;
  const fetchMock = vi.fn(
    (_url: string, init: RequestInit) =>
      new Promise<Response>((resolve, reject) => {
        let answered = false;
        init.signal?.addEventListener('abort', () => {
          if (answered) return;
          aborted++;
          reject(new DOMException('The user aborted a request.', 'AbortError'));
        });
        requests.push({
          answer: (body) => {
            answered = true;
            resolve(new Response(JSON.stringify(body), { status: 200, headers: { 'content-type': 'application/json' } }));
          },
        });
      }),
  );
  return { fetchMock, requests, aborted: () => aborted };
}

/** A page whose query is refetched from the network on a live event (here: a button). */
function Page() {
  const [result, refetch] = useQuery({ query: ViewerDocument });
  const [other] = useQuery({ query: ViewerDocument, variables: { unused: 1 } as never });
  return (
    <>
      <p>{result.data?.viewer.user?.email ?? 'Loading…'}</p>
      <p>{other.data ? 'other loaded' : 'other loading'}</p>
      <Button onClick={() => refetch({ requestPolicy: 'network-only' })}>Live event</Button>
    </>
  );
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('refetches while a query is in flight', () => {
  it('are coalesced: nothing is aborted, and one more request runs when the first ends', async () => {
    const server = slowServer();
    vi.stubGlobal('fetch', server.fetchMock);
    const user = userEvent.setup();
    render(
      <ClientProvider>
        <Page />
      </ClientProvider>,
    );
    // The page's query and another one (different variables) are both sent at once.
    await waitFor(() => expect(server.requests).toHaveLength(2));
    const [first, other] = server.requests as [(typeof server.requests)[0], (typeof server.requests)[0]];

    // Three live events while the first request runs: no new request, none aborted.
    await user.click(screen.getByRole('button', { name: 'Live event' }));
    await user.click(screen.getByRole('button', { name: 'Live event' }));
    await user.click(screen.getByRole('button', { name: 'Live event' }));
    await act(() => new Promise((r) => setTimeout(r, 20)));
    expect(server.requests).toHaveLength(2);
    expect(server.aborted()).toBe(0);

    // The first answer is shown, and one request follows for the three events.
    act(() => first.answer(viewer('old@example.com')));
    expect(await screen.findByText('old@example.com')).toBeInTheDocument();
    await waitFor(() => expect(server.requests).toHaveLength(3));
    act(() => server.requests[2]?.answer(viewer('new@example.com')));
    expect(await screen.findByText('new@example.com')).toBeInTheDocument();

    act(() => other.answer(viewer('other@example.com')));
    expect(await screen.findByText('other loaded')).toBeInTheDocument();
    await act(() => new Promise((r) => setTimeout(r, 20)));
    expect(server.requests).toHaveLength(3);
    expect(server.aborted()).toBe(0);
  });
});

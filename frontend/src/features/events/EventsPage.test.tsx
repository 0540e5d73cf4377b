import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useLocation } from 'react-router';
import { describe, expect, it } from 'vitest';
import { makeSubject } from 'wonka';
import { mockClient, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { EventsPage } from './EventsPage';

/** Shows the page's query string, as the address bar would. */
function Address() {
  return <output data-testid="address">{useLocation().search}</output>;
}

function event(id: string, type: string, ts: string) {
  return { __typename: 'Event', id, type, timestamp: ts, workspaceId: 'ws_1', data: { id } };
}

describe('EventsPage', () => {
  it('shows recent events, then live ones newest first; pause holds them back; filter resubscribes', async () => {
    const user = userEvent.setup();
    const live = makeSubject<MockResponse>();
    const subscriptions: Record<string, unknown>[] = [];
    const recent: Record<string, unknown>[] = [];
    const { client } = mockClient({
      EventTypes: () => ({
        data: {
          eventTypes: [
            { type: 'api_key.created', description: 'A key was created', sample: {} },
            { type: 'api_key.revoked', description: 'A key was revoked', sample: {} },
          ],
        },
      }),
      RecentEvents: (vars) => {
        recent.push(vars);
        return { data: { events: { nodes: [event('evt_1', 'workspace.created', '2025-01-01T00:00:00.000Z')], hasMore: false, nextCursor: null } } };
      },
      LiveEvents: (vars) => {
        subscriptions.push(vars);
        return live.source;
      },
    });
    renderWithClient(<EventsPage />, { client });
    const list = await screen.findByRole('list', { name: /events, newest first/i });
    expect(within(list).getByText('workspace.created')).toBeInTheDocument();
    await waitFor(() => expect(subscriptions).toHaveLength(1));
    // Resumes after the newest event loaded, so nothing is missed in between.
    expect(subscriptions[0]).toMatchObject({ after: 'evt_1', types: null });

    act(() => live.next({ data: { events: event('evt_2', 'api_key.created', '2025-01-01T00:00:01.000Z') } }));
    const items = await within(list).findAllByRole('listitem');
    expect(items[0]).toHaveTextContent('api_key.created');
    expect(screen.getByText('Live')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Pause' }));
    act(() => live.next({ data: { events: event('evt_3', 'api_key.revoked', '2025-01-01T00:00:02.000Z') } }));
    expect(within(list).queryByText('api_key.revoked')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Resume (1 new)' }));
    expect(within(list).getAllByRole('listitem')[0]).toHaveTextContent('api_key.revoked');

    await user.click(screen.getByRole('button', { name: 'api_key.created' }));
    await waitFor(() => expect(subscriptions).toHaveLength(2));
    expect(recent.at(-1)).toMatchObject({ types: ['api_key.created'] });
    expect(subscriptions[1]).toMatchObject({ types: ['api_key.created'] });
  });

  it('shows an empty state while waiting for the first event', async () => {
    const { client } = mockClient({
      EventTypes: () => ({ data: { eventTypes: [] } }),
      RecentEvents: () => ({ data: { events: { nodes: [], hasMore: false, nextCursor: null } } }),
      LiveEvents: () => makeSubject<MockResponse>().source,
    });
    renderWithClient(<EventsPage />, { client });
    expect(await screen.findByText('Waiting for events')).toBeInTheDocument();
  });

  it('keeps the type filter in the URL, so a reload or Back shows the same events', async () => {
    const user = userEvent.setup();
    const recent: Record<string, unknown>[] = [];
    const { client } = mockClient({
      EventTypes: () => ({
        data: {
          eventTypes: [
            { type: 'api_key.created', description: 'A key was created', sample: {} },
            { type: 'link.created', description: 'A link was created', sample: {} },
          ],
        },
      }),
      RecentEvents: (vars) => {
        recent.push(vars);
        return { data: { events: { nodes: [], hasMore: false, nextCursor: null } } };
      },
      LiveEvents: () => makeSubject<MockResponse>().source,
    });
    renderWithClient(
      <>
        <EventsPage />
        <Address />
      </>,
      { client, route: '/api/events?type=link.created' },
    );
    expect(await screen.findByRole('button', { name: 'link.created' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByRole('button', { name: 'All' })).toHaveAttribute('aria-pressed', 'false');
    await waitFor(() => expect(recent[0]).toMatchObject({ types: ['link.created'] }));

    await user.click(screen.getByRole('button', { name: 'api_key.created' }));
    expect(screen.getByTestId('address')).toHaveTextContent('?type=api_key.created&type=link.created');
    await waitFor(() => expect(recent.at(-1)).toMatchObject({ types: ['api_key.created', 'link.created'] }));
    await user.click(screen.getByRole('button', { name: 'All' }));
    expect(screen.getByTestId('address')).toHaveTextContent(/^$/);
  });
});


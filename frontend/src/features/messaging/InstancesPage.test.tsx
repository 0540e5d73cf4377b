import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import { mockClient, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { instance } from './fixtures';
import InstancesPage from './InstancesPage';

describe('InstancesPage', () => {
  it('creates a sandbox instance with auto-pair and connect', async () => {
    const user = userEvent.setup();
    const create = vi.fn(() => ({ data: { createInstance: instance({ status: 'connecting', address: null }) } }));
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [], hasMore: false } } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
      CreateInstance: create,
    });
    renderWithClient(<InstancesPage />, { client });
    await user.click(await screen.findByRole('button', { name: 'Create your first instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'New instance' });
    await user.click(within(dialog).getByRole('button', { name: 'Create instance' }));
    expect(within(dialog).getByText(/enter a name/i)).toBeInTheDocument();
    await user.type(within(dialog).getByLabelText('Name'), 'Support');
    await user.click(within(dialog).getByLabelText(/pair automatically/i));
    await user.click(within(dialog).getByRole('button', { name: 'Create instance' }));
    await waitFor(() => expect(create).toHaveBeenCalled());
    expect((create.mock.calls[0] as unknown as [{ input: unknown }])[0].input).toEqual({
      name: 'Support',
      channel: 'sandbox',
      config: { auto_pair: true },
      connect: true,
    });
    expect(await screen.findByRole('status')).toHaveTextContent('Instance Alpha created');
  });

  it('shows the pairing QR code and code, pairs with Pair now, and follows status events live', async () => {
    const user = userEvent.setup();
    const events = makeSubject<MockResponse>();
    let current = instance({ status: 'pairing', address: null });
    const pair = vi.fn(() => {
      current = instance();
      return { data: { pairSandboxInstance: current } };
    });
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [current], hasMore: false } } }),
      InstancePairing: () => ({
        data: { instancePairing: { instanceId: 'inst_a', pairingCode: 'ABCD-EFGH', qrCode: 'data:image/png;base64,iVBORw0KGgo=', expiresAt: '2099-01-01T00:00:00.000Z' } },
      }),
      MessagingEvents: () => events.source,
      PairSandboxInstance: pair,
    });
    renderWithClient(<InstancesPage />, { client });
    const qr = await screen.findByRole('img', { name: 'Pairing QR code for Alpha' });
    expect(qr).toHaveAttribute('src', 'data:image/png;base64,iVBORw0KGgo=');
    expect(screen.getByText('ABCD-EFGH')).toBeInTheDocument();
    expect(screen.getByText('Waiting for pairing')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Pair Alpha now' }));
    await waitFor(() => expect(pair).toHaveBeenCalledWith({ id: 'inst_a' }, expect.anything()));
    expect(await screen.findByText('Connected')).toBeInTheDocument();
    expect(screen.queryByRole('img', { name: /pairing qr code/i })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Open conversations of Alpha' })).toHaveAttribute('href', '/api/messages?instance=inst_a');

    // The channel drops the instance: the status event refreshes the list.
    current = instance({ status: 'failed', statusReason: 'session ended' });
    act(() => events.next({ data: { events: { __typename: 'Event', id: 'evt_1', type: 'instance.status_changed' } } }));
    expect(await screen.findByText('Failed')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Connect Alpha' })).toBeInTheDocument();
  });

  it('shows an error with a retry when instances cannot load', async () => {
    const { client } = mockClient({
      Instances: () => ({ errors: [{ message: 'missing scope instances:read', extensions: { code: 'FORBIDDEN' } }] }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
    });
    renderWithClient(<InstancesPage />, { client });
    expect(await screen.findByRole('alert')).toHaveTextContent('missing scope instances:read');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });
});

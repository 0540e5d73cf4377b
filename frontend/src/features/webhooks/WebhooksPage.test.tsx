import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { mockClient } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import WebhooksPage from './WebhooksPage';

const hook = {
  __typename: 'Webhook',
  id: 'wh_1',
  url: 'https://example.com/hook',
  description: '',
  eventTypes: ['*'],
  instanceId: null,
  enabled: true,
  disabledReason: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

describe('WebhooksPage', () => {
  it('creates an endpoint and shows its signing secret once', async () => {
    const user = userEvent.setup();
    const create = vi.fn(() => ({ data: { createWebhook: { secret: 'whsec_c2VjcmV0', webhook: hook } } }));
    const { client } = mockClient({
      Webhooks: () => ({ data: { webhooks: [] } }),
      EventTypes: () => ({ data: { eventTypes: [{ type: 'api_key.created', description: 'A key was created', sample: {} }] } }),
      CreateWebhook: create,
    });
    renderWithClient(<WebhooksPage />, { client });
    await user.click(await screen.findByRole('button', { name: /add your first endpoint/i }));
    const dialog = await screen.findByRole('dialog', { name: 'Add webhook endpoint' });
    await user.type(within(dialog).getByLabelText('Endpoint URL'), 'not a url');
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    expect(within(dialog).getByText(/enter the full url/i)).toBeInTheDocument();

    await user.clear(within(dialog).getByLabelText('Endpoint URL'));
    await user.type(within(dialog).getByLabelText('Endpoint URL'), 'https://example.com/hook');
    await user.click(within(dialog).getByRole('radio', { name: 'Selected events' }));
    await user.click(await within(dialog).findByRole('checkbox', { name: /api_key\.created/ }));
    await user.click(within(dialog).getByRole('button', { name: 'Add endpoint' }));
    await waitFor(() => expect(create).toHaveBeenCalled());
    expect((create.mock.calls[0] as unknown as [{ input: unknown }])[0].input).toEqual({
      url: 'https://example.com/hook',
      description: null,
      eventTypes: ['api_key.created'],
      instanceId: null,
      enabled: true,
    });
    const secret = await screen.findByRole('dialog', { name: 'Save your signing secret' });
    expect(within(secret).getByText('whsec_c2VjcmV0')).toBeInTheDocument();
    await user.click(within(secret).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText('whsec_c2VjcmV0')).not.toBeInTheDocument());
  });

  it('lists endpoints with their status', async () => {
    const { client } = mockClient({
      Webhooks: () => ({ data: { webhooks: [hook, { ...hook, id: 'wh_2', enabled: false, disabledReason: 'failing for 5 days' }] } }),
    });
    renderWithClient(<WebhooksPage />, { client });
    const table = await screen.findByRole('table', { name: 'Webhook endpoints' });
    expect(within(table).getAllByRole('link', { name: 'https://example.com/hook' })).toHaveLength(2);
    expect(within(table).getByText('Enabled')).toBeInTheDocument();
    expect(within(table).getByText('Disabled')).toHaveAttribute('title', 'failing for 5 days');
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { mockClient, type Handler } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import WebhookDetailPage from './WebhookDetailPage';

const hook = {
  __typename: 'Webhook',
  id: 'wh_1',
  url: 'https://example.com/hook',
  description: 'Orders',
  eventTypes: ['api_key.created'],
  instanceId: null,
  enabled: true,
  disabledReason: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  updatedAt: '2025-01-01T00:00:00.000Z',
};

const delivery = {
  __typename: 'WebhookDelivery',
  id: 'whd_1',
  webhookId: 'wh_1',
  eventId: 'evt_1',
  eventType: 'api_key.created',
  status: 'failed',
  nextAttemptAt: null,
  createdAt: '2025-01-01T00:00:00.000Z',
  attempts: [
    { attemptedAt: '2025-01-01T00:00:00.000Z', statusCode: 500, latencyMs: 12, responseBody: 'upstream exploded', error: null },
    { attemptedAt: '2025-01-01T00:00:05.000Z', statusCode: null, latencyMs: 15000, responseBody: null, error: 'timeout' },
  ],
};

function setup(extra: Record<string, Handler> = {}) {
  return mockClient({
    Webhook: () => ({ data: { webhook: hook } }),
    WebhookDeliveries: () => ({ data: { webhookDeliveries: { nodes: [delivery], hasMore: false, nextCursor: null } } }),
    EventTypes: () => ({ data: { eventTypes: [{ type: 'api_key.created', description: 'x', sample: {} }] } }),
    ...extra,
  });
}

describe('WebhookDetailPage', () => {
  it('shows deliveries with their attempts and retries a failed one', async () => {
    const user = userEvent.setup();
    const retry = vi.fn(() => ({ data: { retryWebhookDelivery: { ...delivery, status: 'pending' } } }));
    const { client } = setup({ RetryWebhookDelivery: retry });
    renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
    const table = await screen.findByRole('table', { name: 'Deliveries' });
    expect(within(table).getByText('timeout')).toBeInTheDocument();
    await user.click(within(table).getByRole('button', { name: 'Show attempts of whd_1' }));
    expect(within(table).getByText('upstream exploded')).toBeInTheDocument();
    expect(within(table).getByText('15000 ms')).toBeInTheDocument();
    await user.click(within(table).getByRole('button', { name: 'Retry delivery whd_1' }));
    await waitFor(() => expect(retry).toHaveBeenCalledWith({ webhookId: 'wh_1', deliveryId: 'whd_1' }, expect.anything()));
  });

  it('rotates the secret after confirmation and shows the new one once', async () => {
    const user = userEvent.setup();
    const { client } = setup({
      RotateWebhookSecret: () => ({
        data: { rotateWebhookSecret: { secret: 'whsec_bmV3', previousSecretExpiresAt: '2025-01-02T00:00:00.000Z', webhook: hook } },
      }),
    });
    renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
    await user.click(await screen.findByRole('button', { name: 'Rotate signing secret' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Rotate signing secret?' });
    expect(confirm).toHaveTextContent('24 hours');
    await user.click(within(confirm).getByRole('button', { name: 'Rotate secret' }));
    const secret = await screen.findByRole('dialog', { name: 'Save your new signing secret' });
    expect(within(secret).getByText('whsec_bmV3')).toBeInTheDocument();
    expect(within(secret).getByText(/previous secret keeps signing/)).toBeInTheDocument();
    await user.click(within(secret).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByText('whsec_bmV3')).not.toBeInTheDocument());
  });

  it('sends a test event of the chosen type, and says what became of it as the deliveries table does', async () => {
    const user = userEvent.setup();
    const sent = { ...delivery, id: 'whd_2', status: 'pending', eventType: 'api_key.created', attempts: [] };
    const delivered = {
      ...sent,
      status: 'succeeded',
      attempts: [{ attemptedAt: '2025-01-01T00:00:01.000Z', statusCode: 200, latencyMs: 9, responseBody: 'ok', error: null }],
    };
    // The delivery is made a moment after the test event is queued.
    let list: unknown[] = [delivery];
    const test = vi.fn(() => {
      list = [sent, delivery];
      setTimeout(() => (list = [delivered, delivery]), 300);
      return { data: { testWebhook: sent } };
    });
    const { client } = setup({
      TestWebhook: test,
      WebhookDeliveries: () => ({ data: { webhookDeliveries: { nodes: list, hasMore: false, nextCursor: null } } }),
    });
    renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
    await user.selectOptions(await screen.findByLabelText('Event type'), 'api_key.created');
    await user.click(screen.getByRole('button', { name: 'Send test event' }));
    const status = await screen.findByText(/^Test event api_key.created \(whd_2\)/);
    expect(status).toHaveTextContent('Test event api_key.created (whd_2) sent; waiting for the endpoint to answer…');
    expect(test).toHaveBeenCalledWith({ id: 'wh_1', eventType: 'api_key.created' }, expect.anything());

    await waitFor(() => expect(status).toHaveTextContent('Test event api_key.created (whd_2) delivered: the endpoint answered 200.'), { timeout: 4000 });
    // The table, fetched again with it, agrees.
    const row = screen.getByRole('button', { name: 'Show attempts of whd_2' }).closest('tr') as HTMLElement;
    expect(within(row).getByText('succeeded')).toBeInTheDocument();
  });

  it('says plainly when the endpoint does not exist', async () => {
    const { client } = mockClient({
      Webhook: () => ({ errors: [{ message: 'webhook not found', extensions: { code: 'NOT_FOUND' } }] }),
      EventTypes: () => ({ data: { eventTypes: [] } }),
    });
    renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_x', path: '/api/webhooks/:id' });
    expect(await screen.findByRole('alert')).toHaveTextContent('Endpoint not found');
    expect(screen.queryByRole('button', { name: /try again/i })).not.toBeInTheDocument();
  });

  it('deletes after confirmation and goes back to the list', async () => {
    const user = userEvent.setup();
    const del = vi.fn(() => ({ data: { deleteWebhook: true } }));
    const { client } = setup({ DeleteWebhook: del });
    renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
    await user.click(await screen.findByRole('button', { name: 'Delete endpoint' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Delete endpoint' }));
    expect(await screen.findByTestId('elsewhere')).toBeInTheDocument();
    expect(del).toHaveBeenCalledWith({ id: 'wh_1' }, expect.anything());
  });
});

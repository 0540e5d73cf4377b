import { fireEvent, screen, waitFor, within } from '@testing-library/react';
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

  describe('recover failed deliveries', () => {
    const open = async (user: ReturnType<typeof userEvent.setup>) => {
      await user.click(await screen.findByRole('button', { name: 'Recover failed deliveries' }));
      return screen.findByRole('dialog', { name: 'Recover failed deliveries' });
    };

    it('sends the failed deliveries since the chosen time, says how many, and fetches the deliveries again', async () => {
      const user = userEvent.setup();
      const recover = vi.fn(() => ({ data: { recoverWebhookDeliveries: { __typename: 'WebhookRecovery', webhookId: 'wh_1', queued: 42, hasMore: false } } }));
      const list = vi.fn(() => ({ data: { webhookDeliveries: { nodes: [delivery], hasMore: false, nextCursor: null } } }));
      const { client } = setup({ RecoverWebhookDeliveries: recover, WebhookDeliveries: list });
      renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
      const dialog = await open(user);
      // Focus starts on the first choice, which is the one chosen.
      expect(within(dialog).getByRole('radio', { name: 'Last hour' })).toHaveFocus();
      expect(within(dialog).getByRole('radio', { name: 'Last hour' })).toBeChecked();
      await user.click(within(dialog).getByRole('radio', { name: 'Last 24 hours' }));
      const fetchesBefore = list.mock.calls.length;
      const before = Date.now();
      await user.click(within(dialog).getByRole('button', { name: 'Recover deliveries' }));
      const status = await within(dialog).findByRole('status');
      expect(status).toHaveTextContent('Queued 42 failed deliveries for another attempt.');
      expect(status).toHaveFocus();
      expect(recover).toHaveBeenCalledTimes(1);
      const vars = (recover.mock.calls[0] as unknown as [{ webhookId: string; since: string }])[0];
      expect(vars.webhookId).toBe('wh_1');
      const since = new Date(vars.since).getTime();
      expect(since).toBeGreaterThanOrEqual(before - 24 * 3_600_000);
      expect(since).toBeLessThanOrEqual(Date.now() - 24 * 3_600_000);
      await waitFor(() => expect(list.mock.calls.length).toBeGreaterThan(fetchesBefore));
      expect(within(dialog).queryByRole('button', { name: 'Recover more' })).not.toBeInTheDocument();
      await user.click(within(dialog).getByRole('button', { name: 'Done' }));
      await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
      expect(screen.getByRole('button', { name: 'Recover failed deliveries' })).toHaveFocus();
    });

    it('sends a custom time, and says when there was nothing to send', async () => {
      const user = userEvent.setup();
      const recover = vi.fn(() => ({ data: { recoverWebhookDeliveries: { __typename: 'WebhookRecovery', webhookId: 'wh_1', queued: 0, hasMore: false } } }));
      const { client } = setup({ RecoverWebhookDeliveries: recover });
      renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
      const dialog = await open(user);
      await user.click(within(dialog).getByRole('radio', { name: 'Custom time' }));
      fireEvent.change(within(dialog).getByLabelText('Since'), { target: { value: '2025-01-01T08:30' } });
      await user.click(within(dialog).getByRole('button', { name: 'Recover deliveries' }));
      expect(await within(dialog).findByRole('status')).toHaveTextContent(/^No failed deliveries since .*2025/);
      expect(recover).toHaveBeenCalledWith({ webhookId: 'wh_1', since: new Date('2025-01-01T08:30').toISOString() }, expect.anything());
    });

    it('recovers more with the same since while the server says more are left', async () => {
      const user = userEvent.setup();
      const answers = [
        { queued: 1000, hasMore: true },
        { queued: 5, hasMore: false },
      ];
      const recover = vi.fn(() => ({ data: { recoverWebhookDeliveries: { __typename: 'WebhookRecovery', webhookId: 'wh_1', ...answers.shift()! } } }));
      const { client } = setup({ RecoverWebhookDeliveries: recover });
      renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
      const dialog = await open(user);
      await user.click(within(dialog).getByRole('radio', { name: 'Last 7 days' }));
      await user.click(within(dialog).getByRole('button', { name: 'Recover deliveries' }));
      const status = await within(dialog).findByRole('status');
      expect(status).toHaveTextContent('Queued 1,000 failed deliveries for another attempt.');
      expect(status).toHaveTextContent(/More failed deliveries since .* are left/);
      await user.click(within(dialog).getByRole('button', { name: 'Recover more' }));
      await waitFor(() => expect(within(dialog).getByRole('status')).toHaveTextContent('Queued 1,005 failed deliveries for another attempt.'));
      expect(within(dialog).getByRole('status')).not.toHaveTextContent('are left');
      expect(recover).toHaveBeenCalledTimes(2);
      const calls = recover.mock.calls as unknown as [{ since: string }][];
      expect(calls[1]![0].since).toBe(calls[0]![0].since);
      expect(within(dialog).queryByRole('button', { name: 'Recover more' })).not.toBeInTheDocument();
      expect(within(dialog).getByRole('button', { name: 'Done' })).toBeInTheDocument();
    });

    it('shows an error naming since under the field, and a disabled endpoint at the top', async () => {
      const user = userEvent.setup();
      const errors = [
        { message: 'since is in the future', extensions: { code: 'INVALID', field: 'since' } },
        { message: 'the webhook endpoint is disabled; enable it first', extensions: { code: 'CONFLICT', reason: 'webhook_disabled' } },
      ];
      const recover = vi.fn(() => ({ errors: [errors.shift()!] }));
      const webhook = vi.fn(() => ({ data: { webhook: hook } }));
      const { client } = setup({ RecoverWebhookDeliveries: recover, Webhook: webhook });
      renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
      const dialog = await open(user);
      await user.click(within(dialog).getByRole('radio', { name: 'Custom time' }));
      const input = within(dialog).getByLabelText('Since');
      await user.click(within(dialog).getByRole('button', { name: 'Recover deliveries' }));
      expect(await within(dialog).findByRole('alert')).toHaveTextContent('since is in the future');
      expect(input).toHaveAttribute('aria-invalid', 'true');
      expect(input).toHaveAccessibleDescription(/since is in the future/);
      await waitFor(() => expect(input).toHaveFocus());

      const fetches = webhook.mock.calls.length;
      await user.click(within(dialog).getByRole('button', { name: 'Recover deliveries' }));
      await waitFor(() => expect(within(dialog).getByRole('alert')).toHaveTextContent('This endpoint is disabled. Enable it, then recover its failed deliveries.'));
      expect(input).not.toHaveAttribute('aria-invalid');
      // The page learns the endpoint is disabled.
      await waitFor(() => expect(webhook.mock.calls.length).toBeGreaterThan(fetches));
    });

    it('checks a custom time before sending it', async () => {
      const user = userEvent.setup();
      const recover = vi.fn();
      const { client } = setup({ RecoverWebhookDeliveries: recover });
      renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
      const dialog = await open(user);
      await user.click(within(dialog).getByRole('radio', { name: 'Custom time' }));
      const input = within(dialog).getByLabelText('Since');
      fireEvent.change(input, { target: { value: '' } });
      await user.click(within(dialog).getByRole('button', { name: 'Recover deliveries' }));
      expect(await within(dialog).findByRole('alert')).toHaveTextContent('Enter a date and time.');
      fireEvent.change(input, { target: { value: '2999-01-01T00:00' } });
      await user.click(within(dialog).getByRole('button', { name: 'Recover deliveries' }));
      expect(await within(dialog).findByRole('alert')).toHaveTextContent('Choose a time in the past.');
      expect(recover).not.toHaveBeenCalled();
    });

    it('is offered only while the endpoint is enabled and may have failed deliveries', async () => {
      const succeeded = { ...delivery, status: 'succeeded' };
      const { client } = setup({
        Webhook: () => ({ data: { webhook: { ...hook, enabled: false, disabledReason: 'Disabled by you' } } }),
      });
      const { unmount } = renderWithClient(<WebhookDetailPage />, { client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
      await screen.findByRole('table', { name: 'Deliveries' });
      expect(screen.queryByRole('button', { name: 'Recover failed deliveries' })).not.toBeInTheDocument();
      unmount();

      const none = setup({ WebhookDeliveries: () => ({ data: { webhookDeliveries: { nodes: [succeeded], hasMore: false, nextCursor: null } } }) });
      const second = renderWithClient(<WebhookDetailPage />, { client: none.client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
      await screen.findByRole('table', { name: 'Deliveries' });
      expect(screen.queryByRole('button', { name: 'Recover failed deliveries' })).not.toBeInTheDocument();
      second.unmount();

      // Older pages may hold failed ones.
      const more = setup({ WebhookDeliveries: () => ({ data: { webhookDeliveries: { nodes: [succeeded], hasMore: true, nextCursor: 'c1' } } }) });
      renderWithClient(<WebhookDetailPage />, { client: more.client, route: '/api/webhooks/wh_1', path: '/api/webhooks/:id' });
      expect(await screen.findByRole('button', { name: 'Recover failed deliveries' })).toBeInTheDocument();
    });
  });
});

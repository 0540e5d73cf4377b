import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import type { AutomationSubscriptionFieldsFragment } from '../../graphql/generated';
import { mockClient, type Handler, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { SubscriptionsSection } from './SubscriptionsSection';

const at = '2025-01-01T00:00:00.000Z';

function subscription(over: Partial<AutomationSubscriptionFieldsFragment> = {}): AutomationSubscriptionFieldsFragment {
  return {
    __typename: 'AutomationSubscription',
    id: 'sub_1',
    targetUrl: 'https://hooks.zapier.com/hooks/catch/1/abc',
    description: 'New orders zap',
    eventTypes: ['automation.published'],
    enabled: true,
    disabledReason: null,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

const list = (subs: AutomationSubscriptionFieldsFragment[]) => ({ data: { automationSubscriptions: subs } });

const eventTypes = {
  data: {
    eventTypes: [
      { __typename: 'EventType', type: 'automation.published', description: 'An endpoint accepted a call.', sample: {} },
      { __typename: 'EventType', type: 'message.received', description: 'A message arrived.', sample: {} },
      { __typename: 'EventType', type: 'webhook.test', description: 'A test delivery.', sample: {} },
    ],
  },
};

function setup(handlers: Record<string, Handler>) {
  const onToast = vi.fn();
  const { client } = mockClient({
    AutomationEvents: () => makeSubject<MockResponse>().source,
    EventTypes: () => eventTypes,
    ...handlers,
  });
  renderWithClient(<SubscriptionsSection onToast={onToast} />, { client });
  return { onToast };
}

describe('SubscriptionsSection', () => {
  it('lists subscriptions with their target, event types, status (and why disabled) and age', async () => {
    setup({
      AutomationSubscriptions: () =>
        list([
          subscription(),
          subscription({ id: 'sub_2', targetUrl: 'https://n8n.example.com/webhook/x', description: '', eventTypes: ['*'], enabled: false, disabledReason: 'Failing for 5 days.' }),
        ]),
    });
    const table = await screen.findByRole('table', { name: 'Subscriptions' });
    const [first, second] = within(table).getAllByRole('row').slice(1) as [HTMLElement, HTMLElement];
    expect(within(first).getByText('https://hooks.zapier.com/hooks/catch/1/abc')).toBeInTheDocument();
    expect(within(first).getByText('New orders zap')).toBeInTheDocument();
    expect(within(first).getByText('automation.published')).toBeInTheDocument();
    expect(within(first).getByText('Enabled')).toBeInTheDocument();
    expect(within(first).getByRole('button', { name: 'Delete subscription to https://hooks.zapier.com/hooks/catch/1/abc' })).toBeInTheDocument();
    expect(within(second).getByText('All events')).toBeInTheDocument();
    expect(within(second).getByText('Disabled')).toBeInTheDocument();
    expect(within(second).getByText('Failing for 5 days.')).toBeInTheDocument();
    expect(screen.getByRole('region', { name: 'Subscriptions (REST hooks)' })).toBeInTheDocument();
  });

  it('shows the error, and loads again on request to an empty list', async () => {
    const user = userEvent.setup();
    let fail = true;
    setup({ AutomationSubscriptions: () => (fail ? { errors: [{ message: 'boom', extensions: { code: 'FORBIDDEN' } }] } : list([])) });
    expect(await screen.findByRole('heading', { name: 'Could not load the subscriptions' })).toBeInTheDocument();
    expect(screen.getByText('boom')).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'No subscriptions yet' })).toBeInTheDocument();
  });

  it('subscribes a URL to chosen event types, puts a refusal under the field it names, and shows the secret once', async () => {
    const user = userEvent.setup();
    let subs: AutomationSubscriptionFieldsFragment[] = [];
    const create = vi.fn((v: Record<string, unknown>) => {
      const input = v.input as { targetUrl: string };
      if (input.targetUrl.includes('127.0.0.1')) {
        return { errors: [{ message: 'target_url targets a non-public address (loopback)', extensions: { code: 'INVALID', field: 'targetUrl' } }] };
      }
      const created = subscription({ id: 'sub_9', targetUrl: input.targetUrl, description: '' });
      subs = [created];
      return { data: { createAutomationSubscription: { __typename: 'CreateAutomationSubscriptionPayload', secret: 'whsec_s3cret', subscription: created } } };
    });
    const { onToast } = setup({ AutomationSubscriptions: () => list(subs), CreateAutomationSubscription: create });

    await user.click(await screen.findByRole('button', { name: 'Subscribe a URL' }));
    const dialog = await screen.findByRole('dialog', { name: 'Subscribe a URL to events' });
    const target = within(dialog).getByLabelText('Target URL');
    expect(target).toHaveFocus();

    // Checked in the browser first: nothing is sent.
    await user.click(within(dialog).getByRole('radio', { name: 'Selected events' }));
    await user.click(within(dialog).getByRole('button', { name: 'Subscribe' }));
    expect(target).toHaveAccessibleDescription(expect.stringContaining('Enter the URL'));
    expect(within(dialog).getByRole('group', { name: 'Events to send' })).toHaveAccessibleDescription('Choose at least one event type, or all events.');
    expect(create).not.toHaveBeenCalled();

    // The picker lists the catalog's types, except the one only sent by a webhook test.
    const picker = within(dialog).getByRole('group', { name: 'Event types' });
    await user.click(await within(picker).findByRole('checkbox', { name: /automation\.published/ }));
    expect(within(picker).queryByRole('checkbox', { name: /webhook\.test/ })).not.toBeInTheDocument();

    // The server's refusal lands under the field it names.
    await user.type(target, 'http://127.0.0.1:9/hook');
    await user.click(within(dialog).getByRole('button', { name: 'Subscribe' }));
    await waitFor(() => expect(target).toHaveAccessibleDescription(expect.stringContaining('non-public address')));

    await user.clear(target);
    await user.type(target, 'https://hooks.zapier.com/hooks/catch/9/xyz');
    await user.click(within(dialog).getByRole('button', { name: 'Subscribe' }));
    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'Subscribe a URL to events' })).not.toBeInTheDocument());
    expect(create).toHaveBeenLastCalledWith(
      { input: { targetUrl: 'https://hooks.zapier.com/hooks/catch/9/xyz', eventTypes: ['automation.published'] } },
      expect.anything(),
    );

    const secret = await screen.findByRole('dialog', { name: 'Save your subscription secret' });
    expect(within(secret).getByTestId('secret-value')).toHaveTextContent('whsec_s3cret');
    expect(within(secret).getByText('This is the only time the secret is shown.')).toBeInTheDocument();
    expect(secret).toHaveTextContent('Zapier ignores it');
    await user.click(within(secret).getByRole('button', { name: 'Copy' }));
    expect(await navigator.clipboard.readText()).toBe('whsec_s3cret');
    await user.click(within(secret).getByRole('button', { name: 'Done' }));
    expect(screen.queryByText('whsec_s3cret')).not.toBeInTheDocument();
    expect(onToast).toHaveBeenCalledWith('Subscribed https://hooks.zapier.com/hooks/catch/9/xyz');
    expect(await screen.findByText('https://hooks.zapier.com/hooks/catch/9/xyz')).toBeInTheDocument();
  }, 15_000);

  it('asks before deleting, and deletes only when confirmed', async () => {
    const user = userEvent.setup();
    let subs = [subscription()];
    const del = vi.fn(() => {
      subs = [];
      return { data: { deleteAutomationSubscription: true } };
    });
    const { onToast } = setup({ AutomationSubscriptions: () => list(subs), DeleteAutomationSubscription: del });
    const name = 'Delete subscription to https://hooks.zapier.com/hooks/catch/1/abc';

    await user.click(await screen.findByRole('button', { name }));
    let confirm = await screen.findByRole('alertdialog', { name: 'Delete this subscription?' });
    expect(within(confirm).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(del).not.toHaveBeenCalled();

    await user.click(screen.getByRole('button', { name }));
    confirm = await screen.findByRole('alertdialog', { name: 'Delete this subscription?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete subscription' }));
    await waitFor(() => expect(del).toHaveBeenCalledWith({ id: 'sub_1' }, expect.anything()));
    expect(await screen.findByRole('heading', { name: 'No subscriptions yet' })).toBeInTheDocument();
    expect(onToast).toHaveBeenCalledWith('Subscription to https://hooks.zapier.com/hooks/catch/1/abc deleted');
  });
});

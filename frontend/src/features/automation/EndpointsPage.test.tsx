import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import type { AutomationEndpointFieldsFragment } from '../../graphql/generated';
import { mockClient, type Handler, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import EndpointsPage from './EndpointsPage';
import { action, endpoint, hooksBase } from './fixtures';

const route = { route: '/api/automation', path: '/api/automation' };
const page = (nodes: AutomationEndpointFieldsFragment[], hasMore = false, nextCursor: string | null = null) => ({
  data: { automationEndpoints: { __typename: 'AutomationEndpointConnection', nodes, hasMore, nextCursor } },
});

function setup(handlers: Record<string, Handler>) {
  return mockClient({
    AutomationEvents: () => makeSubject<MockResponse>().source,
    AutomationSubscriptions: () => ({ data: { automationSubscriptions: [] } }),
    AutomationInstances: () => ({
      data: { instances: { __typename: 'InstanceConnection', nodes: [{ __typename: 'Instance', id: 'inst_1', name: 'Shop phone', channel: 'sandbox', status: 'connected' }] } },
    }),
    ...handlers,
  });
}

describe('EndpointsPage', () => {
  it('lists endpoints with their URL, verification, action and status, and copies a URL', async () => {
    const user = userEvent.setup();
    const { client } = setup({
      AutomationEndpoints: () =>
        page([
          endpoint(),
          endpoint({ id: 'pub_2', name: 'Leads', url: `${hooksBase}/tok_2`, verification: 'STANDARD_WEBHOOKS', action: null, enabled: false }),
        ]),
    });
    renderWithClient(<EndpointsPage />, { client, ...route });
    const table = await screen.findByRole('table', { name: 'Inbound endpoints' });
    const [first, second] = within(table).getAllByRole('row').slice(1) as [HTMLElement, HTMLElement];
    expect(within(first).getByRole('link', { name: 'New orders' })).toHaveAttribute('href', '/api/automation/pub_1');
    expect(within(first).getByText(`${hooksBase}/tok_abc123`)).toBeInTheDocument();
    expect(within(first).getByText('None')).toBeInTheDocument();
    expect(within(first).getByText('Create a short link')).toBeInTheDocument();
    expect(within(first).getByText('Enabled')).toBeInTheDocument();
    expect(within(second).getByText('Standard Webhooks')).toBeInTheDocument();
    expect(within(second).getByText('Disabled')).toBeInTheDocument();

    await user.click(within(first).getByRole('button', { name: 'Copy URL of New orders' }));
    expect(await navigator.clipboard.readText()).toBe(`${hooksBase}/tok_abc123`);
    expect(within(first).getByRole('button', { name: 'Copied URL of New orders' })).toBeInTheDocument();
  });

  it('shows the error, and loads again on request', async () => {
    const user = userEvent.setup();
    let fail = true;
    const { client } = setup({
      AutomationEndpoints: () => (fail ? { errors: [{ message: 'boom', extensions: { code: 'FORBIDDEN' } }] } : page([])),
    });
    renderWithClient(<EndpointsPage />, { client, ...route });
    expect(await screen.findByRole('heading', { name: 'Could not load the endpoints' })).toBeInTheDocument();
    fail = false;
    await user.click(screen.getByRole('button', { name: 'Try again' }));
    expect(await screen.findByRole('heading', { name: 'No endpoints yet' })).toBeInTheDocument();
  });

  it('creates an endpoint with a create_link action, previewing its templates, and shows the secret once', async () => {
    const user = userEvent.setup();
    let nodes: AutomationEndpointFieldsFragment[] = [];
    const create = vi.fn((v: Record<string, unknown>) => {
      const input = v.input as { action?: { url?: string } };
      if (input.action?.url === '{{payload.link}}') {
        return { errors: [{ message: 'action.url is not what we want', extensions: { code: 'INVALID', field: 'action.url' } }] };
      }
      const created = endpoint({ id: 'pub_9', name: 'Shop orders', verification: 'HEADER_TOKEN', action: action({ title: null }) });
      nodes = [created];
      return { data: { createAutomationEndpoint: { __typename: 'AutomationEndpointPayload', secret: 'sbt_s3cret', endpoint: created } } };
    });
    const { client } = setup({ AutomationEndpoints: () => page(nodes), CreateAutomationEndpoint: create });
    renderWithClient(<EndpointsPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Create your first endpoint' }));
    const dialog = await screen.findByRole('dialog', { name: 'New inbound endpoint' });
    expect(within(dialog).getByLabelText('Name')).toHaveFocus();

    // Checked in the browser first: nothing is sent.
    await user.click(within(dialog).getByRole('button', { name: 'Create endpoint' }));
    expect(within(dialog).getByLabelText('Name')).toHaveAccessibleDescription(expect.stringContaining('Enter a name'));
    expect(create).not.toHaveBeenCalled();

    await user.type(within(dialog).getByLabelText('Name'), 'Shop orders');
    await user.selectOptions(within(dialog).getByLabelText('Verification'), 'HEADER_TOKEN');
    await user.type(within(dialog).getByLabelText(/^Payload schema/), '{{"type": "object"');
    await user.click(within(dialog).getByRole('button', { name: 'Create endpoint' }));
    expect(within(dialog).getByLabelText(/^Payload schema/)).toHaveAccessibleDescription(expect.stringContaining('not valid JSON'));
    await user.type(within(dialog).getByLabelText(/^Payload schema/), '}');

    await user.selectOptions(within(dialog).getByLabelText('What to do with each call'), 'CREATE_LINK');
    const url = within(dialog).getByLabelText('Destination URL');
    await user.type(url, '{{{{payload.link}}');
    await user.click(within(dialog).getByLabelText(/^Title/));
    await user.paste('Order {{payload.order_id}} for {{payload.customer.email}}');

    // The preview renders each template against the sample payload; a missing field is an error.
    const preview = within(dialog).getByRole('region', { name: 'Preview' });
    const out = within(preview).getByTestId('template-preview');
    expect(out).toHaveTextContent('Destination URL');
    expect(out).toHaveTextContent('Error: {{payload.link}}: the payload has no payload.link');
    expect(out).toHaveTextContent('Error: {{payload.customer.email}}: the payload has no payload.customer.email');
    const sample = within(preview).getByLabelText('Sample payload');
    await user.clear(sample);
    await user.paste('{"link": "https://example.com/x", "order_id": 7, "customer": {"email": "a@example.com"}}');
    await waitFor(() => expect(out).toHaveTextContent('https://example.com/x'));
    expect(out).toHaveTextContent('Order 7 for a@example.com');
    expect(out).not.toHaveTextContent('Error');
    await user.type(sample, ',');
    expect(within(preview).getByLabelText('Sample payload')).toHaveAccessibleDescription(expect.stringContaining('not valid JSON'));

    // The server's refusal lands under the field it names.
    await user.click(within(dialog).getByRole('button', { name: 'Create endpoint' }));
    await waitFor(() => expect(url).toHaveAccessibleDescription(expect.stringContaining('action.url is not what we want')));
    await user.clear(url);
    await user.type(url, '{{{{payload.url}}');
    await user.click(within(dialog).getByRole('button', { name: 'Create endpoint' }));

    await waitFor(() => expect(screen.queryByRole('dialog', { name: 'New inbound endpoint' })).not.toBeInTheDocument());
    expect(create).toHaveBeenLastCalledWith(
      {
        input: {
          name: 'Shop orders',
          verification: 'HEADER_TOKEN',
          schema: { type: 'object' },
          action: { type: 'CREATE_LINK', url: '{{payload.url}}', title: 'Order {{payload.order_id}} for {{payload.customer.email}}' },
        },
      },
      expect.anything(),
    );
    const secret = await screen.findByRole('dialog', { name: 'Save your endpoint secret' });
    expect(within(secret).getByTestId('secret-value')).toHaveTextContent('sbt_s3cret');
    expect(within(secret).getByText('X-Switchboard-Token')).toBeInTheDocument();
    await user.click(within(secret).getByRole('button', { name: 'Done' }));
    expect(screen.queryByText('sbt_s3cret')).not.toBeInTheDocument();
    expect(screen.getByTestId('toast')).toHaveTextContent('Endpoint Shop orders created');
    expect(await screen.findByRole('link', { name: 'Shop orders' })).toBeInTheDocument();
  }, 15_000);

  it('offers the workspace’s instances for a send_message action', async () => {
    const user = userEvent.setup();
    const create = vi.fn(() => ({
      data: { createAutomationEndpoint: { __typename: 'AutomationEndpointPayload', secret: null, endpoint: endpoint({ action: action({ type: 'SEND_MESSAGE' }) }) } },
    }));
    const { client } = setup({ AutomationEndpoints: () => page([]), CreateAutomationEndpoint: create });
    renderWithClient(<EndpointsPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'New endpoint' }));
    const dialog = await screen.findByRole('dialog', { name: 'New inbound endpoint' });
    await user.type(within(dialog).getByLabelText('Name'), 'Thanks');
    await user.selectOptions(within(dialog).getByLabelText('What to do with each call'), 'SEND_MESSAGE');
    await user.click(within(dialog).getByRole('button', { name: 'Create endpoint' }));
    expect(within(dialog).getByLabelText('Instance')).toHaveAccessibleDescription(expect.stringContaining('Choose the instance'));
    await user.selectOptions(await within(dialog).findByLabelText('Instance'), 'inst_1');
    await user.type(within(dialog).getByLabelText('Recipient'), '{{{{payload.customer.phone}}');
    await user.type(within(dialog).getByLabelText(/^Text/), 'Thanks {{{{payload.customer.name}}!');
    expect(within(dialog).getByTestId('template-preview')).toHaveTextContent('Thanks Ada!');
    await user.click(within(dialog).getByRole('button', { name: 'Create endpoint' }));
    await waitFor(() => expect(create).toHaveBeenCalled());
    expect(create).toHaveBeenCalledWith(
      { input: { name: 'Thanks', action: { type: 'SEND_MESSAGE', instanceId: 'inst_1', to: '{{payload.customer.phone}}', text: 'Thanks {{payload.customer.name}}!' } } },
      expect.anything(),
    );
    // No verification, no secret to show.
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
  }, 15_000);
});

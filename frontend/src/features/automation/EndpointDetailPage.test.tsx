import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import type { AutomationEndpointFieldsFragment, AutomationRunFieldsFragment } from '../../graphql/generated';
import { mockClient, type Handler, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import EndpointDetailPage from './EndpointDetailPage';
import { call, endpoint, hooksBase, run } from './fixtures';

const route = { route: '/api/automation/pub_1', path: '/api/automation/:id' };
const detail = (e: AutomationEndpointFieldsFragment | null = endpoint()) => ({ data: { automationEndpoint: e } });
const calls = (nodes: ReturnType<typeof call>[]) => ({
  data: { automationCalls: { __typename: 'AutomationCallConnection', nodes, hasMore: false, nextCursor: null } },
});
const runs = (nodes: AutomationRunFieldsFragment[]) => ({
  data: { automationRuns: { __typename: 'AutomationRunConnection', nodes, hasMore: false, nextCursor: null } },
});

function setup(handlers: Record<string, Handler> = {}) {
  return mockClient({
    AutomationEndpoint: () => detail(),
    AutomationCalls: () => calls([call()]),
    AutomationRuns: () => runs([run()]),
    AutomationEvents: () => makeSubject<MockResponse>().source,
    ...handlers,
  });
}

describe('EndpointDetailPage', () => {
  it('shows the endpoint with its URL, its action, the calls with their payloads and the runs', async () => {
    const user = userEvent.setup();
    const { client } = setup({
      AutomationEndpoint: () => detail(endpoint({ schema: { type: 'object', required: ['url'] } })),
      AutomationRuns: () =>
        runs([
          run({ id: 'run_2', callId: 'evt_2', status: 'failed', output: null, error: '{{payload.url}}: the payload has no payload.url', durationMs: 1500 }),
          run(),
          run({ id: 'run_0', status: 'queued', input: null, output: null, attempts: 0 }),
        ]),
    });
    renderWithClient(<EndpointDetailPage />, { client, ...route });
    expect(await screen.findByRole('heading', { level: 1, name: 'New orders' })).toBeInTheDocument();
    expect(screen.getByTestId('endpoint-url')).toHaveTextContent(`${hooksBase}/tok_abc123`);
    await user.click(screen.getByRole('button', { name: 'Copy URL of New orders' }));
    expect(await navigator.clipboard.readText()).toBe(`${hooksBase}/tok_abc123`);

    const details = screen.getByRole('region', { name: 'Details' });
    expect(within(details).getByText('Create a short link')).toBeInTheDocument();
    expect(within(details).getByText('{{payload.url}}')).toBeInTheDocument();
    expect(within(details).getByText('Order {{payload.order_id}}')).toBeInTheDocument();
    expect(within(details).getByText(/"required": \[/)).toBeInTheDocument();

    const callTable = await screen.findByRole('table', { name: 'Recent calls' });
    const payload = within(callTable).getByText(/of evt_1:/).closest('summary')!;
    expect(payload).toHaveTextContent('Payload of evt_1: {"url":"https://example.com/x","order_id":"A-1"}');
    await user.click(payload);
    expect(within(callTable).getByText(/"order_id": "A-1"/)).toBeVisible();

    const runTable = await screen.findByRole('table', { name: 'Runs' });
    const failed = within(runTable).getByTestId('run-run_2');
    expect(within(failed).getByText('failed')).toBeInTheDocument();
    expect(within(failed).getByText('{{payload.url}}: the payload has no payload.url')).toBeInTheDocument();
    expect(within(failed).getByText('1.5 s')).toBeInTheDocument();
    const ok = within(runTable).getByTestId('run-run_1');
    expect(within(ok).getByText('succeeded')).toBeInTheDocument();
    expect(within(ok).getByText('12 ms')).toBeInTheDocument();
    const [input, output] = within(ok).getAllByText(/of run_1:/).map((el) => el.closest('summary')?.textContent ?? '');
    expect(input).toMatch(/^Input of run_1: .*"title":"Order A-1"/);
    expect(output).toMatch(/^Output of run_1: .*lnk_9/);
    expect(within(within(runTable).getByTestId('run-run_0')).getByText('Waiting to run')).toBeInTheDocument();
  });

  it('sends a test payload, checking it is JSON first, and reloads the calls and runs', async () => {
    const user = userEvent.setup();
    let sent = false;
    const test = vi.fn((v: Record<string, unknown>) => {
      const p = v.payload as { url?: unknown };
      if (typeof p.url !== 'string') {
        return { errors: [{ message: 'the payload does not match the endpoint’s schema at /url: want string', extensions: { code: 'INVALID', field: 'payload/url' } }] };
      }
      sent = true;
      return { data: { testAutomationEndpoint: call({ id: 'evt_9', payload: p }) } };
    });
    const { client } = setup({
      AutomationCalls: () => calls(sent ? [call({ id: 'evt_9', payload: { url: 'https://example.com/t' } }), call()] : [call()]),
      TestAutomationEndpoint: test,
    });
    renderWithClient(<EndpointDetailPage />, { client, ...route });
    const card = await screen.findByRole('region', { name: 'Send test payload' });
    const editor = within(card).getByLabelText('Payload (JSON)');
    await user.clear(editor);
    await user.paste('{"url": 5');
    await user.click(within(card).getByRole('button', { name: 'Send test payload' }));
    expect(editor).toHaveAccessibleDescription(expect.stringContaining('not valid JSON'));
    expect(test).not.toHaveBeenCalled();

    await user.type(editor, '}');
    await user.click(within(card).getByRole('button', { name: 'Send test payload' }));
    await waitFor(() => expect(editor).toHaveAccessibleDescription(expect.stringContaining('does not match the endpoint’s schema at /url')));

    await user.clear(editor);
    await user.paste('{"url": "https://example.com/t"}');
    await user.click(within(card).getByRole('button', { name: 'Send test payload' }));
    expect(await within(card).findByRole('status')).toHaveTextContent('Test payload accepted as evt_9.');
    expect(test).toHaveBeenLastCalledWith({ id: 'pub_1', payload: { url: 'https://example.com/t' } }, expect.anything());
    expect(editor).not.toHaveAttribute('aria-invalid');
    const callTable = screen.getByRole('table', { name: 'Recent calls' });
    await waitFor(() => expect(within(callTable).getByText('evt_9')).toBeInTheDocument());
  });

  it('does not offer a test payload to a disabled endpoint (it would refuse it as unknown)', async () => {
    const { client } = setup({ AutomationEndpoint: () => detail(endpoint({ enabled: false })) });
    renderWithClient(<EndpointDetailPage />, { client, ...route });
    const card = await screen.findByRole('region', { name: 'Send test payload' });
    expect(within(card).getByRole('button', { name: 'Send test payload' })).toBeDisabled();
    expect(within(card).getByText(/enable it to send a test payload/)).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Enable endpoint' })).toBeInTheDocument();
  });

  it('reloads when the endpoint gets a call or a run finishes', async () => {
    const events = makeSubject<MockResponse>();
    let done = false;
    const { client } = setup({
      AutomationRuns: () => runs([run({ status: done ? 'succeeded' : 'queued', output: done ? { link_id: 'lnk_9' } : null })]),
      AutomationEvents: () => events.source,
    });
    renderWithClient(<EndpointDetailPage />, { client, ...route });
    const runTable = await screen.findByRole('table', { name: 'Runs' });
    expect(within(runTable).getByText('queued')).toBeInTheDocument();
    done = true;
    // Another endpoint's event changes nothing here; this one's reloads.
    act(() => events.next({ data: { events: { __typename: 'Event', id: 'evt_x', type: 'automation.action_succeeded', data: { endpoint_id: 'pub_other' } } } }));
    act(() => events.next({ data: { events: { __typename: 'Event', id: 'evt_y', type: 'automation.action_succeeded', data: { endpoint_id: 'pub_1' } } } }));
    await waitFor(() => expect(within(runTable).getByText('succeeded')).toBeInTheDocument());
  });

  it('rotates the URL and the secret after confirming, showing the new secret once', async () => {
    const user = userEvent.setup();
    const rotated = endpoint({ verification: 'STANDARD_WEBHOOKS', url: `${hooksBase}/tok_new` });
    const rotateToken = vi.fn(() => ({ data: { rotateAutomationEndpointToken: rotated } }));
    const rotateSecret = vi.fn(() => ({
      data: { rotateAutomationEndpointSecret: { __typename: 'AutomationEndpointPayload', secret: 'whsec_new', endpoint: rotated } },
    }));
    const { client } = setup({
      AutomationEndpoint: () => detail(endpoint({ verification: 'STANDARD_WEBHOOKS' })),
      RotateAutomationEndpointToken: rotateToken,
      RotateAutomationEndpointSecret: rotateSecret,
    });
    renderWithClient(<EndpointDetailPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Rotate URL' }));
    let confirm = screen.getByRole('alertdialog', { name: 'Rotate the URL?' });
    expect(within(confirm).getByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.click(within(confirm).getByRole('button', { name: 'Rotate URL' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(rotateToken).toHaveBeenCalledWith({ id: 'pub_1' }, expect.anything());
    expect(screen.getByTestId('toast')).toHaveTextContent('New URL made; the old one no longer works');

    await user.click(screen.getByRole('button', { name: 'Rotate secret' }));
    confirm = screen.getByRole('alertdialog', { name: 'Rotate the secret?' });
    await user.click(within(confirm).getByRole('button', { name: 'Rotate secret' }));
    const secret = await screen.findByRole('dialog', { name: 'Save your endpoint secret' });
    expect(within(secret).getByTestId('secret-value')).toHaveTextContent('whsec_new');
    expect(within(secret).getByText('webhook-signature')).toBeInTheDocument();
    await user.click(within(secret).getByRole('button', { name: 'Done' }));
    expect(screen.queryByText('whsec_new')).not.toBeInTheDocument();
  });

  it('has no secret to rotate without verification; a new verification kind shows its secret', async () => {
    const user = userEvent.setup();
    const update = vi.fn(() => ({
      data: {
        updateAutomationEndpoint: { __typename: 'AutomationEndpointPayload', secret: 'sbt_new', endpoint: endpoint({ verification: 'HEADER_TOKEN' }) },
      },
    }));
    const { client } = setup({ UpdateAutomationEndpoint: update });
    renderWithClient(<EndpointDetailPage />, { client, ...route });
    expect(await screen.findByRole('button', { name: 'Rotate secret' })).toBeDisabled();
    expect(screen.getByText(/This endpoint has no secret/)).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit New orders' });
    expect(within(dialog).getByLabelText('Destination URL')).toHaveValue('{{payload.url}}');
    // {{endpoint.id}} previews as this endpoint's id.
    await user.clear(within(dialog).getByLabelText(/^Slug/));
    await user.click(within(dialog).getByLabelText(/^Slug/));
    await user.paste('{{endpoint.id}}-{{payload.order_id}}');
    expect(within(dialog).getByTestId('template-preview')).toHaveTextContent('pub_1-A-1001');
    await user.clear(within(dialog).getByLabelText(/^Slug/));
    await user.selectOptions(within(dialog).getByLabelText('Verification'), 'HEADER_TOKEN');
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(update).toHaveBeenCalledWith({ id: 'pub_1', input: { verification: 'HEADER_TOKEN' } }, expect.anything()));
    const secret = await screen.findByRole('dialog', { name: 'Save your endpoint secret' });
    expect(within(secret).getByTestId('secret-value')).toHaveTextContent('sbt_new');
  }, 15_000);

  it('deletes the endpoint after confirming and goes back to the list', async () => {
    const user = userEvent.setup();
    const del = vi.fn(() => ({ data: { deleteAutomationEndpoint: { __typename: 'AutomationEndpoint', id: 'pub_1', name: 'New orders' } } }));
    const { client } = setup({ DeleteAutomationEndpoint: del });
    renderWithClient(<EndpointDetailPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Delete endpoint' }));
    const confirm = screen.getByRole('alertdialog', { name: 'Delete New orders?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete endpoint' }));
    expect(await screen.findByTestId('elsewhere')).toBeInTheDocument();
    expect(del).toHaveBeenCalledWith({ id: 'pub_1' }, expect.anything());
  });

  it('says when the endpoint does not exist', async () => {
    const { client } = setup({
      AutomationEndpoint: () => ({ errors: [{ message: 'automation endpoint not found', extensions: { code: 'NOT_FOUND' } }] }),
    });
    renderWithClient(<EndpointDetailPage />, { client, ...route });
    expect(await screen.findByRole('heading', { name: 'Endpoint not found' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: /Automation/ })).toHaveAttribute('href', '/api/automation');
  });
});

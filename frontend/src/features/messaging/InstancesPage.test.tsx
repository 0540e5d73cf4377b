import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import { mockClient, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { channels, instance } from './fixtures';
import InstancesPage from './InstancesPage';

describe('InstancesPage', () => {
  it('creates a sandbox instance with auto-pair and connect', async () => {
    const user = userEvent.setup();
    const create = vi.fn(() => ({ data: { createInstance: instance({ status: 'connecting', address: null }) } }));
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [], hasMore: false } } }),
      Channels: () => ({ data: { channels: channels() } }),
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
      Channels: () => ({ data: { channels: channels() } }),
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

  it('offers a new pairing code once the code expired, instead of Pair now, saying so once', async () => {
    const user = userEvent.setup();
    const expiredError = {
      errors: [{ message: 'the pairing code expired: connect the instance again for a new one', extensions: { code: 'CONFLICT', reason: 'pairing_expired' } }],
    };
    let current = instance({ status: 'pairing', address: null, updatedAt: '2025-01-01T00:00:00.000Z' });
    let codeExpired = false;
    const connect = vi.fn(() => {
      // Connecting again pairs anew: a new code, and a new updatedAt.
      codeExpired = false;
      current = instance({ status: 'pairing', address: null, updatedAt: '2025-01-01T00:20:00.000Z' });
      return { data: { connectInstance: current } };
    });
    const pair = vi.fn(() => expiredError);
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [current], hasMore: false } } }),
      Channels: () => ({ data: { channels: channels() } }),
      InstancePairing: () => {
        if (codeExpired) return expiredError;
        const pairingCode = connect.mock.calls.length ? 'NEWC-ODE1' : 'ABCD-EFGH';
        return { data: { instancePairing: { instanceId: 'inst_a', pairingCode, qrCode: 'data:image/png;base64,iVBORw0KGgo=', expiresAt: '2099-01-01T00:00:00.000Z' } } };
      },
      MessagingEvents: () => makeSubject<MockResponse>().source,
      PairSandboxInstance: pair,
      ConnectInstance: connect,
    });
    renderWithClient(<InstancesPage />, { client });
    expect(await screen.findByText('ABCD-EFGH')).toBeInTheDocument();

    // The code expires on the server before Pair now is pressed.
    codeExpired = true;
    await user.click(screen.getByRole('button', { name: 'Pair Alpha now' }));
    const card = screen.getByRole('listitem');
    expect(await within(card).findByText('The pairing code expired. Get a new one to pair the phone.')).toBeInTheDocument();
    expect(within(card).queryByRole('button', { name: 'Pair Alpha now' })).not.toBeInTheDocument();
    expect(within(card).queryByText(/the pairing code expired: connect/)).not.toBeInTheDocument();
    expect(within(card).queryAllByRole('alert')).toHaveLength(0);

    await user.click(within(card).getByRole('button', { name: 'New pairing code for Alpha' }));
    await waitFor(() => expect(connect).toHaveBeenCalledWith({ id: 'inst_a' }, expect.anything()));
    expect(await within(card).findByText('NEWC-ODE1')).toBeInTheDocument();
    expect(within(card).getByRole('button', { name: 'Pair Alpha now' })).toBeInTheDocument();
    expect(within(card).queryByText(/pairing code expired/)).not.toBeInTheDocument();
  });

  it('opened after the code expired, says so once and offers a new code', async () => {
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance({ status: 'pairing', address: null })], hasMore: false } } }),
      Channels: () => ({ data: { channels: channels() } }),
      InstancePairing: () => ({
        errors: [{ message: 'the pairing code expired: connect the instance again for a new one', extensions: { code: 'CONFLICT', reason: 'pairing_expired' } }],
      }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
    });
    renderWithClient(<InstancesPage />, { client });
    expect(await screen.findByText('The pairing code expired. Get a new one to pair the phone.')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'New pairing code for Alpha' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Pair Alpha now' })).not.toBeInTheDocument();
    expect(screen.queryByText(/connect the instance again/)).not.toBeInTheDocument();
  });

  it('says so when the code shown expires while the page is open', async () => {
    vi.useFakeTimers({ shouldAdvanceTime: true });
    try {
      const expiresAt = new Date(Date.now() + 60_000).toISOString();
      const pairing = vi.fn(() =>
        Date.now() < Date.parse(expiresAt)
          ? { data: { instancePairing: { instanceId: 'inst_a', pairingCode: 'ABCD-EFGH', qrCode: 'data:image/png;base64,iVBORw0KGgo=', expiresAt } } }
          : { errors: [{ message: 'the pairing code expired: connect the instance again for a new one', extensions: { code: 'CONFLICT', reason: 'pairing_expired' } }] },
      );
      const { client } = mockClient({
        Instances: () => ({ data: { instances: { nodes: [instance({ status: 'pairing', address: null })], hasMore: false } } }),
        Channels: () => ({ data: { channels: channels() } }),
        InstancePairing: pairing,
        MessagingEvents: () => makeSubject<MockResponse>().source,
      });
      renderWithClient(<InstancesPage />, { client });
      expect(await screen.findByText('ABCD-EFGH')).toBeInTheDocument();
      // The server is asked again once the code's expiry has passed.
      const asked = pairing.mock.calls.length;
      act(() => vi.advanceTimersByTime(61_000));
      await waitFor(() => expect(pairing).toHaveBeenCalledTimes(asked + 1));
      expect(await screen.findByText('The pairing code expired. Get a new one to pair the phone.')).toBeInTheDocument();
      expect(screen.queryByText('ABCD-EFGH')).not.toBeInTheDocument();
      expect(screen.queryByRole('button', { name: 'Pair Alpha now' })).not.toBeInTheDocument();
      expect(screen.getByRole('button', { name: 'New pairing code for Alpha' })).toBeInTheDocument();
    } finally {
      vi.useRealTimers();
    }
  });

  it('shows an error with a retry when instances cannot load', async () => {
    const { client } = mockClient({
      Instances: () => ({ errors: [{ message: 'missing scope instances:read', extensions: { code: 'FORBIDDEN' } }] }),
      Channels: () => ({ data: { channels: channels() } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
    });
    renderWithClient(<InstancesPage />, { client });
    expect(await screen.findByRole('alert')).toHaveTextContent('missing scope instances:read');
    expect(screen.getByRole('button', { name: 'Try again' })).toBeInTheDocument();
  });

  it('offers every channel and renders the picked channel’s config fields: secrets as write-only password inputs', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [], hasMore: false } } }),
      Channels: () => ({ data: { channels: channels() } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
    });
    renderWithClient(<InstancesPage />, { client });
    await user.click(await screen.findByRole('button', { name: 'Create your first instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'New instance' });
    const picker = within(dialog).getByRole('group', { name: 'Channel' });
    expect(within(picker).getAllByRole('radio').map((r) => r.getAttribute('value'))).toEqual(['sandbox', 'telegram', 'whatsapp_cloud']);
    expect(within(picker).getByRole('radio', { name: 'Sandbox' })).toBeChecked();
    expect(within(picker).getByRole('radio', { name: 'Sandbox' })).toHaveAccessibleDescription(/no outside account needed/);

    // Sandbox: the defaults are prefilled, the help text is the channel's description.
    expect(within(dialog).getByLabelText(/^Delivered after \(ms\)/)).toHaveValue(200);
    expect(within(dialog).getByLabelText(/^Delivered after \(ms\)/)).toHaveAttribute('type', 'number');
    expect(within(dialog).getByLabelText(/^Read after \(ms\)/)).toHaveValue(1000);
    expect(within(dialog).getByLabelText(/^Echo/)).not.toBeChecked();
    expect(within(dialog).getByLabelText(/^Pair automatically/)).toHaveAccessibleDescription(/as if the QR code had been scanned/);

    await user.click(within(picker).getByRole('radio', { name: 'WhatsApp Cloud' }));
    expect(within(dialog).queryByLabelText(/^Delivered after/)).not.toBeInTheDocument();
    const phone = within(dialog).getByLabelText(/^Phone number ID/);
    expect(phone).toHaveAttribute('type', 'text');
    expect(phone).toHaveAccessibleDescription(/Meta App Dashboard → WhatsApp → API Setup/);
    for (const label of [/^Access token/, /^App secret/, /^Verify token/]) {
      const input = within(dialog).getByLabelText(label);
      expect(input).toHaveAttribute('type', 'password');
      expect(input).toHaveAttribute('autocomplete', 'off');
      expect(input).toHaveAccessibleName(/write-only/);
    }
    expect(within(dialog).getByLabelText(/^Verify token/)).toHaveAccessibleDescription(/Any string you choose/);
  });

  it('creates a telegram instance: checks the required token first, then sends only its config', async () => {
    const user = userEvent.setup();
    const create = vi.fn(() => ({ data: { createInstance: instance({ name: 'Bot', channel: 'telegram', status: 'connecting', callbackUrl: 'https://sb.example/channels/telegram/tok1' }) } }));
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [], hasMore: false } } }),
      Channels: () => ({ data: { channels: channels() } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
      CreateInstance: create,
    });
    renderWithClient(<InstancesPage />, { client });
    await user.click(await screen.findByRole('button', { name: 'Create your first instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'New instance' });
    await user.type(within(dialog).getByLabelText('Name'), 'Bot');
    // A sandbox setting changed before switching channels is not sent along.
    await user.click(within(dialog).getByLabelText(/^Pair automatically/));
    await user.click(within(dialog).getByRole('radio', { name: 'Telegram' }));
    const token = within(dialog).getByLabelText(/^Bot token/);
    expect(token).toHaveAttribute('type', 'password');
    expect(token).toHaveAccessibleDescription(/@BotFather/);

    await user.click(within(dialog).getByRole('button', { name: 'Create instance' }));
    expect(within(dialog).getByText('Enter the bot token.')).toBeInTheDocument();
    expect(token).toBeInvalid();
    expect(create).not.toHaveBeenCalled();

    await user.type(token, '123456789:AAHsecret');
    await user.click(within(dialog).getByRole('button', { name: 'Create instance' }));
    await waitFor(() => expect(create).toHaveBeenCalled());
    expect((create.mock.calls[0] as unknown as [{ input: unknown }])[0].input).toEqual({
      name: 'Bot',
      channel: 'telegram',
      config: { bot_token: '123456789:AAHsecret' },
      connect: true,
    });
    expect(await screen.findByRole('status')).toHaveTextContent('Instance Bot created');
  });

  it('shows an API field error next to its config field', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [], hasMore: false } } }),
      Channels: () => ({ data: { channels: channels() } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
      CreateInstance: () => ({ errors: [{ message: 'bot_token: must look like 123456789:AAH...', extensions: { code: 'INVALID', field: 'config.bot_token' } }] }),
    });
    renderWithClient(<InstancesPage />, { client });
    await user.click(await screen.findByRole('button', { name: 'Create your first instance' }));
    const dialog = await screen.findByRole('dialog', { name: 'New instance' });
    await user.type(within(dialog).getByLabelText('Name'), 'Bot');
    await user.click(within(dialog).getByRole('radio', { name: 'Telegram' }));
    await user.type(within(dialog).getByLabelText(/^Bot token/), 'nope');
    await user.click(within(dialog).getByRole('button', { name: 'Create instance' }));
    expect(await within(dialog).findByText('bot_token: must look like 123456789:AAH...')).toBeInTheDocument();
    expect(within(dialog).getByLabelText(/^Bot token/)).toHaveAccessibleDescription(/must look like/);
  });

  it('shows the callback URL with copy and guidance, and rotates it after a confirm', async () => {
    const user = userEvent.setup();
    let current = instance({
      name: 'Meta',
      channel: 'whatsapp_cloud',
      status: 'disconnected',
      address: null,
      callbackUrl: 'https://sb.example/channels/whatsapp_cloud/old-token',
      config: { phone_number_id: '1065', access_token: '********', app_secret: '********', verify_token: '********' },
    });
    const rotate = vi.fn(() => {
      current = { ...current, callbackUrl: 'https://sb.example/channels/whatsapp_cloud/new-token' };
      return { data: { rotateInstanceCallbackToken: current } };
    });
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [current], hasMore: false } } }),
      Channels: () => ({ data: { channels: channels() } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
      RotateInstanceCallbackToken: rotate,
    });
    renderWithClient(<InstancesPage />, { client });
    const url = await screen.findByLabelText('Callback URL');
    expect(url).toHaveValue('https://sb.example/channels/whatsapp_cloud/old-token');
    expect(url).toHaveAttribute('readonly');
    expect(url).toHaveAccessibleDescription(/Meta App Dashboard → WhatsApp → Configuration → Webhook, and subscribe to the messages field/);
    expect(screen.getByRole('button', { name: 'Copy' })).toBeInTheDocument();

    // The secrets show as the API sends them: redacted.
    const list = screen.getByLabelText('Settings of Meta');
    expect(within(list).getAllByText('********')).toHaveLength(3);
    expect(within(list).getByText('1065')).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Rotate URL' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Rotate the callback URL of Meta?' });
    expect(confirm).toHaveTextContent(/stops working at once/);
    expect(rotate).not.toHaveBeenCalled();
    await user.click(within(confirm).getByRole('button', { name: 'Rotate URL' }));
    await waitFor(() => expect(rotate).toHaveBeenCalledWith({ id: 'inst_a' }, expect.anything()));
    await waitFor(() => expect(screen.getByLabelText('Callback URL')).toHaveValue('https://sb.example/channels/whatsapp_cloud/new-token'));
    expect(await screen.findByText('Meta has a new callback URL')).toBeInTheDocument();
  });

  it('says Telegram registers its callback URL itself; the sandbox has none', async () => {
    const { client } = mockClient({
      Instances: () => ({
        data: {
          instances: {
            nodes: [
              instance({ id: 'inst_t', name: 'Bot', channel: 'telegram', callbackUrl: 'https://sb.example/channels/telegram/tok', config: { bot_token: '********' } }),
              instance({ id: 'inst_s', name: 'Sandy' }),
            ],
            hasMore: false,
          },
        },
      }),
      Channels: () => ({ data: { channels: channels() } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
    });
    renderWithClient(<InstancesPage />, { client });
    expect(await screen.findByLabelText('Callback URL')).toHaveAccessibleDescription(/registers this URL with Telegram automatically when you connect/);
    expect(screen.getAllByLabelText('Callback URL')).toHaveLength(1);
  });

  it('shows why a failed instance failed, in the card', async () => {
    const { client } = mockClient({
      Instances: () => ({
        data: { instances: { nodes: [instance({ channel: 'whatsapp_cloud', status: 'failed', statusReason: 'graph.facebook.com unreachable: connection refused' })], hasMore: false } },
      }),
      Channels: () => ({ data: { channels: channels() } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
    });
    renderWithClient(<InstancesPage />, { client });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Connection failed: graph.facebook.com unreachable: connection refused');
    expect(screen.getByText('Failed')).toBeInTheDocument();
  });

  it('edits settings: a secret left as ******** is not sent (the API keeps it), a new one is', async () => {
    const user = userEvent.setup();
    const current = instance({
      name: 'Meta',
      channel: 'whatsapp_cloud',
      status: 'disconnected',
      callbackUrl: 'https://sb.example/channels/whatsapp_cloud/tok',
      config: { phone_number_id: '1065', access_token: '********', app_secret: '********', verify_token: '********' },
    });
    const update = vi.fn(() => ({ data: { updateInstance: current } }));
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [current], hasMore: false } } }),
      Channels: () => ({ data: { channels: channels() } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
      UpdateInstance: update,
    });
    renderWithClient(<InstancesPage />, { client });
    await user.click(await screen.findByRole('button', { name: 'Edit Meta' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Meta' });
    expect(within(dialog).getByLabelText(/^Access token/)).toHaveValue('********');
    const phone = within(dialog).getByLabelText(/^Phone number ID/);
    await user.clear(phone);
    await user.type(phone, '2077');
    // Typing into a redacted secret replaces it rather than appending to the asterisks.
    await user.click(within(dialog).getByLabelText(/^App secret/));
    await user.keyboard('new-app-secret');
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(update).toHaveBeenCalled());
    expect(update.mock.calls[0] as unknown).toEqual([{ id: 'inst_a', input: { config: { phone_number_id: '2077', app_secret: 'new-app-secret' } } }, expect.anything()]);
    expect(await screen.findByText('Meta saved')).toBeInTheDocument();
  });
});

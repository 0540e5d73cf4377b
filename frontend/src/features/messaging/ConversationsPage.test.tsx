import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import { mockClient, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import ConversationsPage from './ConversationsPage';
import { chat, instance, message } from './fixtures';

const event = (type: string, id = 'evt_1') => ({ data: { events: { __typename: 'Event', id, type } } });

describe('ConversationsPage', () => {
  it('opens a chat, marks it read, and shows new messages and receipts live', async () => {
    const user = userEvent.setup();
    const events = makeSubject<MockResponse>();
    let chats = [chat({ unreadCount: 1, lastMessage: { __typename: 'Message', id: 'msg_in', direction: 'inbound', type: 'text', text: 'Hi there', status: 'received' } })];
    let messages = [message({ id: 'msg_in', direction: 'inbound', status: 'received', text: 'Hi there' })];
    const markRead = vi.fn(() => {
      chats = chats.map((c) => ({ ...c, unreadCount: 0 }));
      return { data: { markChatRead: chats.find((c) => c.id === 'chat_1') } };
    });
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Chats: () => ({ data: { chats: { nodes: chats, hasMore: false } } }),
      ChatMessages: () => ({ data: { messages: { nodes: messages, hasMore: false } } }),
      MessagingEvents: () => events.source,
      MarkChatRead: markRead,
      SendMessage: (v) => {
        const sent = message({ id: 'msg_out', text: (v.input as { text: string }).text, status: 'queued' });
        messages = [sent, ...messages];
        return { data: { sendMessage: sent } };
      },
    });
    renderWithClient(<ConversationsPage />, { client, route: '/api/messages?instance=inst_a', path: '/api/messages' });

    const list = await screen.findByRole('navigation', { name: 'Chats' });
    const item = await within(list).findByRole('button', { name: /\+15552220002/ });
    expect(within(item).getByLabelText('1 unread')).toBeInTheDocument();
    await user.click(item);
    const conversation = await screen.findByRole('region', { name: 'Conversation with +15552220002' });
    expect(await within(conversation).findByText('Hi there')).toBeInTheDocument();
    await waitFor(() => expect(markRead).toHaveBeenCalledWith({ instanceId: 'inst_a', chatId: 'chat_1' }, expect.anything()));
    act(() => events.next(event('chat.updated')));
    await waitFor(() => expect(within(list).queryByLabelText('1 unread')).not.toBeInTheDocument());

    // Sending: queued at once, then the receipt events move the ticks.
    await user.type(within(conversation).getByLabelText('Message'), 'Hello back');
    await user.click(within(conversation).getByRole('button', { name: 'Send' }));
    expect(await within(conversation).findByRole('img', { name: 'Queued' })).toBeInTheDocument();
    messages = messages.map((m) => (m.id === 'msg_out' ? { ...m, status: 'read' } : m));
    act(() => events.next(event('message.status_updated', 'evt_2')));
    expect(await within(conversation).findByRole('img', { name: 'Read' })).toBeInTheDocument();
    expect(markRead).toHaveBeenCalledTimes(1);
  });

  it('starts a new conversation, checking the recipient first', async () => {
    const user = userEvent.setup();
    const send = vi.fn(() => ({ errors: [{ message: 'to: must be a phone number in E.164 form', extensions: { code: 'INVALID', field: 'to' } }] }));
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Chats: () => ({ data: { chats: { nodes: [], hasMore: false } } }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
      SendMessage: send,
    });
    renderWithClient(<ConversationsPage />, { client, route: '/api/messages', path: '/api/messages' });
    expect(await screen.findByRole('heading', { name: 'No chats yet' })).toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'New message' }));
    // Ready to type the recipient, without tabbing through the chat list.
    expect(screen.getByLabelText('To')).toHaveFocus();
    await user.click(screen.getByRole('button', { name: 'Send' }));
    expect(screen.getByText(/enter a phone number/i)).toBeInTheDocument();
    expect(send).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('To'), 'nobody');
    await user.type(screen.getByLabelText('Message'), 'Hi');
    await user.click(screen.getByRole('button', { name: 'Media' }));
    await user.type(screen.getByLabelText('Media URL'), 'https://example.com/cat.png');
    await user.click(screen.getByRole('button', { name: 'Send' }));
    await waitFor(() => expect(send).toHaveBeenCalled());
    expect((send.mock.calls[0] as unknown as [{ input: unknown }])[0].input).toEqual({
      to: 'nobody',
      type: 'image',
      media: { url: 'https://example.com/cat.png', caption: 'Hi' },
    });
    expect(await screen.findByText('to: must be a phone number in E.164 form')).toBeInTheDocument();
  });

  it('points to the instances page when there is no instance', async () => {
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [], hasMore: false } } }),
    });
    renderWithClient(<ConversationsPage />, { client, route: '/api/messages', path: '/api/messages' });
    expect(await screen.findByRole('heading', { name: 'No instances yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Create an instance' })).toHaveAttribute('href', '/api/instances');
  });

  it('shows received files that were not stored, and file sizes', async () => {
    const user = userEvent.setup();
    const media = { __typename: 'Media' as const, caption: '', fileName: '', mimeType: 'video/mp4', providerMediaId: 'wamid.file', notStored: '', url: '', size: 0 };
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Chats: () => ({ data: { chats: { nodes: [chat()], hasMore: false } } }),
      ChatMessages: () => ({
        data: {
          messages: {
            nodes: [
              message({ id: 'msg_big', direction: 'inbound', status: 'received', type: 'video', text: null, media: { ...media, notStored: 'too_large' } }),
              message({ id: 'msg_doc', direction: 'inbound', status: 'received', type: 'document', text: null, media: { ...media, url: 'https://sb.example/media/x', fileName: 'report.pdf', size: 2_400_000, caption: 'Q3' } }),
            ],
            hasMore: false,
          },
        },
      }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
      MarkChatRead: () => ({ data: { markChatRead: chat() } }),
    });
    renderWithClient(<ConversationsPage />, { client, route: '/api/messages?instance=inst_a', path: '/api/messages' });
    await user.click(await within(await screen.findByRole('navigation', { name: 'Chats' })).findByRole('button', { name: /\+15552220002/ }));
    const conversation = await screen.findByRole('region', { name: 'Conversation with +15552220002' });
    expect(await within(conversation).findByText(/video — file not stored: too large/)).toBeInTheDocument();
    expect(within(conversation).getByRole('link', { name: 'document: report.pdf' })).toHaveAttribute('href', 'https://sb.example/media/x');
    expect(within(conversation).getByText('(2.4 MB)')).toBeInTheDocument();
    expect(within(conversation).getByText('Q3')).toBeInTheDocument();
  });

  it('shows the forum topic a message was written in', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Chats: () => ({ data: { chats: { nodes: [chat()], hasMore: false } } }),
      ChatMessages: () => ({
        data: {
          messages: {
            nodes: [
              message({ id: 'msg_topic', direction: 'inbound', status: 'received', text: 'In the topic', threadId: '7' }),
              message({ id: 'msg_general', direction: 'inbound', status: 'received', text: 'In General' }),
            ],
            hasMore: false,
          },
        },
      }),
      MessagingEvents: () => makeSubject<MockResponse>().source,
      MarkChatRead: () => ({ data: { markChatRead: chat() } }),
    });
    renderWithClient(<ConversationsPage />, { client, route: '/api/messages?instance=inst_a', path: '/api/messages' });
    await user.click(await within(await screen.findByRole('navigation', { name: 'Chats' })).findByRole('button', { name: /\+15552220002/ }));
    const conversation = await screen.findByRole('region', { name: 'Conversation with +15552220002' });
    const topic = (await within(conversation).findByText('In the topic')).closest('li');
    expect(topic && within(topic).getByText('topic 7')).toBeInTheDocument();
    const general = within(conversation).getByText('In General').closest('li');
    expect(general && within(general).queryByText(/^topic/)).toBeNull();
  });

  it('says when the instance in the URL does not exist, and offers the instances to choose from', async () => {
    const user = userEvent.setup();
    const chatsQuery = vi.fn(() => ({ data: { chats: { nodes: [chat()], hasMore: false } } }));
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance(), instance({ id: 'inst_b', name: 'Bravo', address: '+15551110002' })], hasMore: false } } }),
      Chats: chatsQuery,
      MessagingEvents: () => makeSubject<MockResponse>().source,
    });
    renderWithClient(<ConversationsPage />, { client, route: '/api/messages?instance=inst_nope', path: '/api/messages' });
    expect(await screen.findByRole('heading', { name: 'Instance not found' })).toBeInTheDocument();
    expect(screen.getByText('inst_nope')).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'See all instances' })).toHaveAttribute('href', '/api/instances');
    // No other instance's chats are shown in its place.
    expect(chatsQuery).not.toHaveBeenCalled();
    expect(screen.queryByRole('navigation', { name: 'Chats' })).not.toBeInTheDocument();

    const picker = screen.getByLabelText('Instance');
    expect(picker).toHaveDisplayValue('Choose an instance');
    await user.selectOptions(picker, 'inst_b');
    expect(await screen.findByRole('navigation', { name: 'Chats' })).toBeInTheDocument();
    expect(chatsQuery).toHaveBeenCalledWith(expect.objectContaining({ instanceId: 'inst_b' }), expect.anything());
    expect(screen.queryByRole('heading', { name: 'Instance not found' })).not.toBeInTheDocument();
  });
});


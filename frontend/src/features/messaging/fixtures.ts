import type { ChatFieldsFragment, ContactFieldsFragment, GroupFieldsFragment, InstanceFieldsFragment, MessageFieldsFragment } from '../../graphql/generated';

const at = '2025-01-01T00:00:00.000Z';

export function instance(over: Partial<InstanceFieldsFragment> = {}): InstanceFieldsFragment {
  return {
    __typename: 'Instance',
    id: 'inst_a',
    name: 'Alpha',
    channel: 'sandbox',
    status: 'connected',
    statusReason: null,
    address: '+15551110001',
    config: { auto_pair: false },
    messagesPerSecond: 20,
    connectedAt: at,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

export function message(over: Partial<MessageFieldsFragment> = {}): MessageFieldsFragment {
  return {
    __typename: 'Message',
    id: 'msg_1',
    instanceId: 'inst_a',
    chatId: 'chat_1',
    direction: 'outbound',
    from: '+15551110001',
    to: '+15552220002',
    type: 'text',
    text: 'Hello',
    media: null,
    location: null,
    contact: null,
    poll: null,
    reaction: null,
    replyTo: null,
    status: 'delivered',
    error: null,
    editedAt: null,
    deletedAt: null,
    createdAt: at,
    ...over,
  };
}

export function chat(over: Partial<ChatFieldsFragment> = {}): ChatFieldsFragment {
  return {
    __typename: 'Chat',
    id: 'chat_1',
    instanceId: 'inst_a',
    address: '+15552220002',
    type: 'direct',
    name: null,
    unreadCount: 0,
    archived: false,
    lastMessageAt: at,
    lastMessage: null,
    ...over,
  };
}

export function group(over: Partial<GroupFieldsFragment> = {}): GroupFieldsFragment {
  return {
    __typename: 'Group',
    id: 'grp_1',
    instanceId: 'inst_a',
    address: '120363000000000001@g.us',
    subject: 'Team',
    description: '',
    owner: '+15551110001',
    left: false,
    participants: [
      { __typename: 'Participant', address: '+15551110001', role: 'admin' },
      { __typename: 'Participant', address: '+15552220002', role: 'member' },
    ],
    createdAt: at,
    ...over,
  };
}

export function contact(over: Partial<ContactFieldsFragment> = {}): ContactFieldsFragment {
  return {
    __typename: 'Contact',
    id: 'ct_1',
    instanceId: 'inst_a',
    address: '+15552220002',
    name: 'Grace Hopper',
    labels: ['vip'],
    attributes: {},
    createdAt: at,
    ...over,
  };
}

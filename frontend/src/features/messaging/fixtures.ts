import type { ChannelsQuery, ChatFieldsFragment, ContactFieldsFragment, GroupFieldsFragment, InstanceFieldsFragment, MessageFieldsFragment } from '../../graphql/generated';

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
    callbackUrl: null,
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
    template: null,
    replyTo: null,
    threadId: null,
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

type ChannelFixture = ChannelsQuery['channels'][number];
type ConfigFieldFixture = ChannelFixture['configFields'][number];

function field(name: string, type: string, description: string, over: Partial<ConfigFieldFixture> = {}): ConfigFieldFixture {
  return { __typename: 'ChannelConfigField', name, type, description, secret: false, required: false, default: null, ...over };
}

function capabilities(pairing: boolean): ChannelFixture['capabilities'] {
  return { __typename: 'ChannelCapabilities', messageTypes: ['text', 'image'], receipts: pairing ? ['delivered', 'read'] : [], pairing };
}

/** The channels as the server describes them (see backend/channels/*: ConfigFields). */
export function channels(): ChannelFixture[] {
  return [
    {
      __typename: 'Channel',
      name: 'sandbox',
      callsBack: false,
      capabilities: capabilities(true),
      configFields: [
        field('auto_pair', 'bool', 'Pair at once on connect, as if the QR code had been scanned.', { default: false }),
        field('delivered_after_ms', 'int', 'How long the simulated peer takes to report delivered, in milliseconds.', { default: 200 }),
        field('read_after_ms', 'int', 'How long the simulated peer takes to report read, in milliseconds after delivered.', { default: 1000 }),
        field('echo', 'bool', 'The simulated peer answers every message it reads with an echo.', { default: false }),
        field('token', 'string', 'A stand-in for a provider credential: write-only, shown as ******** once set.', { secret: true }),
      ],
    },
    {
      __typename: 'Channel',
      name: 'telegram',
      callsBack: true,
      capabilities: capabilities(false),
      configFields: [
        field('bot_token', 'string', "The bot's token, such as 123456789:AAH...: ask @BotFather on Telegram (/newbot for a new bot, /token for an existing one).", {
          secret: true,
          required: true,
        }),
      ],
    },
    {
      __typename: 'Channel',
      name: 'whatsapp_cloud',
      callsBack: true,
      capabilities: capabilities(false),
      configFields: [
        field('phone_number_id', 'string', 'The phone number ID (not the number itself): Meta App Dashboard → WhatsApp → API Setup.', { required: true }),
        field('access_token', 'string', 'A System User access token with the whatsapp_business_messaging permission.', { secret: true, required: true }),
        field('app_secret', 'string', 'The app secret (App settings → Basic): Meta signs every notification with it.', { secret: true, required: true }),
        field('verify_token', 'string', "Any string you choose: paste it with the callback URL into the app's WhatsApp webhook configuration.", {
          secret: true,
          required: true,
        }),
      ],
    },
  ];
}

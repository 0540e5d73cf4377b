import { MessageSquare, Plus, Send } from 'lucide-react';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useSearchParams } from 'react-router';
import { useClient, useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { Form } from '../../components/Form';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, InlineError, Loading, Notice } from '../../components/States';
import { Time } from '../../components/Time';
import {
  ChatMessagesDocument,
  ChatsDocument,
  MarkChatReadDocument,
  SendMessageDocument,
  type ChatFieldsFragment,
  type InstanceFieldsFragment,
  type MessageFieldsFragment,
} from '../../graphql/generated';
import { errorsByField } from '../../lib/errors';
import { WithInstance } from './InstancePicker';
import { formatSize, messagePreview, notStoredText } from './text';
import { InstanceStatusBadge, ReceiptTicks } from './status';
import { useMessagingEvents } from './useMessagingEvents';
import styles from './Messaging.module.css';

const MEDIA_TYPES = ['image', 'video', 'audio', 'document'] as const;

/** Text, and optionally media by URL (the text is then its caption). */
export function Composer({
  instance,
  to,
  onSent,
}: {
  instance: InstanceFieldsFragment;
  /** The chat's address; null for a new conversation (a "To" field is shown). */
  to: string | null;
  onSent: (m: MessageFieldsFragment) => void;
}) {
  const client = useClient();
  const [recipient, setRecipient] = useState('');
  const [text, setText] = useState('');
  const [mediaUrl, setMediaUrl] = useState('');
  const [mediaType, setMediaType] = useState<(typeof MEDIA_TYPES)[number]>('image');
  const [showMedia, setShowMedia] = useState(false);
  const [errors, setErrors] = useState<Partial<Record<'to' | 'text' | 'media' | 'form', string>>>({});
  const [busy, setBusy] = useState(false);
  const connected = instance.status === 'connected';

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const target = (to ?? recipient).trim();
    const local: typeof errors = {};
    if (!target) local.to = 'Enter a phone number, such as +15551234567.';
    if (!mediaUrl.trim() && !text.trim()) local.text = 'Write a message.';
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    const media = mediaUrl.trim();
    const input = media
      ? { to: target, type: mediaType, media: { url: media, caption: mediaType === 'audio' ? null : text.trim() || null } }
      : { to: target, text };
    const result = await client.mutation(SendMessageDocument, { instanceId: instance.id, input }).toPromise();
    setBusy(false);
    if (!result.data) {
      // The media's url and caption are both shown under the media field.
      const found = errorsByField(result.error, ['to', 'text', 'url', 'caption']);
      setErrors({ to: found.to, text: found.text, media: found.url ?? found.caption, form: found.form });
      return;
    }
    setText('');
    setMediaUrl('');
    setShowMedia(false);
    onSent(result.data.sendMessage);
  };

  return (
    <Form className={styles.composer} onSubmit={submit} aria-label="Send a message">
      <InlineError>{errors.form}</InlineError>
      {!connected && <Notice tone="warning">Connect this instance to send messages.</Notice>}
      {to === null && (
        <div className={styles.composerRow}>
          <label htmlFor="composer-to">To</label>
          {/* Shown when the user asks for a new message: ready to type the recipient. */}
          <input
            id="composer-to"
            autoFocus
            className="input mono"
            value={recipient}
            onChange={(e) => setRecipient(e.target.value)}
            placeholder="+15551234567"
            aria-invalid={errors.to ? true : undefined}
            aria-describedby={errors.to ? 'composer-to-error' : undefined}
          />
        </div>
      )}
      {errors.to && (
        <p id="composer-to-error" className={styles.error} role="alert">
          {errors.to}
        </p>
      )}
      {showMedia && (
        <div className={styles.composerRow}>
          <label htmlFor="composer-media">Media URL</label>
          <input
            id="composer-media"
            className="input"
            type="url"
            value={mediaUrl}
            onChange={(e) => setMediaUrl(e.target.value)}
            placeholder="https://example.com/photo.jpg"
            aria-invalid={errors.media ? true : undefined}
            aria-describedby={errors.media ? 'composer-media-error' : undefined}
          />
          <label htmlFor="composer-media-type" className="visually-hidden">
            Media type
          </label>
          <select id="composer-media-type" className="select" value={mediaType} onChange={(e) => setMediaType(e.target.value as (typeof MEDIA_TYPES)[number])}>
            {MEDIA_TYPES.map((t) => (
              <option key={t} value={t}>
                {t}
              </option>
            ))}
          </select>
        </div>
      )}
      {errors.media && (
        <p id="composer-media-error" className={styles.error} role="alert">
          {errors.media}
        </p>
      )}
      <div className={styles.composerRow}>
        <label htmlFor="composer-text" className="visually-hidden">
          {mediaUrl ? 'Caption' : 'Message'}
        </label>
        <textarea
          id="composer-text"
          className="input"
          rows={2}
          value={text}
          onChange={(e) => setText(e.target.value)}
          placeholder={mediaUrl ? 'Caption (optional)' : 'Write a message'}
          aria-invalid={errors.text ? true : undefined}
          aria-describedby={errors.text ? 'composer-text-error' : undefined}
          onKeyDown={(e) => {
            if (e.key === 'Enter' && !e.shiftKey) {
              e.preventDefault();
              e.currentTarget.form?.requestSubmit();
            }
          }}
        />
        <Button type="button" size="sm" variant="ghost" onClick={() => setShowMedia((v) => !v)} aria-pressed={showMedia}>
          Media
        </Button>
        <Button type="submit" variant="primary" loading={busy} disabled={!connected} icon={<Send size={14} aria-hidden="true" />}>
          Send
        </Button>
      </div>
      {errors.text && (
        <p id="composer-text-error" className={styles.error} role="alert">
          {errors.text}
        </p>
      )}
    </Form>
  );
}

/**
 * A message's file: a link when it has a URL; else why not (a received file too large to
 * store, a file sent by the provider's id). Its size when known.
 */
function MediaBody({ type, media }: { type: string; media: NonNullable<MessageFieldsFragment['media']> }) {
  const size = media.size > 0 ? ` (${formatSize(media.size)})` : '';
  return (
    <div>
      {media.url ? (
        <a href={media.url} target="_blank" rel="noreferrer noopener">
          {type}: {media.fileName || media.url}
        </a>
      ) : (
        <em className="muted">
          {type}
          {media.fileName && `: ${media.fileName}`} — {media.notStored ? notStoredText(media.notStored) : media.providerMediaId ? 'sent by provider media id' : 'no file'}
        </em>
      )}
      {size && <span className="muted">{size}</span>}
      {media.caption && <p>{media.caption}</p>}
    </div>
  );
}

function MessageBubble({ m }: { m: MessageFieldsFragment }) {
  const out = m.direction === 'outbound';
  return (
    <li className={`${styles.bubble} ${out ? styles.out : styles.in}`} data-message-id={m.id}>
      {m.deletedAt ? (
        <em className="muted">This message was deleted</em>
      ) : m.media ? (
        <MediaBody type={m.type} media={m.media} />
      ) : (
        <p>{messagePreview(m)}</p>
      )}
      <div className={styles.meta}>
        <Time iso={m.createdAt} />
        {m.threadId && <span>topic {m.threadId}</span>}
        {m.editedAt && <span>edited</span>}
        {out && <ReceiptTicks status={m.status} error={m.error?.message} />}
      </div>
    </li>
  );
}

function ChatView({ instance, chat, onSent }: { instance: InstanceFieldsFragment; chat: ChatFieldsFragment; onSent: () => void }) {
  const client = useClient();
  const [result, refetch] = useQuery({ query: ChatMessagesDocument, variables: { instanceId: instance.id, chatId: chat.id, first: 50 }, requestPolicy: 'network-only' });
  const reading = useRef(false);
  const bottom = useRef<HTMLLIElement>(null);
  useMessagingEvents(instance.id, ['message.', 'chat.'], () => refetch({ requestPolicy: 'network-only' }));

  // An open chat is a read chat: received messages are marked read (and their senders told).
  const unread = chat.unreadCount;
  useEffect(() => {
    if (unread === 0 || reading.current) return;
    reading.current = true;
    void client
      .mutation(MarkChatReadDocument, { instanceId: instance.id, chatId: chat.id })
      .toPromise()
      .finally(() => {
        reading.current = false;
      });
  }, [client, instance.id, chat.id, unread]);

  const messages = [...(result.data?.messages.nodes ?? [])].reverse();
  const last = messages[messages.length - 1]?.id;
  useEffect(() => {
    bottom.current?.scrollIntoView?.({ block: 'end' });
  }, [last]);

  return (
    <section className={styles.chatView} aria-label={`Conversation with ${chat.name || chat.address}`}>
      <header className={styles.chatHeader}>
        <h2>{chat.name || chat.address}</h2>
        {chat.name && <span className="mono muted">{chat.address}</span>}
        {chat.type === 'group' && <Badge>Group</Badge>}
      </header>
      {result.error && !result.data ? (
        <ErrorState error={result.error} title="Could not load messages" headingLevel={3} onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !result.data ? (
        <Loading label="Loading messages…" />
      ) : messages.length === 0 ? (
        <EmptyState title="No messages yet" headingLevel={3} />
      ) : (
        <ol className={styles.messages} aria-label="Messages" aria-live="polite">
          {messages.map((m) => (
            <MessageBubble key={m.id} m={m} />
          ))}
          <li ref={bottom} aria-hidden="true" className={styles.end} />
        </ol>
      )}
      <Composer
        instance={instance}
        to={chat.address}
        onSent={() => {
          refetch({ requestPolicy: 'network-only' });
          onSent();
        }}
      />
    </section>
  );
}

function Conversations({ instance }: { instance: InstanceFieldsFragment }) {
  const [params, setParams] = useSearchParams();
  const [chats, refetch] = useQuery({ query: ChatsDocument, variables: { instanceId: instance.id, first: 100 }, requestPolicy: 'network-only' });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  useMessagingEvents(instance.id, ['message.', 'chat.', 'group.'], reload);
  const list = chats.data?.chats.nodes ?? [];
  const chatId = params.get('chat');
  const composing = params.get('new') === '1';
  const current = list.find((c) => c.id === chatId) ?? null;

  const select = (next: Record<string, string>) => setParams(new URLSearchParams({ instance: instance.id, ...next }));

  return (
    <div className={styles.conversations}>
      <nav className={styles.chatList} aria-label="Chats">
        <div className={styles.chatListHeader}>
          <span>
            <span className="mono">{instance.address ?? 'No number yet'}</span> <InstanceStatusBadge status={instance.status} />
          </span>
          <Button size="sm" icon={<Plus size={14} aria-hidden="true" />} onClick={() => select({ new: '1' })}>
            New message
          </Button>
        </div>
        {chats.error && !chats.data ? (
          <ErrorState error={chats.error} title="Could not load chats" headingLevel={3} onRetry={reload} />
        ) : !chats.data ? (
          <Loading label="Loading chats…" rows={3} />
        ) : list.length === 0 ? (
          <EmptyState title="No chats yet" headingLevel={3}>
            Send a message, or wait for one to arrive.
          </EmptyState>
        ) : (
          <ul>
            {list.map((c) => (
              <li key={c.id}>
                <button
                  type="button"
                  className={`${styles.chatItem} ${c.id === current?.id ? styles.active : ''}`}
                  aria-current={c.id === current?.id ? 'true' : undefined}
                  onClick={() => select({ chat: c.id })}
                >
                  <span className={styles.chatName}>{c.name || c.address}</span>
                  {c.unreadCount > 0 && (
                    <span className={styles.unread} aria-label={`${c.unreadCount} unread`}>
                      {c.unreadCount}
                    </span>
                  )}
                  <span className={styles.chatPreview}>{c.lastMessage ? messagePreview(c.lastMessage) : ''}</span>
                  {c.lastMessageAt && (
                    <span className={styles.chatTime}>
                      <Time iso={c.lastMessageAt} relative />
                    </span>
                  )}
                </button>
              </li>
            ))}
          </ul>
        )}
      </nav>
      {current ? (
        <ChatView key={current.id} instance={instance} chat={current} onSent={reload} />
      ) : composing ? (
        <section className={styles.chatView} aria-label="New message">
          <header className={styles.chatHeader}>
            <h2>New message</h2>
          </header>
          <div className={styles.grow} />
          <Composer
            instance={instance}
            to={null}
            onSent={(m) => {
              reload();
              select({ chat: m.chatId });
            }}
          />
        </section>
      ) : (
        <div className={styles.chatView}>
          <EmptyState icon={<MessageSquare size={20} />} title="Choose a chat" headingLevel={2}>
            Pick a conversation on the left, or start a new one.
          </EmptyState>
        </div>
      )}
    </div>
  );
}

export default function ConversationsPage() {
  return (
    <>
      <PageHeader title="Messages" description="Conversations of an instance, updating live as messages arrive and receipts come back." />
      <Card flush>
        <WithInstance what="Messages">{(instance) => <Conversations key={instance.id} instance={instance} />}</WithInstance>
      </Card>
    </>
  );
}

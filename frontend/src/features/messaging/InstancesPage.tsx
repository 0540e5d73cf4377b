import { MessageSquare, Pencil, Plus, Power, PowerOff, QrCode, RotateCw, Smartphone, Trash2 } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
import { Link } from 'react-router';
import { useClient, useQuery, type CombinedError } from 'urql';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { ConfirmDialog } from '../../components/Dialog';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, InlineError, Loading, Notice } from '../../components/States';
import { Time } from '../../components/Time';
import { Toast } from '../../components/Toast';
import {
  ChannelsDocument,
  ConnectInstanceDocument,
  DeleteInstanceDocument,
  DisconnectInstanceDocument,
  InstancePairingDocument,
  InstancesDocument,
  PairSandboxInstanceDocument,
  RestartInstanceDocument,
  type InstanceFieldsFragment,
} from '../../graphql/generated';
import { errorMessage } from '../../lib/errors';
import { CallbackUrl } from './CallbackUrl';
import { channelLabel, displayValue, fieldLabel, type ChannelInfo } from './channelConfig';
import { CreateInstanceDialog } from './CreateInstanceDialog';
import { EditInstanceDialog } from './EditInstanceDialog';
import { InstanceStatusBadge } from './status';
import { useMessagingEvents } from './useMessagingEvents';
import styles from './Messaging.module.css';

/** The server's refusal of an expired pairing code (GET the code, or pair with it). */
function isPairingExpired(error: CombinedError | undefined): boolean {
  return !!error?.graphQLErrors.some((e) => e.extensions?.reason === 'pairing_expired');
}

/**
 * The QR code and pairing code of an instance waiting to be paired. Calls onExpired when the
 * server says the code expired; it is asked again when the code's expiry passes on screen.
 */
function Pairing({ instance, onExpired }: { instance: InstanceFieldsFragment; onExpired: () => void }) {
  const [result, refetch] = useQuery({ query: InstancePairingDocument, variables: { id: instance.id }, requestPolicy: 'network-only' });
  const p = result.data?.instancePairing;
  const expired = useRef(onExpired);
  useEffect(() => {
    expired.current = onExpired;
  });
  const refused = isPairingExpired(result.error);
  const expiresAt = p?.expiresAt;
  useEffect(() => {
    if (refused) {
      expired.current();
      return;
    }
    if (!expiresAt) return;
    // The server's clock decides (this one may be ahead): a second after the expiry, ask it.
    const timer = setTimeout(() => refetch({ requestPolicy: 'network-only' }), Math.max(0, Date.parse(expiresAt) - Date.now()) + 1000);
    return () => clearTimeout(timer);
  }, [refused, expiresAt, refetch]);

  if (refused) return null; // the card says it expired, with what to do
  if (result.error && !p) return <InlineError>{errorMessage(result.error)}</InlineError>;
  if (!p) return <Loading label="Loading the pairing code…" />;
  return (
    <div className={styles.pairing}>
      <img src={p.qrCode} width={160} height={160} alt={`Pairing QR code for ${instance.name}`} />
      <div>
        <p>Scan the QR code with the phone, or enter this pairing code:</p>
        <p className={styles.pairingCode} aria-label={`Pairing code ${p.pairingCode.split('').join(' ')}`}>
          {p.pairingCode}
        </p>
        <p className="muted">
          Expires <Time iso={p.expiresAt} relative />
        </p>
      </div>
    </div>
  );
}

type Action = 'connect' | 'disconnect' | 'restart' | 'pair';

const actionDocs = {
  connect: ConnectInstanceDocument,
  disconnect: DisconnectInstanceDocument,
  restart: RestartInstanceDocument,
  pair: PairSandboxInstanceDocument,
} as const;

const actionDone: Record<Action, string> = {
  connect: 'is connecting',
  disconnect: 'was disconnected',
  restart: 'is restarting',
  pair: 'was paired',
};

/** An instance's config as its channel describes it: write-only values show as ********. */
function Settings({ instance, channel }: { instance: InstanceFieldsFragment; channel?: ChannelInfo }) {
  const config = instance.config && typeof instance.config === 'object' ? (instance.config as Record<string, unknown>) : {};
  const rows = channel
    ? channel.configFields.map((f) => ({ name: f.name, label: fieldLabel(f.name), value: displayValue(f, config[f.name]), secret: f.secret }))
    : Object.entries(config).map(([k, v]) => ({ name: k, label: fieldLabel(k), value: displayValue(undefined, v), secret: false }));
  if (!rows.length) return null;
  return (
    <details className={styles.settings}>
      <summary>Settings</summary>
      <dl className={styles.facts} aria-label={`Settings of ${instance.name}`}>
        {rows.map((r) => (
          <div key={r.name}>
            <dt>{r.label}</dt>
            <dd className={r.secret ? 'mono' : undefined}>{r.value}</dd>
          </div>
        ))}
      </dl>
    </details>
  );
}

function InstanceCard({
  instance,
  channel,
  onToast,
  onEdit,
  onDelete,
}: {
  instance: InstanceFieldsFragment;
  channel?: ChannelInfo;
  onToast: (m: string) => void;
  onEdit: () => void;
  onDelete: () => void;
}) {
  const client = useClient();
  const [busy, setBusy] = useState<Action | null>(null);
  const [error, setError] = useState('');
  // The pairing round (updatedAt) whose code expired: connecting again starts a new one.
  const [expiredRound, setExpiredRound] = useState<string | null>(null);
  const i = instance;
  const codeExpired = i.status === 'pairing' && expiredRound === i.updatedAt;

  const run = async (action: Action) => {
    setBusy(action);
    setError('');
    const result = await client.mutation(actionDocs[action], { id: i.id }).toPromise();
    setBusy(null);
    // Said once, by the card's expired-code notice, rather than stacked as another error.
    if (isPairingExpired(result.error)) setExpiredRound(i.updatedAt);
    else if (result.error) setError(errorMessage(result.error));
    else onToast(`${i.name} ${actionDone[action]}`);
  };

  const canConnect = i.status === 'disconnected' || i.status === 'failed';
  return (
    <Card
      title={
        <span className={styles.instanceTitle}>
          {i.name} <InstanceStatusBadge status={i.status} reason={i.statusReason} />
        </span>
      }
      headingLevel={2}
      actions={
        <>
          {canConnect ? (
            <Button size="sm" icon={<Power size={14} aria-hidden="true" />} loading={busy === 'connect'} onClick={() => run('connect')} aria-label={`Connect ${i.name}`}>
              Connect
            </Button>
          ) : (
            <Button size="sm" icon={<PowerOff size={14} aria-hidden="true" />} loading={busy === 'disconnect'} onClick={() => run('disconnect')} aria-label={`Disconnect ${i.name}`}>
              Disconnect
            </Button>
          )}
          <Button size="sm" icon={<RotateCw size={14} aria-hidden="true" />} loading={busy === 'restart'} onClick={() => run('restart')} aria-label={`Restart ${i.name}`}>
            Restart
          </Button>
          {channel && (
            <Button size="sm" icon={<Pencil size={14} aria-hidden="true" />} onClick={onEdit} aria-label={`Edit ${i.name}`}>
              Edit
            </Button>
          )}
          <Button size="sm" variant="ghost" icon={<Trash2 size={14} aria-hidden="true" />} onClick={onDelete} aria-label={`Delete ${i.name}`}>
            Delete
          </Button>
        </>
      }
    >
      {i.status === 'failed' && (
        <div className={styles.failure}>
          <InlineError>
            <strong>Connection failed:</strong> {i.statusReason || 'no reason given.'}
            <span className={styles.failureHint}>{channel?.configFields.length ? 'Check its settings (Edit), then connect again.' : 'Connect to try again.'}</span>
          </InlineError>
        </div>
      )}
      <dl className={styles.facts}>
        <div>
          <dt>Number</dt>
          <dd className="mono">{i.address ?? '—'}</dd>
        </div>
        <div>
          <dt>Channel</dt>
          <dd>{channelLabel(i.channel)}</dd>
        </div>
        <div>
          <dt>ID</dt>
          <dd className="mono">{i.id}</dd>
        </div>
        <div>
          <dt>Created</dt>
          <dd>
            <Time iso={i.createdAt} relative />
          </dd>
        </div>
      </dl>
      {i.callbackUrl && <CallbackUrl instance={{ ...i, callbackUrl: i.callbackUrl }} onRotated={() => onToast(`${i.name} has a new callback URL`)} />}
      <Settings instance={i} channel={channel} />
      <InlineError>{error}</InlineError>
      {i.status === 'pairing' &&
        (codeExpired ? (
          // The server keeps the instance pairing with a dead code; connecting again makes a new one.
          <div className={styles.pairingExpired}>
            <Notice tone="warning">The pairing code expired. Get a new one to pair the phone.</Notice>
            <Button
              variant="primary"
              icon={<RotateCw size={14} aria-hidden="true" />}
              loading={busy === 'connect'}
              onClick={() => run('connect')}
              aria-label={`New pairing code for ${i.name}`}
            >
              New pairing code
            </Button>
          </div>
        ) : (
          <>
            {/* A new pairing code changes updatedAt: remounting loads it. */}
            <Pairing key={i.updatedAt} instance={i} onExpired={() => setExpiredRound(i.updatedAt)} />
            {i.channel === 'sandbox' && (
              <Button variant="primary" icon={<QrCode size={14} aria-hidden="true" />} loading={busy === 'pair'} onClick={() => run('pair')} aria-label={`Pair ${i.name} now`}>
                Pair now
              </Button>
            )}
          </>
        ))}
      {i.status === 'connected' && (
        <div className="row">
          <Link to={`/api/messages?instance=${i.id}`} className={styles.link} aria-label={`Open conversations of ${i.name}`}>
            <MessageSquare size={14} aria-hidden="true" /> Conversations
          </Link>
          <Link to={`/api/groups?instance=${i.id}`} className={styles.link}>
            Groups
          </Link>
          <Link to={`/api/contacts?instance=${i.id}`} className={styles.link}>
            Contacts
          </Link>
        </div>
      )}
    </Card>
  );
}

export default function InstancesPage() {
  const client = useClient();
  const [result, refetch] = useQuery({ query: InstancesDocument, variables: { first: 100 } });
  const [createOpen, setCreateOpen] = useState(false);
  const [toast, setToast] = useState('');
  const [channelsResult, refetchChannels] = useQuery({ query: ChannelsDocument });
  const [deleting, setDeleting] = useState<InstanceFieldsFragment | null>(null);
  const [editing, setEditing] = useState<InstanceFieldsFragment | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  const channels = channelsResult.data?.channels;
  const channelOf = (name: string) => channels?.find((c) => c.name === name);
  const editingChannel = editing ? channelOf(editing.channel) : undefined;
  useMessagingEvents(null, ['instance.'], reload);
  const list = result.data?.instances.nodes ?? [];

  return (
    <>
      <PageHeader
        title="Instances"
        description="Channel instances send and receive messages. Connect one, pair it, and its status updates here live."
        actions={
          <Button variant="primary" icon={<Plus size={15} aria-hidden="true" />} onClick={() => setCreateOpen(true)}>
            New instance
          </Button>
        }
      />
      {result.error && !result.data ? (
        <Card>
          <ErrorState error={result.error} title="Could not load instances" onRetry={reload} />
        </Card>
      ) : !result.data ? (
        <Card>
          <Loading label="Loading instances…" rows={3} />
        </Card>
      ) : list.length === 0 ? (
        <Card>
          <EmptyState
            icon={<Smartphone size={20} />}
            title="No instances yet"
            action={
              <Button variant="primary" icon={<Plus size={15} aria-hidden="true" />} onClick={() => setCreateOpen(true)}>
                Create your first instance
              </Button>
            }
          >
            Start with a sandbox instance: it gets a simulated phone number that can message your other instances.
          </EmptyState>
        </Card>
      ) : (
        <div className="stack" role="list" aria-label="Instances">
          {list.map((i) => (
            <div role="listitem" key={i.id}>
              <InstanceCard
                instance={i}
                channel={channelOf(i.channel)}
                onToast={(m) => (setToast(m), reload())}
                onEdit={() => setEditing(i)}
                onDelete={() => setDeleting(i)}
              />
            </div>
          ))}
        </div>
      )}
      <CreateInstanceDialog
        open={createOpen}
        onOpenChange={setCreateOpen}
        channels={{
          channels,
          error: channelsResult.error && !channelsResult.data ? errorMessage(channelsResult.error) : undefined,
          retry: () => refetchChannels({ requestPolicy: 'network-only' }),
        }}
        onCreated={(i) => {
          setToast(`Instance ${i.name} created`);
          reload();
        }}
      />
      {editing && editingChannel && (
        <EditInstanceDialog
          key={editing.id}
          instance={editing}
          channel={editingChannel}
          onClose={() => setEditing(null)}
          onSaved={(i) => {
            setEditing(null);
            setToast(`${i.name} saved`);
            reload();
          }}
        />
      )}
      <ConfirmDialog
        open={!!deleting}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={`Delete ${deleting?.name ?? 'instance'}?`}
        description="Its messages, chats, groups and contacts are deleted too, and queued messages are dropped. This cannot be undone."
        confirmLabel="Delete instance"
        danger
        onConfirm={async () => {
          if (!deleting) return;
          const r = await client.mutation(DeleteInstanceDocument, { id: deleting.id }).toPromise();
          if (r.error) throw new Error(errorMessage(r.error));
          setToast(`Instance ${deleting.name} deleted`);
          setDeleting(null);
          reload();
        }}
      />
      <Toast message={toast} onDismiss={() => setToast('')} />
    </>
  );
}

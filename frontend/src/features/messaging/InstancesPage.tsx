import { MessageSquare, Plus, Power, PowerOff, QrCode, RotateCw, Smartphone, Trash2 } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { Link } from 'react-router';
import { useClient, useQuery } from 'urql';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { ConfirmDialog, Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, InlineError, Loading } from '../../components/States';
import { Time } from '../../components/Time';
import { Toast } from '../../components/Toast';
import {
  ConnectInstanceDocument,
  CreateInstanceDocument,
  DeleteInstanceDocument,
  DisconnectInstanceDocument,
  InstancePairingDocument,
  InstancesDocument,
  PairSandboxInstanceDocument,
  RestartInstanceDocument,
  type InstanceFieldsFragment,
} from '../../graphql/generated';
import { errorMessage, fieldErrors } from '../../lib/errors';
import { InstanceStatusBadge } from './status';
import { useMessagingEvents } from './useMessagingEvents';
import styles from './Messaging.module.css';

/** The QR code and pairing code of an instance waiting to be paired. */
function Pairing({ instance }: { instance: InstanceFieldsFragment }) {
  const [result] = useQuery({ query: InstancePairingDocument, variables: { id: instance.id }, requestPolicy: 'network-only' });
  const p = result.data?.instancePairing;
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

function CreateInstanceDialog({ open, onOpenChange, onCreated }: { open: boolean; onOpenChange: (o: boolean) => void; onCreated: (i: InstanceFieldsFragment) => void }) {
  const client = useClient();
  const [name, setName] = useState('');
  const [autoPair, setAutoPair] = useState(false);
  const [connect, setConnect] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const change = (next: boolean) => {
    if (busy) return;
    if (next) {
      setName('');
      setAutoPair(false);
      setConnect(true);
    }
    setErrors({});
    onOpenChange(next);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      setErrors({ name: 'Enter a name, such as Support line.' });
      return;
    }
    setBusy(true);
    const result = await client
      .mutation(CreateInstanceDocument, { input: { name: name.trim(), channel: 'sandbox', config: { auto_pair: autoPair }, connect } })
      .toPromise();
    setBusy(false);
    if (!result.data) {
      const fields = fieldErrors(result.error);
      setErrors(Object.keys(fields).length ? fields : { form: errorMessage(result.error) });
      return;
    }
    onOpenChange(false);
    onCreated(result.data.createInstance);
  };

  return (
    <Dialog
      open={open}
      onOpenChange={change}
      title="New instance"
      description="An instance is one account on one channel: a phone number or a bot."
      onSubmit={submit}
      footer={
        <>
          <Button onClick={() => change(false)} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" loading={busy}>
            Create instance
          </Button>
        </>
      }
    >
      <div className="stack">
        <InlineError>{errors.form}</InlineError>
        <Field label="Name" error={errors.name}>
          <input className="input" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="Support line" />
        </Field>
        <Field label="Channel" hint="The sandbox simulates a phone network: no outside account needed.">
          <select className="select" value="sandbox" disabled>
            <option value="sandbox">Sandbox</option>
          </select>
        </Field>
        <label className={styles.check}>
          <input type="checkbox" className="checkbox" checked={autoPair} onChange={(e) => setAutoPair(e.target.checked)} />
          <span>Pair automatically on connect (as if the QR code were scanned)</span>
        </label>
        <label className={styles.check}>
          <input type="checkbox" className="checkbox" checked={connect} onChange={(e) => setConnect(e.target.checked)} />
          <span>Connect now</span>
        </label>
      </div>
    </Dialog>
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

function InstanceCard({ instance, onToast, onDelete }: { instance: InstanceFieldsFragment; onToast: (m: string) => void; onDelete: () => void }) {
  const client = useClient();
  const [busy, setBusy] = useState<Action | null>(null);
  const [error, setError] = useState('');
  const i = instance;

  const run = async (action: Action) => {
    setBusy(action);
    setError('');
    const result = await client.mutation(actionDocs[action], { id: i.id }).toPromise();
    setBusy(null);
    if (result.error) setError(errorMessage(result.error));
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
          <Button size="sm" variant="ghost" icon={<Trash2 size={14} aria-hidden="true" />} onClick={onDelete} aria-label={`Delete ${i.name}`}>
            Delete
          </Button>
        </>
      }
    >
      <dl className={styles.facts}>
        <div>
          <dt>Number</dt>
          <dd className="mono">{i.address ?? '—'}</dd>
        </div>
        <div>
          <dt>Channel</dt>
          <dd>{i.channel}</dd>
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
      {i.statusReason && i.status === 'failed' && <InlineError>{i.statusReason}</InlineError>}
      <InlineError>{error}</InlineError>
      {i.status === 'pairing' && (
        <>
          {/* A new pairing code changes updatedAt: remounting loads it. */}
          <Pairing key={i.updatedAt} instance={i} />
          {i.channel === 'sandbox' && (
            <Button variant="primary" icon={<QrCode size={14} aria-hidden="true" />} loading={busy === 'pair'} onClick={() => run('pair')} aria-label={`Pair ${i.name} now`}>
              Pair now
            </Button>
          )}
        </>
      )}
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
  const [deleting, setDeleting] = useState<InstanceFieldsFragment | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
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
              <InstanceCard instance={i} onToast={(m) => (setToast(m), reload())} onDelete={() => setDeleting(i)} />
            </div>
          ))}
        </div>
      )}
      <CreateInstanceDialog
        open={createOpen}
        onOpenChange={setCreateOpen}
        onCreated={(i) => {
          setToast(`Instance ${i.name} created`);
          reload();
        }}
      />
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

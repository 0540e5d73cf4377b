import { LogOut, Plus, UserMinus, UserPlus, Users } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { useClient, useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { ConfirmDialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Form } from '../../components/Form';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, InlineError, Loading } from '../../components/States';
import { Toast } from '../../components/Toast';
import {
  ChangeGroupParticipantsDocument,
  CreateGroupDocument,
  GroupsDocument,
  LeaveGroupDocument,
  type GroupFieldsFragment,
  type InstanceFieldsFragment,
} from '../../graphql/generated';
import { errorMessage, errorsByField } from '../../lib/errors';
import { WithInstance } from './InstancePicker';
import { parseAddresses } from './text';
import { useMessagingEvents } from './useMessagingEvents';
import styles from './Messaging.module.css';

function CreateGroupForm({ instance, onCreated }: { instance: InstanceFieldsFragment; onCreated: (g: GroupFieldsFragment) => void }) {
  const client = useClient();
  const [subject, setSubject] = useState('');
  const [participants, setParticipants] = useState('');
  const [errors, setErrors] = useState<Partial<Record<'subject' | 'participants' | 'form', string>>>({});
  const [busy, setBusy] = useState(false);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const list = parseAddresses(participants);
    const local: typeof errors = {};
    if (!subject.trim()) local.subject = 'Enter a subject.';
    if (!list.length) local.participants = 'Add at least one phone number.';
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    const r = await client.mutation(CreateGroupDocument, { instanceId: instance.id, input: { subject: subject.trim(), participants: list } }).toPromise();
    setBusy(false);
    if (!r.data) {
      setErrors(errorsByField(r.error, ['subject', 'participants']));
      return;
    }
    setSubject('');
    setParticipants('');
    onCreated(r.data.createGroup);
  };

  return (
    <Form onSubmit={submit} className="stack" aria-label="Create a group">
      <InlineError>{errors.form}</InlineError>
      <Field label="Subject" error={errors.subject}>
        <input className="input" value={subject} onChange={(e) => setSubject(e.target.value)} maxLength={100} />
      </Field>
      <Field label="Participants" error={errors.participants} hint="Phone numbers, one per line or separated by commas.">
        <textarea className="input mono" rows={2} value={participants} onChange={(e) => setParticipants(e.target.value)} placeholder="+15551234567" />
      </Field>
      <div>
        <Button type="submit" variant="primary" loading={busy} icon={<Plus size={14} aria-hidden="true" />} disabled={instance.status !== 'connected'}>
          Create group
        </Button>
      </div>
    </Form>
  );
}

function GroupCard({ instance, group, onToast, onLeave }: { instance: InstanceFieldsFragment; group: GroupFieldsFragment; onToast: (m: string) => void; onLeave: () => void }) {
  const client = useClient();
  const [add, setAdd] = useState('');
  const [error, setError] = useState('');
  // An error of the add form shows under its field, not above the list of participants.
  const [addError, setAddError] = useState('');
  const [busy, setBusy] = useState<string | null>(null);
  const g = group;

  const change = async (key: string, vars: { add?: string[]; remove?: string[] }, done: string) => {
    setBusy(key);
    setError('');
    setAddError('');
    const r = await client.mutation(ChangeGroupParticipantsDocument, { instanceId: instance.id, id: g.id, add: vars.add ?? null, remove: vars.remove ?? null }).toPromise();
    setBusy(null);
    if (r.error) (vars.add ? setAddError : setError)(errorMessage(r.error));
    else {
      onToast(done);
      if (vars.add) setAdd('');
    }
  };

  const addId = `add-${g.id}`;
  return (
    <Card
      title={
        <span className={styles.instanceTitle}>
          {g.subject} {g.left && <Badge>Left</Badge>}
        </span>
      }
      description={g.description || undefined}
      actions={
        !g.left && (
          <Button size="sm" variant="ghost" icon={<LogOut size={14} aria-hidden="true" />} onClick={onLeave} aria-label={`Leave ${g.subject}`}>
            Leave
          </Button>
        )
      }
    >
      <p className="muted mono">{g.address}</p>
      <InlineError>{error}</InlineError>
      <ul className={styles.participants} aria-label={`Participants of ${g.subject}`}>
        {g.participants.map((p) => (
          <li key={p.address}>
            <span className="mono">{p.address}</span>
            {p.role === 'admin' && <Badge tone="purple">admin</Badge>}
            {!g.left && p.address !== instance.address && (
              <Button
                size="sm"
                variant="ghost"
                icon={<UserMinus size={14} aria-hidden="true" />}
                loading={busy === p.address}
                aria-label={`Remove ${p.address} from ${g.subject}`}
                onClick={() => change(p.address, { remove: [p.address] }, `${p.address} removed from ${g.subject}`)}
              >
                Remove
              </Button>
            )}
          </li>
        ))}
      </ul>
      {!g.left && (
        <Form
          className={styles.inlineForm}
          onSubmit={() => {
            const list = parseAddresses(add);
            if (!list.length) {
              setAddError('Enter a phone number to add.');
              return;
            }
            return change('add', { add: list }, `Added to ${g.subject}`);
          }}
        >
          <label htmlFor={addId}>Add participant</label>
          <input
            id={addId}
            className="input mono"
            value={add}
            onChange={(e) => setAdd(e.target.value)}
            placeholder="+15551234567"
            aria-invalid={addError ? true : undefined}
            aria-describedby={addError ? `${addId}-error` : undefined}
          />
          <Button type="submit" size="sm" loading={busy === 'add'} icon={<UserPlus size={14} aria-hidden="true" />}>
            Add
          </Button>
        </Form>
      )}
      {!g.left && addError && (
        <p id={`${addId}-error`} className={styles.error} role="alert">
          {addError}
        </p>
      )}
    </Card>
  );
}

function Groups({ instance }: { instance: InstanceFieldsFragment }) {
  const client = useClient();
  const [result, refetch] = useQuery({ query: GroupsDocument, variables: { instanceId: instance.id, first: 100 }, requestPolicy: 'network-only' });
  const [toast, setToast] = useState('');
  const [leaving, setLeaving] = useState<GroupFieldsFragment | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  useMessagingEvents(instance.id, ['group.'], reload);
  const list = result.data?.groups.nodes ?? [];

  return (
    <div className="stack">
      <Card title="New group" headingLevel={2}>
        <CreateGroupForm
          instance={instance}
          onCreated={(g) => {
            setToast(`Group ${g.subject} created`);
            reload();
          }}
        />
      </Card>
      {result.error && !result.data ? (
        <ErrorState error={result.error} title="Could not load groups" onRetry={reload} />
      ) : !result.data ? (
        <Loading label="Loading groups…" rows={3} />
      ) : list.length === 0 ? (
        <EmptyState icon={<Users size={20} />} title="No groups yet">
          Create a group above, or add this instance to one from another instance.
        </EmptyState>
      ) : (
        list.map((g) => <GroupCard key={g.id} instance={instance} group={g} onToast={(m) => (setToast(m), reload())} onLeave={() => setLeaving(g)} />)
      )}
      <ConfirmDialog
        open={!!leaving}
        onOpenChange={(o) => !o && setLeaving(null)}
        title={`Leave ${leaving?.subject ?? 'group'}?`}
        description="The group stays listed, read-only. Someone in it has to add this instance again."
        confirmLabel="Leave group"
        danger
        onConfirm={async () => {
          if (!leaving) return;
          const r = await client.mutation(LeaveGroupDocument, { instanceId: instance.id, id: leaving.id }).toPromise();
          if (r.error) return errorMessage(r.error);
          setToast(`Left ${leaving.subject}`);
          setLeaving(null);
          reload();
        }}
      />
      <Toast message={toast} onDismiss={() => setToast('')} />
    </div>
  );
}

export default function GroupsPage() {
  return (
    <>
      <PageHeader title="Groups" description="Create groups, change their participants, or leave them." />
      <WithInstance what="Groups">{(instance) => <Groups key={instance.id} instance={instance} />}</WithInstance>
    </>
  );
}

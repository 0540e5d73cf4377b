import { Contact as ContactIcon, Pencil, Plus, Trash2 } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { useClient, useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { ConfirmDialog, Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, InlineError, Loading } from '../../components/States';
import { Table } from '../../components/Table';
import { Time } from '../../components/Time';
import { Toast } from '../../components/Toast';
import {
  ContactsDocument,
  CreateContactDocument,
  DeleteContactDocument,
  UpdateContactDocument,
  type ContactFieldsFragment,
  type InstanceFieldsFragment,
} from '../../graphql/generated';
import { errorMessage, errorsByField } from '../../lib/errors';
import { WithInstance } from './InstancePicker';
import { parseLabels } from './text';
import { useMessagingEvents } from './useMessagingEvents';

interface ContactValues {
  address: string;
  name: string;
  labels: string;
}

type ContactErrors = Partial<Record<keyof ContactValues | 'form', string>>;

/** Creates a contact (contact null) or edits one's name and labels. */
function ContactDialog({
  open,
  onOpenChange,
  contact,
  onSubmit,
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  contact: ContactFieldsFragment | null;
  onSubmit: (v: ContactValues) => Promise<ContactErrors | null>;
}) {
  const initial = { address: contact?.address ?? '', name: contact?.name ?? '', labels: contact?.labels.join(', ') ?? '' };
  const [values, setValues] = useState<ContactValues>(initial);
  const [errors, setErrors] = useState<ContactErrors>({});
  const [busy, setBusy] = useState(false);
  const change = (o: boolean) => {
    if (busy) return;
    setErrors({});
    onOpenChange(o);
  };
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!contact && !values.address.trim()) {
      setErrors({ address: 'Enter a phone number, such as +15551234567.' });
      return;
    }
    setBusy(true);
    const r = await onSubmit(values);
    setBusy(false);
    if (r) setErrors(r);
  };
  return (
    <Dialog
      open={open}
      onOpenChange={change}
      title={contact ? `Edit ${contact.name || contact.address}` : 'New contact'}
      onSubmit={submit}
      footer={
        <>
          <Button onClick={() => change(false)} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" loading={busy}>
            {contact ? 'Save contact' : 'Create contact'}
          </Button>
        </>
      }
    >
      <div className="stack">
        <InlineError>{errors.form}</InlineError>
        {!contact && (
          <Field label="Phone number" error={errors.address}>
            <input className="input mono" value={values.address} onChange={(e) => setValues({ ...values, address: e.target.value })} placeholder="+15551234567" />
          </Field>
        )}
        <Field label="Name" optional error={errors.name}>
          <input className="input" value={values.name} onChange={(e) => setValues({ ...values, name: e.target.value })} maxLength={200} />
        </Field>
        <Field label="Labels" optional error={errors.labels} hint="Separated by commas, such as vip, beta.">
          <input className="input" value={values.labels} onChange={(e) => setValues({ ...values, labels: e.target.value })} />
        </Field>
      </div>
    </Dialog>
  );
}

function Contacts({ instance }: { instance: InstanceFieldsFragment }) {
  const client = useClient();
  const [result, refetch] = useQuery({ query: ContactsDocument, variables: { instanceId: instance.id, first: 100 }, requestPolicy: 'network-only' });
  const [toast, setToast] = useState('');
  const [creating, setCreating] = useState(false);
  const [editing, setEditing] = useState<ContactFieldsFragment | null>(null);
  const [deleting, setDeleting] = useState<ContactFieldsFragment | null>(null);
  const reload = () => refetch({ requestPolicy: 'network-only' });
  useMessagingEvents(instance.id, ['contact.'], reload);
  const list = result.data?.contacts.nodes ?? [];

  return (
    <>
      <Card
        flush
        title="Contacts"
        id="contacts"
        description="Created automatically when someone writes, and editable here."
        actions={
          <Button variant="primary" size="sm" icon={<Plus size={14} aria-hidden="true" />} onClick={() => setCreating(true)}>
            New contact
          </Button>
        }
      >
        {result.error && !result.data ? (
          <ErrorState error={result.error} title="Could not load contacts" onRetry={reload} headingLevel={3} />
        ) : !result.data ? (
          <Loading label="Loading contacts…" rows={3} />
        ) : list.length === 0 ? (
          <EmptyState icon={<ContactIcon size={20} />} title="No contacts yet" headingLevel={3}>
            Contacts appear when someone writes to this instance, or add one yourself.
          </EmptyState>
        ) : (
          <Table label="Contacts">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Number</th>
                <th scope="col">Labels</th>
                <th scope="col">Added</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((c) => (
                <tr key={c.id}>
                  <td>{c.name || <span className="muted">No name</span>}</td>
                  <td className="mono">{c.address}</td>
                  <td>
                    {c.labels.map((l) => (
                      <Badge key={l}>{l}</Badge>
                    ))}
                  </td>
                  <td>
                    <Time iso={c.createdAt} relative />
                  </td>
                  <td>
                    <div className="row">
                      <Button size="sm" variant="ghost" icon={<Pencil size={14} aria-hidden="true" />} onClick={() => setEditing(c)} aria-label={`Edit ${c.name || c.address}`}>
                        Edit
                      </Button>
                      <Button size="sm" variant="ghost" icon={<Trash2 size={14} aria-hidden="true" />} onClick={() => setDeleting(c)} aria-label={`Delete ${c.name || c.address}`}>
                        Delete
                      </Button>
                    </div>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>
      {creating && (
        <ContactDialog
          open
          onOpenChange={setCreating}
          contact={null}
          onSubmit={async (v) => {
            const r = await client
              .mutation(CreateContactDocument, { instanceId: instance.id, input: { address: v.address.trim(), name: v.name.trim() || null, labels: parseLabels(v.labels) } })
              .toPromise();
            if (!r.data) return errorsByField(r.error, ['address', 'name', 'labels']);
            setCreating(false);
            setToast(`Contact ${r.data.createContact.name || r.data.createContact.address} created`);
            reload();
            return null;
          }}
        />
      )}
      {editing && (
        <ContactDialog
          open
          onOpenChange={(o) => !o && setEditing(null)}
          contact={editing}
          onSubmit={async (v) => {
            const r = await client.mutation(UpdateContactDocument, { instanceId: instance.id, id: editing.id, input: { name: v.name.trim(), labels: parseLabels(v.labels) } }).toPromise();
            // The number cannot be changed, so an error about it shows above the form.
            if (!r.data) return errorsByField(r.error, ['name', 'labels']);
            setEditing(null);
            setToast(`Contact ${r.data.updateContact.name || r.data.updateContact.address} saved`);
            reload();
            return null;
          }}
        />
      )}
      <ConfirmDialog
        open={!!deleting}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={`Delete ${deleting?.name || deleting?.address || 'contact'}?`}
        description="Its messages and chats stay. Writing again creates the contact again."
        confirmLabel="Delete contact"
        danger
        onConfirm={async () => {
          if (!deleting) return;
          const r = await client.mutation(DeleteContactDocument, { instanceId: instance.id, id: deleting.id }).toPromise();
          if (r.error) return errorMessage(r.error);
          setToast(`Contact ${deleting.name || deleting.address} deleted`);
          setDeleting(null);
          reload();
        }}
      />
      <Toast message={toast} onDismiss={() => setToast('')} />
    </>
  );
}

export default function ContactsPage() {
  return (
    <>
      <PageHeader title="Contacts" description="The people an instance talks with, with names and labels." />
      <WithInstance what="Contacts">{(instance) => <Contacts key={instance.id} instance={instance} />}</WithInstance>
    </>
  );
}

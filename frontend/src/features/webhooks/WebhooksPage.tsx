import { Plus, Webhook as WebhookIcon } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Link, useNavigate } from 'react-router';
import { useClient, useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { PageHeader } from '../../components/PageHeader';
import { SecretDialog } from '../../components/SecretDialog';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { Table } from '../../components/Table';
import { Time } from '../../components/Time';
import { CreateWebhookDocument, WebhooksDocument, type WebhookFieldsFragment } from '../../graphql/generated';
import { toFormErrors, valuesFrom } from './form';
import { WebhookFormDialog } from './WebhookForm';
import styles from './Webhooks.module.css';

export function EventTypeBadges({ types }: { types: string[] }) {
  if (types.includes('*')) return <Badge tone="purple">All events</Badge>;
  const shown = types.slice(0, 3);
  return (
    <span className={styles.types} title={types.join(', ')}>
      {shown.map((t) => (
        <Badge key={t} mono>
          {t}
        </Badge>
      ))}
      {types.length > shown.length && <Badge>+{types.length - shown.length} more</Badge>}
    </span>
  );
}

export function StatusBadge({ webhook }: { webhook: Pick<WebhookFieldsFragment, 'enabled' | 'disabledReason'> }) {
  if (webhook.enabled) return <Badge tone="green" dot>Enabled</Badge>;
  return (
    <Badge tone={webhook.disabledReason ? 'red' : 'neutral'} dot title={webhook.disabledReason ?? undefined}>
      Disabled
    </Badge>
  );
}

export default function WebhooksPage() {
  const client = useClient();
  const navigate = useNavigate();
  const context = useMemo(() => ({ additionalTypenames: ['Webhook'] }), []);
  const [hooks, refetch] = useQuery({ query: WebhooksDocument, context });
  const [createOpen, setCreateOpen] = useState(false);
  const [created, setCreated] = useState<{ secret: string; webhook: WebhookFieldsFragment } | null>(null);
  const list = hooks.data?.webhooks ?? [];

  return (
    <>
      <PageHeader
        title="Webhooks"
        description="Switchboard POSTs every event you choose to your endpoints, signed per the Standard Webhooks specification, and retries until they answer 2xx."
        actions={
          <Button variant="primary" icon={<Plus size={15} aria-hidden="true" />} onClick={() => setCreateOpen(true)}>
            Add endpoint
          </Button>
        }
      />
      <Card flush>
        {hooks.error && !hooks.data ? (
          <ErrorState error={hooks.error} title="Could not load webhook endpoints" onRetry={() => refetch({ requestPolicy: 'network-only' })} />
        ) : !hooks.data ? (
          <Loading label="Loading webhook endpoints…" rows={3} />
        ) : list.length === 0 ? (
          <EmptyState
            icon={<WebhookIcon size={20} />}
            title="No webhook endpoints yet"
            action={
              <Button variant="primary" icon={<Plus size={15} aria-hidden="true" />} onClick={() => setCreateOpen(true)}>
                Add your first endpoint
              </Button>
            }
          >
            Add an endpoint to receive events such as api_key.created or message.received as they happen.
          </EmptyState>
        ) : (
          <Table label="Webhook endpoints">
            <thead>
              <tr>
                <th scope="col">Endpoint</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((w) => (
                <tr key={w.id}>
                  <td>
                    <Link to={`/api/webhooks/${w.id}`} className={styles.url}>
                      {w.url}
                    </Link>
                    {w.description && <div className="muted">{w.description}</div>}
                  </td>
                  <td>
                    <EventTypeBadges types={w.eventTypes} />
                  </td>
                  <td>
                    <StatusBadge webhook={w} />
                  </td>
                  <td>
                    <Time iso={w.createdAt} relative />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>
      <WebhookFormDialog
        open={createOpen}
        onOpenChange={setCreateOpen}
        title="Add webhook endpoint"
        submitLabel="Add endpoint"
        initial={valuesFrom(null)}
        onSubmit={async (v) => {
          const result = await client
            .mutation(CreateWebhookDocument, {
              input: { url: v.url, description: v.description || null, eventTypes: v.eventTypes, instanceId: v.instanceId || null, enabled: v.enabled },
            })
            .toPromise();
          if (!result.data) return toFormErrors(result.error);
          setCreateOpen(false);
          setCreated(result.data.createWebhook);
          return null;
        }}
      />
      <SecretDialog
        secret={created?.secret ?? null}
        title="Save your signing secret"
        label="Webhook signing secret"
        warning="Use this secret to verify that deliveries come from Switchboard. It will not be shown again."
        onClose={() => {
          const id = created?.webhook.id;
          setCreated(null);
          if (id) navigate(`/api/webhooks/${id}`);
        }}
      >
        Verify the <code>webhook-signature</code> header with any Standard Webhooks library. You can rotate the secret at any
        time from the endpoint page.
      </SecretDialog>
    </>
  );
}

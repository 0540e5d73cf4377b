import { BellRing, Plus, Trash2 } from 'lucide-react';
import { useMemo, useState } from 'react';
import { useClient, useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { ConfirmDialog } from '../../components/Dialog';
import { SecretDialog } from '../../components/SecretDialog';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { Table } from '../../components/Table';
import { Time } from '../../components/Time';
import {
  AutomationSubscriptionsDocument,
  CreateAutomationSubscriptionDocument,
  DeleteAutomationSubscriptionDocument,
  type AutomationSubscriptionFieldsFragment,
} from '../../graphql/generated';
import { errorCode, errorMessage } from '../../lib/errors';
import { SubscribeDialog } from './SubscribeDialog';
import { toSubscribeErrors } from './subscriptionForm';
import { useAutomationEvents } from './useAutomationEvents';
import styles from './Subscriptions.module.css';

type Subscription = AutomationSubscriptionFieldsFragment;

/** Subscriptions made or removed elsewhere (a workflow tool through the API, a 410, 5 days of failures). */
const subscriptionChangeTypes = ['automation.subscription_created', 'automation.subscription_deleted', 'automation.subscription_disabled'];

function EventTypes({ types }: { types: string[] }) {
  if (types.includes('*')) return <Badge tone="purple">All events</Badge>;
  return (
    <span className={styles.types}>
      {types.map((t) => (
        <Badge key={t} mono>
          {t}
        </Badge>
      ))}
    </span>
  );
}

/**
 * Workflow tools' outbound subscriptions (REST hooks): the list, subscribing a URL (its signing
 * secret shown once) and unsubscribing after a confirmation. onToast reports what was done.
 */
export function SubscriptionsSection({ onToast }: { onToast: (message: string) => void }) {
  const client = useClient();
  const [subscribing, setSubscribing] = useState(false);
  const [created, setCreated] = useState<{ secret: string; subscription: Subscription } | null>(null);
  const [deleting, setDeleting] = useState<Subscription | null>(null);

  const context = useMemo(() => ({ additionalTypenames: ['AutomationSubscription'] }), []);
  const [result, refetch] = useQuery({ query: AutomationSubscriptionsDocument, context, requestPolicy: 'cache-and-network' });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  useAutomationEvents(reload, { types: subscriptionChangeTypes });
  const list = result.data?.automationSubscriptions ?? [];

  const subscribeButton = (label: string, variant: 'primary' | 'secondary') => (
    <Button variant={variant} icon={<Plus size={15} aria-hidden="true" />} onClick={() => setSubscribing(true)}>
      {label}
    </Button>
  );

  return (
    <div className={styles.section}>
      <Card
        flush
        title="Subscriptions (REST hooks)"
        id="subscriptions"
        description="Outbound: Zapier, n8n or Make subscribe a URL to events (POST /api/v1/automation/subscriptions), and Switchboard POSTs each event there, signed."
        actions={list.length > 0 && subscribeButton('Subscribe', 'secondary')}
      >
        {result.error && !result.data ? (
          <ErrorState headingLevel={3} error={result.error} title="Could not load the subscriptions" onRetry={reload} />
        ) : !result.data ? (
          <Loading label="Loading subscriptions…" rows={2} />
        ) : list.length === 0 ? (
          <EmptyState headingLevel={3} icon={<BellRing size={20} />} title="No subscriptions yet" action={subscribeButton('Subscribe a URL', 'secondary')}>
            A workflow tool subscribes when you turn on a Switchboard trigger; you can also subscribe a URL here.
          </EmptyState>
        ) : (
          <Table label="Subscriptions">
            <thead>
              <tr>
                <th scope="col">Target URL</th>
                <th scope="col">Events</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
                <th scope="col">
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((s) => (
                <tr key={s.id}>
                  <td>
                    <div className={styles.target}>{s.targetUrl}</div>
                    {s.description && <div className="muted">{s.description}</div>}
                  </td>
                  <td>
                    <EventTypes types={s.eventTypes} />
                  </td>
                  <td>
                    <Badge tone={s.enabled ? 'green' : 'red'} dot>
                      {s.enabled ? 'Enabled' : 'Disabled'}
                    </Badge>
                    {!s.enabled && s.disabledReason && <div className={styles.reason}>{s.disabledReason}</div>}
                  </td>
                  <td>
                    <Time iso={s.createdAt} relative />
                  </td>
                  <td>
                    <Button size="sm" variant="ghost" icon={<Trash2 size={14} aria-hidden="true" />} aria-label={`Delete subscription to ${s.targetUrl}`} onClick={() => setDeleting(s)}>
                      Delete
                    </Button>
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>

      {subscribing && (
        <SubscribeDialog
          onOpenChange={setSubscribing}
          onSubmit={async (input) => {
            const r = await client.mutation(CreateAutomationSubscriptionDocument, { input }).toPromise();
            if (!r.data) return toSubscribeErrors(r.error);
            const payload = r.data.createAutomationSubscription;
            setSubscribing(false);
            setCreated(payload);
            onToast(`Subscribed ${payload.subscription.targetUrl}`);
            reload();
            return null;
          }}
        />
      )}
      <SecretDialog
        secret={created?.secret ?? null}
        title="Save your subscription secret"
        label="Subscription signing secret"
        warning={`Deliveries to ${created?.subscription.targetUrl ?? 'the target'} are signed with this secret. It will not be shown again.`}
        onClose={() => setCreated(null)}
      >
        <p>
          Zapier ignores it: there is nothing to paste there. In n8n or Make you can verify each delivery’s{' '}
          <code>webhook-signature</code> header with it (with <code>webhook-id</code> and <code>webhook-timestamp</code>), as the
          Standard Webhooks libraries do.
        </p>
      </SecretDialog>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title="Delete this subscription?"
        description={
          <>
            Switchboard stops sending events to <code className="mono">{deleting?.targetUrl}</code> at once, and drops the deliveries not yet
            sent. A workflow that still needs them has to subscribe again.
          </>
        }
        confirmLabel="Delete subscription"
        danger
        onConfirm={async () => {
          const s = deleting;
          if (!s) return;
          const r = await client.mutation(DeleteAutomationSubscriptionDocument, { id: s.id }).toPromise();
          // Already gone (its target answered 410, or the tool unsubscribed): what was asked for.
          if (r.error && errorCode(r.error) !== 'NOT_FOUND') return errorMessage(r.error);
          onToast(`Subscription to ${s.targetUrl} deleted`);
          reload();
        }}
      />
    </div>
  );
}

import { ArrowLeft, ChevronDown, ChevronRight, History, Pencil, Power, RefreshCw, RotateCw, Send, Trash2 } from 'lucide-react';
import { Fragment, useEffect, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useClient, useQuery } from 'urql';
import { Badge, type BadgeTone } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { ConfirmDialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { PageHeader } from '../../components/PageHeader';
import { SecretDialog } from '../../components/SecretDialog';
import { EmptyState, ErrorState, InlineError, Loading, Notice } from '../../components/States';
import { Table } from '../../components/Table';
import tableStyles from '../../components/Table.module.css';
import { Time } from '../../components/Time';
import {
  DeleteWebhookDocument,
  EventTypesDocument,
  RetryWebhookDeliveryDocument,
  RotateWebhookSecretDocument,
  TestWebhookDocument,
  UpdateWebhookDocument,
  WebhookDeliveriesDocument,
  WebhookDocument,
  type DeliveryFieldsFragment,
} from '../../graphql/generated';
import { errorCode, errorMessage } from '../../lib/errors';
import { formatDateTime } from '../../lib/format';
import { toFormErrors, valuesFrom } from './form';
import { RecoverDeliveriesDialog } from './RecoverDeliveriesDialog';
import { WebhookFormDialog } from './WebhookForm';
import { EventTypeBadges, StatusBadge } from './WebhooksPage';
import styles from './Webhooks.module.css';

const deliveryTone: Record<string, BadgeTone> = { succeeded: 'green', failed: 'red', pending: 'amber' };

/** Times the list is fetched again while a test delivery waits for its first attempt (each 1 s). */
const MAX_TEST_POLLS = 30;

/** What became of a delivery, in a sentence: its status as the deliveries table shows it. */
function deliveryOutcome(d: DeliveryFieldsFragment): string {
  const last = d.attempts[d.attempts.length - 1];
  const answer = last ? (last.statusCode ? `the endpoint answered ${last.statusCode}` : (last.error ?? 'no response')) : '';
  if (d.status === 'succeeded') return `delivered: ${answer}.`;
  if (d.status === 'failed') return `failed: ${answer}.`;
  if (last) return `not delivered yet (${answer}); it will be tried again.`;
  return 'sent; waiting for the endpoint to answer…';
}

/**
 * The result of "Send test event", in step with the deliveries table: it reads the same query
 * (the table's first page) and fetches it again until the first attempt is made.
 */
function TestResult({ webhookId, sent }: { webhookId: string; sent: DeliveryFieldsFragment }) {
  const context = useMemo(() => ({ additionalTypenames: ['WebhookDelivery'] }), []);
  const [deliveries, refetch] = useQuery({ query: WebhookDeliveriesDocument, variables: { webhookId, first: 20, after: null }, context });
  const [polls, setPolls] = useState(0);
  const d = deliveries.data?.webhookDeliveries.nodes.find((x) => x.id === sent.id) ?? sent;
  const waiting = d.status === 'pending' && d.attempts.length === 0 && polls < MAX_TEST_POLLS;
  useEffect(() => {
    if (!waiting || deliveries.fetching) return;
    const timer = setTimeout(() => {
      setPolls((n) => n + 1);
      refetch({ requestPolicy: 'network-only' });
    }, 1000);
    return () => clearTimeout(timer);
  }, [waiting, deliveries.fetching, deliveries.data, refetch]);
  return (
    <>
      Test event {d.eventType} ({d.id}) {deliveryOutcome(d)}
    </>
  );
}

function Deliveries({ webhookId, enabled, onEndpointChanged }: { webhookId: string; enabled: boolean; onEndpointChanged: () => void }) {
  const client = useClient();
  const context = useMemo(() => ({ additionalTypenames: ['WebhookDelivery'] }), []);
  const [after, setAfter] = useState<string | null>(null);
  const [deliveries, refetch] = useQuery({ query: WebhookDeliveriesDocument, variables: { webhookId, first: 20, after }, context });
  const [open, setOpen] = useState<Set<string>>(new Set());
  const [retrying, setRetrying] = useState<string | null>(null);
  const [error, setError] = useState('');
  const [recoverOpen, setRecoverOpen] = useState(false);
  const list = deliveries.data?.webhookDeliveries.nodes ?? [];
  // Failed deliveries may be on a later page than this one: only a complete first page with
  // none failed says there is nothing to recover.
  const mayHaveFailed = !!deliveries.data && (!!after || deliveries.data.webhookDeliveries.hasMore || list.some((d) => d.status === 'failed'));

  const toggle = (id: string) =>
    setOpen((s) => {
      const n = new Set(s);
      if (n.has(id)) n.delete(id);
      else n.add(id);
      return n;
    });

  const retry = async (d: DeliveryFieldsFragment) => {
    setRetrying(d.id);
    setError('');
    const result = await client.mutation(RetryWebhookDeliveryDocument, { webhookId, deliveryId: d.id }).toPromise();
    setRetrying(null);
    if (result.error) setError(errorMessage(result.error));
    else refetch({ requestPolicy: 'network-only' });
  };

  return (
    <Card
      title="Deliveries"
      description="Every attempt to deliver an event to this endpoint, newest first."
      id="deliveries"
      flush
      actions={
        <>
          {enabled && mayHaveFailed && (
            <Button size="sm" icon={<History size={14} aria-hidden="true" />} onClick={() => setRecoverOpen(true)}>
              Recover failed deliveries
            </Button>
          )}
          <Button size="sm" icon={<RefreshCw size={14} aria-hidden="true" />} onClick={() => refetch({ requestPolicy: 'network-only' })} loading={deliveries.fetching && !!deliveries.data}>
            Refresh
          </Button>
        </>
      }
    >
      {error && (
        <div style={{ padding: '12px 16px 0' }}>
          <InlineError>{error}</InlineError>
        </div>
      )}
      {deliveries.error && !deliveries.data ? (
        <ErrorState headingLevel={3} error={deliveries.error} title="Could not load deliveries" onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !deliveries.data ? (
        <Loading label="Loading deliveries…" rows={3} />
      ) : list.length === 0 ? (
        <EmptyState headingLevel={3} icon={<Send size={20} />} title={after ? 'No more deliveries' : 'No deliveries yet'}>
          Deliveries appear here when a matching event happens. Send a test event to try your endpoint now.
        </EmptyState>
      ) : (
        <Table label="Deliveries">
          <thead>
            <tr>
              <th scope="col">
                <span className="visually-hidden">Details</span>
              </th>
              <th scope="col">Event</th>
              <th scope="col">Status</th>
              <th scope="col">Attempts</th>
              <th scope="col">Last response</th>
              <th scope="col">Created</th>
              <th scope="col" className={tableStyles.right}>
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {list.map((d) => {
              const last = d.attempts[d.attempts.length - 1];
              const expanded = open.has(d.id);
              return (
                <Fragment key={d.id}>
                  <tr>
                    <td style={{ width: 36 }}>
                      <Button
                        variant="ghost"
                        size="sm"
                        aria-expanded={expanded}
                        aria-label={`${expanded ? 'Hide' : 'Show'} attempts of ${d.id}`}
                        onClick={() => toggle(d.id)}
                        icon={expanded ? <ChevronDown size={14} aria-hidden="true" /> : <ChevronRight size={14} aria-hidden="true" />}
                      />
                    </td>
                    <td>
                      <Badge mono>{d.eventType}</Badge>
                      <div className="muted mono" style={{ fontSize: 11.5, marginTop: 2 }}>
                        {d.eventId}
                      </div>
                    </td>
                    <td>
                      <Badge tone={deliveryTone[d.status] ?? 'neutral'} dot>
                        {d.status}
                      </Badge>
                      {d.status === 'pending' && d.nextAttemptAt && (
                        <div className="muted" style={{ fontSize: 12 }}>
                          next <Time iso={d.nextAttemptAt} relative />
                        </div>
                      )}
                    </td>
                    <td>{d.attempts.length}</td>
                    <td>
                      {last ? (
                        last.statusCode ? (
                          <span className="mono">
                            {last.statusCode} · {last.latencyMs} ms
                          </span>
                        ) : (
                          <span className="muted">{last.error ?? 'no response'}</span>
                        )
                      ) : (
                        <span className="muted">—</span>
                      )}
                    </td>
                    <td>
                      <Time iso={d.createdAt} relative />
                    </td>
                    <td className={tableStyles.right}>
                      {d.status !== 'pending' && (
                        <Button size="sm" icon={<RotateCw size={13} aria-hidden="true" />} loading={retrying === d.id} onClick={() => retry(d)} aria-label={`Retry delivery ${d.id}`}>
                          Retry
                        </Button>
                      )}
                    </td>
                  </tr>
                  {expanded && (
                    <tr>
                      <td colSpan={7} style={{ padding: 0 }}>
                        <div className={styles.attempts}>
                          {d.attempts.length === 0 ? (
                            <p className="muted" style={{ paddingTop: 10 }}>
                              No attempts yet.
                            </p>
                          ) : (
                            d.attempts.map((a, i) => (
                              <div key={i} className={styles.attempt}>
                                <span>{formatDateTime(a.attemptedAt)}</span>
                                <span>
                                  {a.statusCode ? (
                                    <Badge tone={a.statusCode < 300 ? 'green' : 'red'} mono>
                                      {a.statusCode}
                                    </Badge>
                                  ) : (
                                    <Badge tone="red">error</Badge>
                                  )}
                                </span>
                                <span className="mono">{a.latencyMs} ms</span>
                                <div>
                                  {a.error && <div style={{ color: 'var(--danger)' }}>{a.error}</div>}
                                  {a.responseBody && <pre className={styles.attemptBody}>{a.responseBody}</pre>}
                                  {!a.error && !a.responseBody && <span className="muted">Empty response body</span>}
                                </div>
                              </div>
                            ))
                          )}
                        </div>
                      </td>
                    </tr>
                  )}
                </Fragment>
              );
            })}
          </tbody>
        </Table>
      )}
      {(deliveries.data?.webhookDeliveries.hasMore || after) && (
        <div style={{ padding: 12, display: 'flex', gap: 8, justifyContent: 'flex-end', borderTop: '1px solid var(--border)' }}>
          {after && (
            <Button size="sm" onClick={() => setAfter(null)}>
              Newest
            </Button>
          )}
          {deliveries.data?.webhookDeliveries.hasMore && (
            <Button size="sm" onClick={() => setAfter(deliveries.data?.webhookDeliveries.nextCursor ?? null)}>
              Older
            </Button>
          )}
        </div>
      )}
      <RecoverDeliveriesDialog
        webhookId={webhookId}
        open={recoverOpen}
        onOpenChange={setRecoverOpen}
        onRecovered={() => refetch({ requestPolicy: 'network-only' })}
        onDisabled={onEndpointChanged}
      />
    </Card>
  );
}

export default function WebhookDetailPage() {
  const { id = '' } = useParams();
  const client = useClient();
  const navigate = useNavigate();
  const context = useMemo(() => ({ additionalTypenames: ['Webhook'] }), []);
  const [hook, refetch] = useQuery({ query: WebhookDocument, variables: { id }, context });
  const [eventTypes] = useQuery({ query: EventTypesDocument });
  const [editOpen, setEditOpen] = useState(false);
  const [deleteOpen, setDeleteOpen] = useState(false);
  const [rotateOpen, setRotateOpen] = useState(false);
  const [rotated, setRotated] = useState<{ secret: string; until: string } | null>(null);
  const [testType, setTestType] = useState('webhook.test');
  const [testState, setTestState] = useState<{ busy: boolean; sent: DeliveryFieldsFragment | null; error: string }>({ busy: false, sent: null, error: '' });
  const [toggling, setToggling] = useState(false);
  const [actionError, setActionError] = useState('');
  const w = hook.data?.webhook;

  if (hook.error && !hook.data) {
    const notFound = errorCode(hook.error) === 'NOT_FOUND';
    return (
      <>
        <PageHeader title="Webhook endpoint" />
        <Card>
          <ErrorState
            error={notFound ? 'This endpoint does not exist or was deleted.' : hook.error}
            title={notFound ? 'Endpoint not found' : 'Could not load this endpoint'}
            onRetry={notFound ? undefined : () => refetch({ requestPolicy: 'network-only' })}
          />
        </Card>
      </>
    );
  }
  if (!hook.data) {
    return (
      <>
        <PageHeader title="Webhook endpoint" />
        <Card>
          <Loading label="Loading endpoint…" rows={4} />
        </Card>
      </>
    );
  }
  if (!w) {
    return (
      <>
        <PageHeader title="Webhook endpoint" />
        <Card>
          <EmptyState title="Endpoint not found" action={<Link to="/api/webhooks">Back to webhooks</Link>}>
            This endpoint does not exist or was deleted.
          </EmptyState>
        </Card>
      </>
    );
  }

  const sendTest = async () => {
    setTestState({ busy: true, sent: null, error: '' });
    const result = await client.mutation(TestWebhookDocument, { id: w.id, eventType: testType || null }).toPromise();
    if (result.error || !result.data) setTestState({ busy: false, sent: null, error: errorMessage(result.error) });
    else setTestState({ busy: false, sent: result.data.testWebhook, error: '' });
  };

  const toggleEnabled = async () => {
    setToggling(true);
    setActionError('');
    const result = await client.mutation(UpdateWebhookDocument, { id: w.id, input: { enabled: !w.enabled } }).toPromise();
    setToggling(false);
    if (result.error) setActionError(errorMessage(result.error));
  };

  return (
    <>
      <Link to="/api/webhooks" className={styles.back}>
        <ArrowLeft size={14} aria-hidden="true" /> Webhooks
      </Link>
      <PageHeader
        title="Webhook endpoint"
        description={<span className={styles.url}>{w.url}</span>}
        actions={
          <Button icon={<Pencil size={14} aria-hidden="true" />} onClick={() => setEditOpen(true)}>
            Edit
          </Button>
        }
      />
      <div className={styles.detailGrid}>
        <div className="stack" style={{ gap: 24 }}>
          <Card title="Details" id="details">
            <dl className={styles.dl}>
              <dt>Status</dt>
              <dd>
                <StatusBadge webhook={w} />
                {w.disabledReason && <div className="muted">{w.disabledReason}</div>}
              </dd>
              <dt>Description</dt>
              <dd>{w.description || <span className="muted">—</span>}</dd>
              <dt>Events</dt>
              <dd>
                <EventTypeBadges types={w.eventTypes} />
              </dd>
              <dt>Instance</dt>
              <dd>{w.instanceId ? <code>{w.instanceId}</code> : <span className="muted">All instances</span>}</dd>
              <dt>ID</dt>
              <dd className="mono">{w.id}</dd>
              <dt>Created</dt>
              <dd>
                <Time iso={w.createdAt} />
              </dd>
              <dt>Updated</dt>
              <dd>
                <Time iso={w.updatedAt} />
              </dd>
            </dl>
          </Card>
        </div>
        <div className="stack" style={{ gap: 24 }}>
          <Card title="Send a test event" id="test">
            <div className="stack" style={{ gap: 10 }}>
              <Field label="Event type">
                <select className="select" value={testType} onChange={(e) => setTestType(e.target.value)}>
                  <option value="webhook.test">webhook.test</option>
                  {eventTypes.data?.eventTypes
                    .filter((t) => t.type !== 'webhook.test')
                    .map((t) => (
                      <option key={t.type} value={t.type}>
                        {t.type}
                      </option>
                    ))}
                </select>
              </Field>
              <Button variant="primary" icon={<Send size={14} aria-hidden="true" />} onClick={sendTest} loading={testState.busy}>
                Send test event
              </Button>
              <InlineError>{testState.error}</InlineError>
              {testState.sent && (
                <p role="status" className="muted">
                  <TestResult key={testState.sent.id} webhookId={w.id} sent={testState.sent} />
                </p>
              )}
            </div>
          </Card>
          <Card title="Manage" id="manage">
            <div className={styles.actions}>
              <InlineError>{actionError}</InlineError>
              <Button icon={<Power size={14} aria-hidden="true" />} onClick={toggleEnabled} loading={toggling}>
                {w.enabled ? 'Disable endpoint' : 'Enable endpoint'}
              </Button>
              <Button icon={<RotateCw size={14} aria-hidden="true" />} onClick={() => setRotateOpen(true)}>
                Rotate signing secret
              </Button>
              <Button variant="danger" icon={<Trash2 size={14} aria-hidden="true" />} onClick={() => setDeleteOpen(true)}>
                Delete endpoint
              </Button>
            </div>
          </Card>
        </div>
      </div>
      <div style={{ marginTop: 24 }}>
        <Deliveries webhookId={w.id} enabled={w.enabled} onEndpointChanged={() => refetch({ requestPolicy: 'network-only' })} />
      </div>

      <WebhookFormDialog
        open={editOpen}
        onOpenChange={setEditOpen}
        title="Edit webhook endpoint"
        submitLabel="Save changes"
        initial={valuesFrom(w)}
        onSubmit={async (v) => {
          const result = await client
            .mutation(UpdateWebhookDocument, {
              id: w.id,
              input: { url: v.url, description: v.description, eventTypes: v.eventTypes, instanceId: v.instanceId || null, enabled: v.enabled },
            })
            .toPromise();
          if (!result.data) return toFormErrors(result.error);
          setEditOpen(false);
          return null;
        }}
      />
      <ConfirmDialog
        open={rotateOpen}
        onOpenChange={setRotateOpen}
        title="Rotate signing secret?"
        description="A new secret is created now. For 24 hours deliveries are signed with both the old and the new secret, so you can update your receiver without dropping events."
        confirmLabel="Rotate secret"
        onConfirm={async () => {
          const result = await client.mutation(RotateWebhookSecretDocument, { id: w.id }).toPromise();
          if (!result.data) return errorMessage(result.error) || 'Could not rotate the secret.';
          setRotated({ secret: result.data.rotateWebhookSecret.secret, until: result.data.rotateWebhookSecret.previousSecretExpiresAt });
        }}
      />
      <ConfirmDialog
        open={deleteOpen}
        onOpenChange={setDeleteOpen}
        title="Delete this endpoint?"
        description={
          <>
            Switchboard stops sending events to <code>{w.url}</code> at once, and pending deliveries are dropped. This cannot
            be undone.
          </>
        }
        confirmLabel="Delete endpoint"
        danger
        onConfirm={async () => {
          const result = await client.mutation(DeleteWebhookDocument, { id: w.id }).toPromise();
          if (result.error) return errorMessage(result.error);
          navigate('/api/webhooks', { replace: true });
        }}
      />
      <SecretDialog
        secret={rotated?.secret ?? null}
        title="Save your new signing secret"
        label="New webhook signing secret"
        warning="Update your receiver with this secret. It will not be shown again."
        onClose={() => setRotated(null)}
      >
        <Notice>The previous secret keeps signing deliveries until {formatDateTime(rotated?.until)}.</Notice>
      </SecretDialog>
    </>
  );
}

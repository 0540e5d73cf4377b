import { ArrowLeft, Inbox, ListChecks, Pencil, Power, RefreshCw, RotateCw, Send, Trash2 } from 'lucide-react';
import { useEffect, useMemo, useRef, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useClient, useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { ConfirmDialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { Form } from '../../components/Form';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, InlineError, Loading, Notice } from '../../components/States';
import { Table } from '../../components/Table';
import { Time } from '../../components/Time';
import { Toast } from '../../components/Toast';
import {
  AutomationCallsDocument,
  AutomationEndpointDocument,
  AutomationRunsDocument,
  DeleteAutomationEndpointDocument,
  RotateAutomationEndpointSecretDocument,
  RotateAutomationEndpointTokenDocument,
  TestAutomationEndpointDocument,
  UpdateAutomationEndpointDocument,
  type AutomationEndpointFieldsFragment,
} from '../../graphql/generated';
import { errorCode, errorMessage } from '../../lib/errors';
import { CopyUrlButton } from './CopyUrlButton';
import { EndpointFormDialog } from './EndpointFormDialog';
import { EndpointSecretDialog, type ShownSecret } from './EndpointSecretDialog';
import { defaultSample, parseJSON, toFormErrors, toUpdateInput, valuesFrom } from './form';
import { templateLabels } from './preview';
import { actionLabels, duration, oneLine, runTones, verificationLabels } from './text';
import { endpointActivityTypes, useAutomationEvents } from './useAutomationEvents';
import styles from './Automation.module.css';

/** Rows per page of calls and runs. */
const pageSize = 20;
/** While a run is queued, the runs reload this often (events usually come first). */
const queuedPollMs = 3000;

/** Refetches (from the network) whenever version changes after the first render. */
function useRefetchOn(version: number, refetch: (opts: { requestPolicy: 'network-only' }) => void) {
  const latest = useRef(refetch);
  useEffect(() => {
    latest.current = refetch;
  });
  useEffect(() => {
    if (version > 0) latest.current({ requestPolicy: 'network-only' });
  }, [version]);
}

/**
 * A JSON value, folded to one line until opened (a native disclosure: keyboard and screen
 * readers know it). kind is shown ("Input"); of says whose, for screen readers ("run_1").
 */
function JsonDetails({ value, kind, of }: { value: unknown; kind: string; of: string }) {
  return (
    <details className={styles.details}>
      <summary>
        <span className={styles.kind}>{kind}</span>
        <span className="visually-hidden"> of {of}:</span> {oneLine(value)}
      </summary>
      <pre className={styles.json}>{JSON.stringify(value, null, 2)}</pre>
    </details>
  );
}

function Pager({ label, cursors, hasMore, next, onChange }: { label: string; cursors: (string | null)[]; hasMore: boolean; next: string | null; onChange: (c: (string | null)[]) => void }) {
  if (cursors.length <= 1 && !hasMore) return null;
  return (
    <nav className={styles.pager} aria-label={label}>
      <Button size="sm" disabled={cursors.length <= 1} onClick={() => onChange([null])}>
        Newest
      </Button>
      <Button size="sm" disabled={!hasMore} onClick={() => onChange([...cursors, next])}>
        Older
      </Button>
    </nav>
  );
}

/** The calls the endpoint accepted, newest first, with their payloads. */
function Calls({ id, version }: { id: string; version: number }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const context = useMemo(() => ({ additionalTypenames: ['AutomationCall'] }), []);
  const [calls, refetch] = useQuery({ query: AutomationCallsDocument, variables: { endpointId: id, first: pageSize, after }, context, requestPolicy: 'cache-and-network' });
  useRefetchOn(version, refetch);
  const list = calls.data?.automationCalls.nodes ?? [];
  return (
    <Card
      title="Recent calls"
      id="calls"
      description="What tools (and your test payloads) posted, newest first."
      flush
      actions={
        <Button size="sm" icon={<RefreshCw size={14} aria-hidden="true" />} loading={calls.fetching && !!calls.data} onClick={() => refetch({ requestPolicy: 'network-only' })}>
          Refresh calls
        </Button>
      }
    >
      {calls.error && !calls.data ? (
        <ErrorState headingLevel={3} error={calls.error} title="Could not load the calls" onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !calls.data ? (
        <Loading label="Loading calls…" rows={3} />
      ) : list.length === 0 ? (
        <EmptyState headingLevel={3} icon={<Inbox size={20} />} title={after ? 'No older calls' : 'No calls yet'}>
          POST JSON to the endpoint’s URL, or send a test payload: calls show up here.
        </EmptyState>
      ) : (
        <Table label="Recent calls">
          <thead>
            <tr>
              <th scope="col">Received</th>
              <th scope="col">Call</th>
              <th scope="col">Payload</th>
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr key={c.id} className={styles.cellTop}>
                <td>
                  <Time iso={c.receivedAt} />
                </td>
                <td className="mono">{c.id}</td>
                <td className={styles.detailsCell}>
                  <JsonDetails value={c.payload} kind="Payload" of={c.id} />
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager label="Pages of calls" cursors={cursors} hasMore={!!calls.data?.automationCalls.hasMore} next={calls.data?.automationCalls.nextCursor ?? null} onChange={setCursors} />
    </Card>
  );
}

/** The action's runs, newest first: status, what was done and produced, the error. */
function Runs({ id, version }: { id: string; version: number }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const context = useMemo(() => ({ additionalTypenames: ['AutomationRun'] }), []);
  const [runs, refetch] = useQuery({ query: AutomationRunsDocument, variables: { endpointId: id, first: pageSize, after }, context, requestPolicy: 'cache-and-network' });
  useRefetchOn(version, refetch);
  const list = runs.data?.automationRuns.nodes ?? [];
  // A queued run finishes with an event; a retry in between has none, so queued runs are also polled.
  const queued = list.some((r) => r.status === 'queued');
  const latest = useRef(refetch);
  useEffect(() => {
    latest.current = refetch;
  });
  useEffect(() => {
    if (!queued) return;
    const t = setInterval(() => latest.current({ requestPolicy: 'network-only' }), queuedPollMs);
    return () => clearInterval(t);
  }, [queued]);

  return (
    <Card
      title="Runs"
      id="runs"
      description="Each call’s action: what it did (input), what it produced (output), or why it failed."
      flush
      actions={
        <Button size="sm" icon={<RefreshCw size={14} aria-hidden="true" />} loading={runs.fetching && !!runs.data} onClick={() => refetch({ requestPolicy: 'network-only' })}>
          Refresh runs
        </Button>
      }
    >
      {runs.error && !runs.data ? (
        <ErrorState headingLevel={3} error={runs.error} title="Could not load the runs" onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !runs.data ? (
        <Loading label="Loading runs…" rows={3} />
      ) : list.length === 0 ? (
        <EmptyState headingLevel={3} icon={<ListChecks size={20} />} title={after ? 'No older runs' : 'No runs yet'}>
          With an action, every call runs it: the runs show up here.
        </EmptyState>
      ) : (
        <Table label="Runs">
          <thead>
            <tr>
              <th scope="col">Status</th>
              <th scope="col">Created</th>
              <th scope="col">Call</th>
              <th scope="col">Attempts</th>
              <th scope="col">Duration</th>
              <th scope="col">Details</th>
            </tr>
          </thead>
          <tbody>
            {list.map((r) => (
              <tr key={r.id} className={styles.cellTop} data-testid={`run-${r.id}`}>
                <td>
                  <Badge tone={runTones[r.status] ?? 'neutral'} dot>
                    {r.status}
                  </Badge>
                </td>
                <td>
                  <Time iso={r.createdAt} relative />
                </td>
                <td className="mono">{r.callId}</td>
                <td>{r.attempts}</td>
                <td>{r.attempts ? duration(r.durationMs) : <span className="muted">—</span>}</td>
                <td className={styles.detailsCell}>
                  <div className="stack" style={{ gap: 4 }}>
                    {r.error && <div className={styles.runError}>{r.error}</div>}
                    {r.input != null && <JsonDetails value={r.input} kind="Input" of={r.id} />}
                    {r.output != null && <JsonDetails value={r.output} kind="Output" of={r.id} />}
                    {r.input == null && !r.error && <span className="muted">Waiting to run</span>}
                  </div>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      <Pager label="Pages of runs" cursors={cursors} hasMore={!!runs.data?.automationRuns.hasMore} next={runs.data?.automationRuns.nextCursor ?? null} onChange={setCursors} />
    </Card>
  );
}

/** Publishes a JSON payload as a tool would (without the verification a tool needs). */
function TestPayload({ endpoint, onSent }: { endpoint: AutomationEndpointFieldsFragment; onSent: () => void }) {
  const client = useClient();
  const [payload, setPayload] = useState(defaultSample);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const [sent, setSent] = useState('');

  const send = async () => {
    setSent('');
    const p = parseJSON(payload);
    if (!p.ok) {
      setError(`This is not valid JSON: ${p.error}`);
      return;
    }
    setError('');
    setBusy(true);
    const r = await client.mutation(TestAutomationEndpointDocument, { id: endpoint.id, payload: p.value }).toPromise();
    setBusy(false);
    if (!r.data) {
      setError(errorMessage(r.error) || 'Could not send the test payload.');
      return;
    }
    setSent(`Test payload accepted as ${r.data.testAutomationEndpoint.id}.`);
    onSent();
  };

  return (
    <Card title="Send test payload" id="test" description="Runs everything a tool’s call does (schema, event, action) except the verification.">
      <Form className="stack" style={{ gap: 10 }} onSubmit={send}>
        <Field label="Payload (JSON)" error={error}>
          <textarea className={`textarea mono ${styles.code}`} rows={8} spellCheck={false} value={payload} onChange={(e) => setPayload(e.target.value)} />
        </Field>
        {!endpoint.enabled && <Notice>This endpoint is disabled and refuses every call: enable it to send a test payload.</Notice>}
        <div className="row">
          <Button type="submit" variant="primary" icon={<Send size={14} aria-hidden="true" />} loading={busy} disabled={!endpoint.enabled}>
            Send test payload
          </Button>
        </div>
        <p role="status" className="muted" style={{ margin: 0 }}>
          {sent}
        </p>
      </Form>
    </Card>
  );
}

function Details({ endpoint: e }: { endpoint: AutomationEndpointFieldsFragment }) {
  const a = e.action;
  const fields = a
    ? (
        [
          ['Instance', a.instanceId],
          [templateLabels.to, a.to],
          [templateLabels.text, a.text],
          [templateLabels.mediaUrl, a.mediaUrl],
          [templateLabels.url, a.url],
          [templateLabels.slug, a.slug],
          [templateLabels.title, a.title],
          ['Forward to', a.targetUrl],
        ] as [string, string | null][]
      ).filter(([, v]) => v)
    : [];
  const meta = a?.metadata && typeof a.metadata === 'object' && Object.keys(a.metadata).length ? a.metadata : null;
  return (
    <Card title="Details" id="details">
      <dl className={styles.dl}>
        <dt>Status</dt>
        <dd>
          <Badge tone={e.enabled ? 'green' : 'neutral'} dot>
            {e.enabled ? 'Enabled' : 'Disabled'}
          </Badge>
        </dd>
        <dt>Verification</dt>
        <dd>{verificationLabels[e.verification]}</dd>
        <dt>Action</dt>
        <dd>{a ? actionLabels[a.type] : <span className="muted">None: calls are stored and published as events</span>}</dd>
        {fields.map(([label, v]) => (
          <Row key={label} label={label} value={v ?? ''} />
        ))}
        {meta && (
          <>
            <dt>Metadata</dt>
            <dd>
              <pre className={styles.json}>{JSON.stringify(meta, null, 2)}</pre>
            </dd>
          </>
        )}
        <dt>Schema</dt>
        <dd>{e.schema != null ? <pre className={styles.json}>{JSON.stringify(e.schema, null, 2)}</pre> : <span className="muted">Any JSON</span>}</dd>
        <dt>ID</dt>
        <dd className="mono">{e.id}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={e.createdAt} />
        </dd>
        <dt>Updated</dt>
        <dd>
          <Time iso={e.updatedAt} />
        </dd>
      </dl>
    </Card>
  );
}

function Row({ label, value }: { label: string; value: string }) {
  return (
    <>
      <dt>{label}</dt>
      <dd className="mono">{value}</dd>
    </>
  );
}

function BackLink() {
  return (
    <Link to="/api/automation" className={styles.back}>
      <ArrowLeft size={14} aria-hidden="true" /> Automation
    </Link>
  );
}

export default function EndpointDetailPage() {
  const { id = '' } = useParams();
  const client = useClient();
  const navigate = useNavigate();
  const context = useMemo(() => ({ additionalTypenames: ['AutomationEndpoint'] }), []);
  const [result, refetch] = useQuery({ query: AutomationEndpointDocument, variables: { id }, context, requestPolicy: 'cache-and-network' });
  const [editing, setEditing] = useState(false);
  const [rotatingUrl, setRotatingUrl] = useState(false);
  const [rotatingSecret, setRotatingSecret] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [toggling, setToggling] = useState(false);
  const [actionError, setActionError] = useState('');
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [toast, setToast] = useState('');
  // Bumped on a call, a finished run or a change of this endpoint: the calls and runs reload.
  const [version, setVersion] = useState(0);
  const bump = () => setVersion((v) => v + 1);
  useAutomationEvents(
    () => {
      refetch({ requestPolicy: 'network-only' });
      bump();
    },
    { types: endpointActivityTypes, endpointId: id, throttleMs: 500 },
  );
  const e = result.data?.automationEndpoint;

  if (result.error && !e) {
    const notFound = errorCode(result.error) === 'NOT_FOUND';
    return (
      <>
        <BackLink />
        <PageHeader title="Inbound endpoint" />
        <Card>
          <ErrorState
            error={notFound ? 'This endpoint does not exist or was deleted.' : result.error}
            title={notFound ? 'Endpoint not found' : 'Could not load this endpoint'}
            onRetry={notFound ? undefined : () => refetch({ requestPolicy: 'network-only' })}
          />
        </Card>
      </>
    );
  }
  if (!e) {
    return (
      <>
        <BackLink />
        <PageHeader title="Inbound endpoint" />
        <Card>
          <Loading label="Loading the endpoint…" rows={4} />
        </Card>
      </>
    );
  }

  const toggleEnabled = async () => {
    setToggling(true);
    setActionError('');
    const r = await client.mutation(UpdateAutomationEndpointDocument, { id: e.id, input: { enabled: !e.enabled } }).toPromise();
    setToggling(false);
    if (!r.data) setActionError(errorMessage(r.error));
    else setToast(`Endpoint ${e.name} ${e.enabled ? 'disabled' : 'enabled'}`);
  };

  return (
    <>
      <BackLink />
      <PageHeader
        title={e.name}
        description={
          <span className={styles.headerUrl}>
            <span className="mono" data-testid="endpoint-url">
              {e.url}
            </span>
            <CopyUrlButton url={e.url} name={e.name} variant="secondary" />
          </span>
        }
        actions={
          <Button icon={<Pencil size={14} aria-hidden="true" />} onClick={() => setEditing(true)}>
            Edit
          </Button>
        }
      />
      <div className={styles.detailGrid}>
        <TestPayload endpoint={e} onSent={bump} />
        <div className="stack" style={{ gap: 24 }}>
          <Card title="Manage" id="manage">
            <div className={styles.actions}>
              <InlineError>{actionError}</InlineError>
              <Button icon={<Power size={14} aria-hidden="true" />} onClick={toggleEnabled} loading={toggling}>
                {e.enabled ? 'Disable endpoint' : 'Enable endpoint'}
              </Button>
              <Button icon={<RotateCw size={14} aria-hidden="true" />} onClick={() => setRotatingUrl(true)}>
                Rotate URL
              </Button>
              <Button icon={<RotateCw size={14} aria-hidden="true" />} onClick={() => setRotatingSecret(true)} disabled={e.verification === 'NONE'}>
                Rotate secret
              </Button>
              {e.verification === 'NONE' && <p className="muted">This endpoint has no secret: choose a verification under Edit to get one.</p>}
              <Button variant="danger" icon={<Trash2 size={14} aria-hidden="true" />} onClick={() => setDeleting(true)}>
                Delete endpoint
              </Button>
            </div>
          </Card>
          <Details endpoint={e} />
        </div>
      </div>
      <div className={styles.section}>
        <Runs id={e.id} version={version} />
      </div>
      <div className={styles.section}>
        <Calls id={e.id} version={version} />
      </div>

      {editing && (
        <EndpointFormDialog
          open
          onOpenChange={setEditing}
          title={`Edit ${e.name}`}
          submitLabel="Save changes"
          editing
          endpointId={e.id}
          initial={valuesFrom(e)}
          onSubmit={async (v) => {
            const input = toUpdateInput(v, e);
            if (Object.keys(input).length) {
              const r = await client.mutation(UpdateAutomationEndpointDocument, { id: e.id, input }).toPromise();
              if (!r.data) return toFormErrors(r.error);
              const { endpoint, secret: s } = r.data.updateAutomationEndpoint;
              setToast(`Endpoint ${endpoint.name} saved`);
              if (s) setSecret({ secret: s, endpoint });
            }
            setEditing(false);
            return null;
          }}
        />
      )}
      <ConfirmDialog
        open={rotatingUrl}
        onOpenChange={setRotatingUrl}
        title="Rotate the URL?"
        description="The endpoint gets a new URL and the current one answers 404 at once. Update every tool that calls it."
        confirmLabel="Rotate URL"
        onConfirm={async () => {
          const r = await client.mutation(RotateAutomationEndpointTokenDocument, { id: e.id }).toPromise();
          if (!r.data) return errorMessage(r.error) || 'Could not rotate the URL.';
          setToast('New URL made; the old one no longer works');
        }}
      />
      <ConfirmDialog
        open={rotatingSecret}
        onOpenChange={setRotatingSecret}
        title="Rotate the secret?"
        description="A new secret is made and the current one stops verifying at once: calls signed with it are refused until your tools use the new one."
        confirmLabel="Rotate secret"
        onConfirm={async () => {
          const r = await client.mutation(RotateAutomationEndpointSecretDocument, { id: e.id }).toPromise();
          if (!r.data) return errorMessage(r.error) || 'Could not rotate the secret.';
          const { endpoint, secret: s } = r.data.rotateAutomationEndpointSecret;
          if (s) setSecret({ secret: s, endpoint });
        }}
      />
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title={`Delete ${e.name}?`}
        description="Its URL answers 404 at once, and its calls and runs are deleted. This cannot be undone."
        confirmLabel="Delete endpoint"
        danger
        onConfirm={async () => {
          const r = await client.mutation(DeleteAutomationEndpointDocument, { id: e.id }).toPromise();
          if (r.error) return errorMessage(r.error);
          navigate('/api/automation', { replace: true, state: { toast: `Endpoint ${e.name} deleted` } });
        }}
      />
      <EndpointSecretDialog shown={secret} onClose={() => setSecret(null)} />
      <Toast message={toast} onDismiss={() => setToast('')} />
    </>
  );
}

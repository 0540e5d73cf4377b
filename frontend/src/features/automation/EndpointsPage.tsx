import { Plus, Workflow } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Link, useLocation } from 'react-router';
import { useClient, useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { Table } from '../../components/Table';
import { Time } from '../../components/Time';
import { Toast } from '../../components/Toast';
import { AutomationEndpointsDocument, CreateAutomationEndpointDocument } from '../../graphql/generated';
import { CopyUrlButton } from './CopyUrlButton';
import { EndpointFormDialog } from './EndpointFormDialog';
import { EndpointSecretDialog, type ShownSecret } from './EndpointSecretDialog';
import { SubscriptionsSection } from './SubscriptionsSection';
import { toCreateInput, toFormErrors, valuesFrom } from './form';
import { actionLabels, verificationLabels } from './text';
import { endpointChangeTypes, useAutomationEvents } from './useAutomationEvents';
import styles from './Automation.module.css';

/** Endpoints per page. */
const pageSize = 20;

export default function EndpointsPage() {
  const client = useClient();
  const location = useLocation();
  const [creating, setCreating] = useState(false);
  const [secret, setSecret] = useState<ShownSecret | null>(null);
  const [toast, setToast] = useState<string>(() => (location.state as { toast?: string } | null)?.toast ?? '');
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;

  const context = useMemo(() => ({ additionalTypenames: ['AutomationEndpoint'] }), []);
  const [result, refetch] = useQuery({
    query: AutomationEndpointsDocument,
    variables: { first: pageSize, after },
    context,
    requestPolicy: 'cache-and-network',
  });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  // Endpoints created, changed or deleted elsewhere (the API, another tab) show up here.
  useAutomationEvents(reload, { types: endpointChangeTypes });
  const list = result.data?.automationEndpoints.nodes ?? [];

  const newButton = (label: string) => (
    <Button variant="primary" icon={<Plus size={15} aria-hidden="true" />} onClick={() => setCreating(true)}>
      {label}
    </Button>
  );

  return (
    <>
      <PageHeader
        title="Automation"
        description="Inbound publishing endpoints: n8n, Zapier, Make or your own code POST JSON to an endpoint’s URL, and each call can send a message, create a short link or be forwarded."
        actions={newButton('New endpoint')}
      />
      <Card flush title="Inbound endpoints" id="endpoints">
        {result.error && !result.data ? (
          <ErrorState headingLevel={3} error={result.error} title="Could not load the endpoints" onRetry={reload} />
        ) : !result.data ? (
          <Loading label="Loading endpoints…" rows={3} />
        ) : list.length === 0 ? (
          <EmptyState headingLevel={3} icon={<Workflow size={20} />} title={after ? 'No more endpoints' : 'No endpoints yet'} action={!after && newButton('Create your first endpoint')}>
            An endpoint gives your workflow tool a URL to POST to. Create one here or with POST /api/v1/automation/endpoints.
          </EmptyState>
        ) : (
          <Table label="Inbound endpoints">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">URL</th>
                <th scope="col">Verification</th>
                <th scope="col">Action</th>
                <th scope="col">Status</th>
                <th scope="col">Created</th>
              </tr>
            </thead>
            <tbody>
              {list.map((e) => (
                <tr key={e.id}>
                  <td className={styles.nameCell}>
                    <Link to={`/api/automation/${e.id}`} className={styles.name}>
                      {e.name}
                    </Link>
                  </td>
                  <td className={styles.urlCell}>
                    <div className={styles.urlRow}>
                      <span className={`mono ${styles.url}`} title={e.url}>
                        {e.url}
                      </span>
                      <CopyUrlButton url={e.url} name={e.name} />
                    </div>
                  </td>
                  <td>{verificationLabels[e.verification]}</td>
                  <td>{e.action ? actionLabels[e.action.type] : <span className="muted">None</span>}</td>
                  <td>
                    <Badge tone={e.enabled ? 'green' : 'neutral'} dot>
                      {e.enabled ? 'Enabled' : 'Disabled'}
                    </Badge>
                  </td>
                  <td>
                    <Time iso={e.createdAt} relative />
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
        {(cursors.length > 1 || result.data?.automationEndpoints.hasMore) && (
          <nav className={styles.pager} aria-label="Pages of endpoints">
            <span className="muted">Page {cursors.length}</span>
            <Button size="sm" disabled={cursors.length <= 1} onClick={() => setCursors(cursors.slice(0, -1))}>
              Previous
            </Button>
            <Button
              size="sm"
              disabled={!result.data?.automationEndpoints.hasMore}
              onClick={() => setCursors([...cursors, result.data?.automationEndpoints.nextCursor ?? null])}
            >
              Next
            </Button>
          </nav>
        )}
      </Card>
      <SubscriptionsSection onToast={setToast} />

      {creating && (
        <EndpointFormDialog
          open
          onOpenChange={setCreating}
          title="New inbound endpoint"
          submitLabel="Create endpoint"
          initial={valuesFrom(null)}
          onSubmit={async (v) => {
            const r = await client.mutation(CreateAutomationEndpointDocument, { input: toCreateInput(v) }).toPromise();
            if (!r.data) return toFormErrors(r.error);
            const { endpoint, secret: s } = r.data.createAutomationEndpoint;
            setCreating(false);
            setToast(`Endpoint ${endpoint.name} created`);
            if (s) setSecret({ secret: s, endpoint });
            reload();
            return null;
          }}
        />
      )}
      <EndpointSecretDialog shown={secret} onClose={() => setSecret(null)} />
      <Toast message={toast} onDismiss={() => setToast('')} />
    </>
  );
}

import { ArrowRight, KeyRound } from 'lucide-react';
import { useMemo } from 'react';
import { Link } from 'react-router';
import { useQuery } from 'urql';
import { ButtonLink } from '../../components/Button';
import { Card } from '../../components/Card';
import { CodeBlock } from '../../components/CodeBlock';
import { PageHeader } from '../../components/PageHeader';
import { Tabs } from '../../components/Tabs';
import { Time } from '../../components/Time';
import { ApiKeysDocument, ModelsDocument, WebhooksDocument } from '../../graphql/generated';
import { useSession } from '../../lib/session';
import { apiBase, curlModels, nodeModels, pythonModels } from '../../lib/snippets';
import styles from './OverviewPage.module.css';

function Stat({ label, value, sub, to }: { label: string; value: React.ReactNode; sub?: React.ReactNode; to?: string }) {
  return (
    <div className={styles.stat}>
      <span className={styles.statLabel}>{label}</span>
      <span className={styles.statValue}>{value}</span>
      {sub && <span className={styles.statSub}>{to ? <Link to={to}>{sub}</Link> : sub}</span>}
    </div>
  );
}

function count<T>(state: { fetching: boolean; error?: unknown; data?: T }, pick: (d: T) => number): React.ReactNode {
  if (state.data) return pick(state.data);
  if (state.error) return <span className="muted" title="Could not load">—</span>;
  return <span className="muted">…</span>;
}

export function OverviewPage() {
  const { user, workspace } = useSession();
  const keysContext = useMemo(() => ({ additionalTypenames: ['ApiKey'] }), []);
  const [keys] = useQuery({ query: ApiKeysDocument, context: keysContext });
  const [models] = useQuery({ query: ModelsDocument });
  const [hooks] = useQuery({ query: WebhooksDocument, context: useMemo(() => ({ additionalTypenames: ['Webhook'] }), []) });
  const origin = window.location.origin;
  const activeKeys = keys.data?.apiKeys.filter((k) => k.status === 'ACTIVE').length ?? 0;
  const firstName = user.name.split(' ')[0] || user.name;

  return (
    <>
      <PageHeader
        title={`Welcome, ${firstName}`}
        description="Everything your code needs to talk to Switchboard: keys, the API reference, live events and webhooks."
        actions={
          <ButtonLink to="/api/keys?create=1" variant="primary" icon={<KeyRound size={15} aria-hidden="true" />}>
            Create API key
          </ButtonLink>
        }
      />
      <div className={styles.stats}>
        <Stat label="Workspace" value={<span style={{ fontSize: 17 }}>{workspace.name}</span>} sub={<span className="mono">{workspace.id}</span>} />
        <Stat label="Active API keys" value={count(keys, () => activeKeys)} sub="Manage keys" to="/api/keys" />
        <Stat label="Models" value={count(models, (d) => d.models.length)} sub="View models" to="/api/models" />
        <Stat label="Webhook endpoints" value={count(hooks, (d) => d.webhooks.length)} sub="Manage webhooks" to="/api/webhooks" />
      </div>
      <div className={styles.grid}>
        <Card title="Quick start" description="From zero to your first API call in three steps." id="quickstart">
          <ol className={styles.steps}>
            <li className={styles.step}>
              <span className={styles.stepNum} aria-hidden="true">
                1
              </span>
              <div>
                <h3>Create an API key</h3>
                <p>Pick a scope preset. The secret is shown once, so store it somewhere safe such as an environment variable.</p>
                <ButtonLink to="/api/keys?create=1" size="sm">
                  Create API key
                </ButtonLink>
              </div>
            </li>
            <li className={styles.step}>
              <span className={styles.stepNum} aria-hidden="true">
                2
              </span>
              <div>
                <h3>List your models</h3>
                <p>
                  Export the key as <code>SWITCHBOARD_API_KEY</code> and call <code>GET /api/v1/models</code>. The response
                  has the OpenAI list shape, so OpenAI SDKs work with <code>baseURL</code> set to <code>{apiBase(origin)}</code>.
                </p>
                <Tabs
                  label="Quick start language"
                  items={[
                    { id: 'curl', label: 'cURL', content: <CodeBlock code={curlModels(origin)} language="shell" label="cURL quick start" /> },
                    { id: 'node', label: 'Node.js', content: <CodeBlock code={nodeModels(origin)} language="javascript" label="Node.js quick start" /> },
                    { id: 'python', label: 'Python', content: <CodeBlock code={pythonModels(origin)} language="python" label="Python quick start" /> },
                  ]}
                />
              </div>
            </li>
            <li className={styles.step}>
              <span className={styles.stepNum} aria-hidden="true">
                3
              </span>
              <div>
                <h3>Explore the API</h3>
                <p>Every endpoint with its parameters, request body and responses, and a Try it button that calls it with your key.</p>
                <ButtonLink to="/api/reference" size="sm" icon={<ArrowRight size={14} aria-hidden="true" />}>
                  Open the API reference
                </ButtonLink>
              </div>
            </li>
          </ol>
        </Card>
        <Card title="Workspace" id="workspace">
          <dl className={styles.dl}>
            <dt>Name</dt>
            <dd>{workspace.name}</dd>
            <dt>ID</dt>
            <dd className="mono">{workspace.id}</dd>
            <dt>Created</dt>
            <dd>
              <Time iso={workspace.createdAt} />
            </dd>
            <dt>Owner</dt>
            <dd>{user.email}</dd>
            <dt>API base URL</dt>
            <dd className="mono">{apiBase(origin)}</dd>
          </dl>
        </Card>
      </div>
    </>
  );
}

import { Cpu } from 'lucide-react';
import { useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Card } from '../../components/Card';
import { CodeBlock } from '../../components/CodeBlock';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { Table } from '../../components/Table';
import { ModelsDocument } from '../../graphql/generated';
import { formatDate } from '../../lib/format';
import { curlModels } from '../../lib/snippets';

export function ModelsPage() {
  const [models, refetch] = useQuery({ query: ModelsDocument });
  const list = models.data?.models ?? [];
  return (
    <>
      <PageHeader
        title="Models"
        description={
          <>
            The models this workspace can use. <code>GET /api/v1/models</code> returns the same list in the OpenAI shape,
            so OpenAI SDKs work against Switchboard unchanged.
          </>
        }
      />
      <div className="stack" style={{ gap: 24 }}>
        <Card flush>
          {models.error && !models.data ? (
            <ErrorState error={models.error} title="Could not load models" onRetry={() => refetch({ requestPolicy: 'network-only' })} />
          ) : !models.data ? (
            <Loading label="Loading models…" rows={4} />
          ) : list.length === 0 ? (
            <EmptyState icon={<Cpu size={20} />} title="No models available">
              The operator has not configured any models for this workspace.
            </EmptyState>
          ) : (
            <Table label="Models">
              <thead>
                <tr>
                  <th scope="col">Model</th>
                  <th scope="col">Owned by</th>
                  <th scope="col">Object</th>
                  <th scope="col">Created</th>
                </tr>
              </thead>
              <tbody>
                {list.map((m) => (
                  <tr key={m.id}>
                    <td>
                      <code style={{ fontWeight: 500 }}>{m.id}</code>
                    </td>
                    <td>{m.ownedBy}</td>
                    <td>
                      <Badge mono>{m.object}</Badge>
                    </td>
                    <td>{formatDate(new Date(m.created * 1000).toISOString())}</td>
                  </tr>
                ))}
              </tbody>
            </Table>
          )}
        </Card>
        <Card title="List models from your code" id="models-snippet">
          <CodeBlock code={curlModels()} language="shell" label="List models with cURL" />
        </Card>
      </div>
    </>
  );
}

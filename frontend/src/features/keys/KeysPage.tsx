import { KeyRound, Plus } from 'lucide-react';
import { useEffect, useMemo, useState } from 'react';
import { useSearchParams } from 'react-router';
import { useClient, useQuery } from 'urql';
import { Badge, type BadgeTone } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { ConfirmDialog } from '../../components/Dialog';
import { PageHeader } from '../../components/PageHeader';
import { SecretDialog } from '../../components/SecretDialog';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { Table } from '../../components/Table';
import tableStyles from '../../components/Table.module.css';
import { Time } from '../../components/Time';
import { Toast } from '../../components/Toast';
import {
  ApiKeysDocument,
  RevokeApiKeyDocument,
  ScopeCatalogDocument,
  type ApiKeyFieldsFragment,
  type ApiKeyStatus,
} from '../../graphql/generated';
import { errorMessage } from '../../lib/errors';
import { CreateKeyDialog, type CreatedKey } from './CreateKeyDialog';
import { describeScopes, maskedKey, revokeLabel } from './scopes';

const statusTone: Record<ApiKeyStatus, BadgeTone> = { ACTIVE: 'green', REVOKED: 'red', EXPIRED: 'amber' };
const statusLabel: Record<ApiKeyStatus, string> = { ACTIVE: 'Active', REVOKED: 'Revoked', EXPIRED: 'Expired' };

function ScopeBadges({ scopes, summary }: { scopes: string[]; summary: string }) {
  if (scopes.includes('*')) return <Badge tone="purple">Full access</Badge>;
  const shown = scopes.slice(0, 2);
  return (
    <span className="row" style={{ flexWrap: 'wrap', gap: 4 }} title={scopes.join(', ')}>
      <span className="visually-hidden">{summary}: </span>
      {shown.map((s) => (
        <Badge key={s} mono>
          {s}
        </Badge>
      ))}
      {scopes.length > shown.length && <Badge>+{scopes.length - shown.length} more</Badge>}
    </span>
  );
}

export function KeysPage() {
  const client = useClient();
  const [params, setParams] = useSearchParams();
  const context = useMemo(() => ({ additionalTypenames: ['ApiKey'] }), []);
  const [keys, refetch] = useQuery({ query: ApiKeysDocument, context });
  const [catalog] = useQuery({ query: ScopeCatalogDocument });
  const [createOpen, setCreateOpen] = useState(params.get('create') === '1');
  const [created, setCreated] = useState<CreatedKey | null>(null);
  const [revoking, setRevoking] = useState<ApiKeyFieldsFragment | null>(null);
  const [notice, setNotice] = useState('');

  useEffect(() => {
    if (params.get('create') === '1') {
      setParams((p) => {
        p.delete('create');
        return p;
      }, { replace: true });
    }
  }, [params, setParams]);

  const list = keys.data?.apiKeys ?? [];

  return (
    <>
      <PageHeader
        title="API keys"
        description="Keys authenticate requests to the Switchboard API. Keep them secret: anyone with a key can act on this workspace within its scopes."
        actions={
          <Button variant="primary" icon={<Plus size={15} aria-hidden="true" />} onClick={() => setCreateOpen(true)}>
            Create API key
          </Button>
        }
      />
      <Card flush>
        {keys.error && !keys.data ? (
          <ErrorState error={keys.error} title="Could not load API keys" onRetry={() => refetch({ requestPolicy: 'network-only' })} />
        ) : !keys.data ? (
          <Loading label="Loading API keys…" rows={4} />
        ) : list.length === 0 ? (
          <EmptyState
            icon={<KeyRound size={20} />}
            title="No API keys yet"
            action={
              <Button variant="primary" icon={<Plus size={15} aria-hidden="true" />} onClick={() => setCreateOpen(true)}>
                Create your first key
              </Button>
            }
          >
            Create a key to call the API from your code, n8n, Zapier or any HTTP client.
          </EmptyState>
        ) : (
          <Table label="API keys">
            <thead>
              <tr>
                <th scope="col">Name</th>
                <th scope="col">Key</th>
                <th scope="col">Scopes</th>
                <th scope="col">Created</th>
                <th scope="col">Last used</th>
                <th scope="col">Expires</th>
                <th scope="col">Status</th>
                <th scope="col" className={tableStyles.right}>
                  <span className="visually-hidden">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {list.map((k) => (
                <tr key={k.id} data-testid={`key-row-${k.id}`}>
                  <td style={{ fontWeight: 500 }}>{k.name}</td>
                  <td>
                    <code style={{ whiteSpace: 'nowrap' }}>{maskedKey(k)}</code>
                  </td>
                  <td>
                    <ScopeBadges scopes={k.scopes} summary={describeScopes(k.scopes, catalog.data?.scopes)} />
                  </td>
                  <td>
                    <Time iso={k.createdAt} relative />
                  </td>
                  <td>{k.lastUsedAt ? <Time iso={k.lastUsedAt} relative /> : <span className="muted">Never</span>}</td>
                  <td>{k.expiresAt ? <Time iso={k.expiresAt} relative /> : <span className="muted">Never</span>}</td>
                  <td>
                    <Badge tone={statusTone[k.status]} dot>
                      {statusLabel[k.status]}
                    </Badge>
                  </td>
                  <td className={tableStyles.right}>
                    {k.status === 'ACTIVE' && (
                      <Button size="sm" variant="secondary" onClick={() => setRevoking(k)} aria-label={revokeLabel(k)}>
                        Revoke
                      </Button>
                    )}
                  </td>
                </tr>
              ))}
            </tbody>
          </Table>
        )}
      </Card>

      <CreateKeyDialog
        open={createOpen}
        onOpenChange={setCreateOpen}
        onCreated={(c) => {
          setCreateOpen(false);
          setCreated(c);
        }}
      />
      <SecretDialog
        secret={created?.secret ?? null}
        title="Save your API key"
        label="API key secret"
        warning={
          <>
            Your new key <strong>{created?.apiKey.name}</strong> is ready. It will not be shown again.
          </>
        }
        onClose={() => setCreated(null)}
      >
        Use it as <code>Authorization: Bearer &lt;key&gt;</code>. In this list the key appears as{' '}
        <code>{created ? maskedKey(created.apiKey) : ''}</code>.
      </SecretDialog>
      <ConfirmDialog
        open={revoking !== null}
        onOpenChange={(open) => !open && setRevoking(null)}
        title={`Revoke ${revoking?.name ?? 'key'}?`}
        description={
          <>
            Requests using <code>{revoking ? maskedKey(revoking) : ''}</code> will fail with 401 immediately. This cannot
            be undone.
          </>
        }
        confirmLabel="Revoke key"
        danger
        onConfirm={async () => {
          if (!revoking) return;
          setNotice('');
          const result = await client.mutation(RevokeApiKeyDocument, { id: revoking.id }).toPromise();
          if (result.error) return errorMessage(result.error);
          setNotice(`Key ${revoking.name} (${maskedKey(revoking)}) revoked. Requests using it now get 401.`);
        }}
      />
      <Toast message={notice} onDismiss={() => setNotice('')} />
    </>
  );
}

import { ChevronDown, ChevronRight } from 'lucide-react';
import { useState, type FormEvent } from 'react';
import { useClient, useQuery } from 'urql';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { ErrorState, InlineError, Loading } from '../../components/States';
import { CreateApiKeyDocument, ScopeCatalogDocument, type ApiKeyFieldsFragment } from '../../graphql/generated';
import { errorMessage, fieldErrors } from '../../lib/errors';
import { ScopePicker } from './ScopePicker';
import { expiryOptions, expiryToISO, parseOrigins, selectedScopes, type ExpiryId, type ScopeSelection } from './scopes';

export interface CreatedKey {
  secret: string;
  apiKey: ApiKeyFieldsFragment;
}

type Errors = { name?: string; scopes?: string; expiresAt?: string; allowedOrigins?: string; form?: string };

export function CreateKeyDialog({
  open,
  onOpenChange,
  onCreated,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  onCreated: (created: CreatedKey) => void;
}) {
  const client = useClient();
  const [catalog, refetchCatalog] = useQuery({ query: ScopeCatalogDocument, pause: !open });
  const [name, setName] = useState('');
  const [selection, setSelection] = useState<ScopeSelection>({ mode: 'full_access', custom: [] });
  const [expiry, setExpiry] = useState<ExpiryId>('never');
  const [customDate, setCustomDate] = useState('');
  const [showAdvanced, setShowAdvanced] = useState(false);
  const [origins, setOrigins] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);

  const resetForm = () => {
    setName('');
    setSelection({ mode: catalog.data?.scopes.presets[0]?.id ?? 'full_access', custom: [] });
    setExpiry('never');
    setCustomDate('');
    setOrigins('');
    setShowAdvanced(false);
    setErrors({});
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!catalog.data) return;
    const local: Errors = {};
    if (!name.trim()) local.name = 'Give the key a name, such as the app or server that will use it.';
    const scopes = selectedScopes(catalog.data.scopes, selection);
    if (scopes.length === 0) local.scopes = 'Choose at least one scope.';
    let expiresAt: string | null = null;
    try {
      expiresAt = expiryToISO(expiry, customDate);
    } catch (err) {
      local.expiresAt = (err as Error).message;
    }
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    const allowedOrigins = parseOrigins(origins);
    const result = await client
      .mutation(CreateApiKeyDocument, {
        input: { name: name.trim(), scopes, expiresAt, ...(allowedOrigins.length ? { allowedOrigins } : {}) },
      })
      .toPromise();
    setBusy(false);
    if (!result.data) {
      const f = fieldErrors(result.error);
      const next: Errors = { name: f.name, scopes: f.scopes, expiresAt: f.expiresAt, allowedOrigins: f.allowedOrigins };
      if (!Object.values(next).some(Boolean)) next.form = errorMessage(result.error) || 'Could not create the key.';
      // An error about the origins is shown under their field, which may be folded away.
      if (next.allowedOrigins) setShowAdvanced(true);
      setErrors(next);
      return;
    }
    const { secret, apiKey } = result.data.createApiKey;
    resetForm();
    onCreated({ secret, apiKey });
  };

  const change = (next: boolean) => {
    if (busy) return;
    if (!next) resetForm();
    onOpenChange(next);
  };

  return (
    <Dialog
      open={open}
      onOpenChange={change}
      title="Create API key"
      description="Keys authenticate your code against /api/v1. Give each app its own key so you can revoke it alone."
      wide
      onSubmit={catalog.data ? submit : undefined}
      footer={
        catalog.data ? (
          <>
            <Button onClick={() => change(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" loading={busy}>
              Create key
            </Button>
          </>
        ) : undefined
      }
    >
      {catalog.error && !catalog.data ? (
        <ErrorState error={catalog.error} title="Could not load scopes" onRetry={() => refetchCatalog({ requestPolicy: 'network-only' })} />
      ) : !catalog.data ? (
        <Loading label="Loading scopes…" />
      ) : (
        <div className="stack">
          <InlineError>{errors.form}</InlineError>
          <Field label="Name" error={errors.name} hint="For example: production server, n8n, billing job.">
            <input className="input" name="name" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
          </Field>
          <ScopePicker catalog={catalog.data.scopes} value={selection} onChange={setSelection} error={errors.scopes} />
          <Field label="Expires" error={expiry === 'custom' ? undefined : errors.expiresAt}>
            <select className="select" value={expiry} onChange={(e) => setExpiry(e.target.value as ExpiryId)}>
              {expiryOptions.map((o) => (
                <option key={o.id} value={o.id}>
                  {o.label}
                </option>
              ))}
            </select>
          </Field>
          {expiry === 'custom' && (
            <Field label="Expiry date" error={errors.expiresAt}>
              <input className="input" type="date" value={customDate} onChange={(e) => setCustomDate(e.target.value)} />
            </Field>
          )}
          <div>
            <Button
              variant="ghost"
              size="sm"
              aria-expanded={showAdvanced}
              icon={showAdvanced ? <ChevronDown size={14} aria-hidden="true" /> : <ChevronRight size={14} aria-hidden="true" />}
              onClick={() => setShowAdvanced((v) => !v)}
            >
              Browser access
            </Button>
          </div>
          {showAdvanced && (
            <Field
              label="Allowed browser origins"
              optional
              error={errors.allowedOrigins}
              hint="Only needed to call the API from web pages on other sites, e.g. https://app.example.com. Separate with commas or new lines. Server-side calls are not affected."
            >
              <textarea className="textarea" style={{ minHeight: 70 }} value={origins} onChange={(e) => setOrigins(e.target.value)} />
            </Field>
          )}
        </div>
      )}
    </Dialog>
  );
}

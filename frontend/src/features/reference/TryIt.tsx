import { Send } from 'lucide-react';
import { useState } from 'react';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { CodeBlock } from '../../components/CodeBlock';
import { Field } from '../../components/Field';
import { InlineError } from '../../components/States';
import type { RequestValues } from './curl';
import { sendRequest, type TryResult } from './request';
import type { Operation } from './openapi';
import styles from './Reference.module.css';

function statusTone(status: number) {
  if (status >= 200 && status < 300) return 'green' as const;
  if (status >= 400 && status < 500) return 'amber' as const;
  return 'red' as const;
}

export function TryIt({
  op,
  apiKey,
  values,
  onChange,
  origin = window.location.origin,
}: {
  op: Operation;
  apiKey: string;
  values: RequestValues;
  onChange: (v: RequestValues) => void;
  origin?: string;
}) {
  const [result, setResult] = useState<TryResult | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const headerParams = op.parameters.filter((p) => p.in === 'header' && p.name.toLowerCase() !== 'authorization');
  const missingKey = op.requiresAuth && !apiKey;

  const send = async () => {
    const missing = pathParams.filter((p) => !values.path[p.name]);
    if (missing.length) {
      setError(`Fill in ${missing.map((p) => p.name).join(', ')}.`);
      return;
    }
    setBusy(true);
    setError('');
    try {
      setResult(await sendRequest(origin, op, apiKey, values));
    } catch (e) {
      setResult(null);
      setError(`The request failed before a response arrived: ${(e as Error).message}`);
    } finally {
      setBusy(false);
    }
  };

  const set = (where: 'path' | 'query' | 'headers', name: string, v: string) => onChange({ ...values, [where]: { ...values[where], [name]: v } });

  return (
    <div className={styles.tryit} aria-label={`Try ${op.method.toUpperCase()} ${op.path}`} role="region">
      <div className={styles.tryGrid}>
        <div className="stack" style={{ gap: 12 }}>
          {[...pathParams, ...queryParams, ...headerParams].map((p) => {
            const where = p.in === 'path' ? 'path' : p.in === 'query' ? 'query' : 'headers';
            return (
              <Field key={`${p.in}-${p.name}`} label={<code>{p.name}</code>} optional={!p.required} hint={p.in === 'path' ? 'path parameter' : p.in === 'query' ? 'query parameter' : 'header'}>
                <input className="input" value={values[where][p.name] ?? ''} onChange={(e) => set(where, p.name, e.target.value)} />
              </Field>
            );
          })}
          {values.body !== undefined && (
            <Field label="Request body (JSON)">
              <textarea className="textarea" value={values.body} onChange={(e) => onChange({ ...values, body: e.target.value })} spellCheck={false} />
            </Field>
          )}
          {missingKey && <p className="muted">Paste an API key above to send this request.</p>}
          <div>
            <Button variant="primary" icon={<Send size={14} aria-hidden="true" />} onClick={send} loading={busy} disabled={missingKey}>
              Send request
            </Button>
          </div>
          <InlineError>{error}</InlineError>
        </div>
        <div className={styles.result} aria-live="polite">
          {result ? (
            <>
              <div className="row">
                <Badge tone={statusTone(result.status)} mono>
                  <span data-testid="tryit-status">{result.status}</span> {result.statusText}
                </Badge>
                <span className="muted">{result.ms} ms</span>
              </div>
              <div>
                <h5 style={{ margin: '0 0 6px', fontSize: 12 }}>Response headers</h5>
                <div className={styles.headers} tabIndex={0} role="region" aria-label="Response headers">
                  {result.headers.map(([k, v]) => (
                    <div key={k}>
                      <span style={{ color: 'var(--text-muted)' }}>{k}:</span> {v}
                    </div>
                  ))}
                </div>
              </div>
              <CodeBlock code={result.body || '(empty body)'} language="response body" label="Response body" />
            </>
          ) : (
            <p className="muted">The response (status, headers and body) will appear here.</p>
          )}
        </div>
      </div>
    </div>
  );
}

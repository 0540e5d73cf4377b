import { Send } from 'lucide-react';
import { useEffect, useRef, useState } from 'react';
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

/**
 * The request panel of one operation. It is mounted when the user opens it, right under the
 * operation's header, and on mount scrolls itself into view and puts focus where the next step
 * is: the first field still to fill in (the API key, a required parameter), otherwise Send.
 * Enter sends from Send or from any field, so after opening Try it sending is one step.
 */
export function TryIt({
  id,
  op,
  apiKey,
  onApiKeyChange,
  values,
  onChange,
  origin = window.location.origin,
}: {
  id?: string;
  op: Operation;
  apiKey: string;
  onApiKeyChange: (key: string) => void;
  values: RequestValues;
  onChange: (v: RequestValues) => void;
  origin?: string;
}) {
  const [result, setResult] = useState<TryResult | null>(null);
  const [error, setError] = useState('');
  const [busy, setBusy] = useState(false);
  // Asked here (not only at the top of the page) when there was no key on opening; kept while
  // the panel is open so the field does not vanish under the user's first keystroke.
  const [askKey] = useState(() => op.requiresAuth && !apiKey);
  const panelRef = useRef<HTMLDivElement>(null);
  const sendRef = useRef<HTMLButtonElement>(null);
  const resultRef = useRef<HTMLDivElement>(null);
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const headerParams = op.parameters.filter((p) => p.in === 'header' && p.name.toLowerCase() !== 'authorization');
  const missingKey = op.requiresAuth && !apiKey;

  useEffect(() => {
    const panel = panelRef.current;
    if (!panel) return;
    panel.scrollIntoView?.({ block: 'nearest' });
    const empty = Array.from(panel.querySelectorAll<HTMLInputElement>('input[aria-required="true"]')).find((el) => !el.value);
    (empty ?? sendRef.current)?.focus();
  }, []);

  // Beside Send on wide screens; below it on narrow ones, where it may start out of sight.
  useEffect(() => {
    const el = resultRef.current;
    if (!result || !el) return;
    if (el.getBoundingClientRect().top > window.innerHeight - 48) el.scrollIntoView?.({ block: 'start' });
  }, [result]);

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
    <div ref={panelRef} id={id} className={styles.tryit} aria-label={`Try ${op.method.toUpperCase()} ${op.path}`} role="region">
      <div className={styles.tryGrid}>
        {/* A form, so Enter in any field sends. */}
        <form
          className="stack"
          style={{ gap: 12 }}
          noValidate
          onSubmit={(e) => {
            e.preventDefault();
            if (!missingKey && !busy) void send();
          }}
        >
          {askKey && (
            <Field label="API key" hint="Kept in this browser tab only, like the key at the top of the page.">
              <input
                className="input mono"
                type="password"
                value={apiKey}
                onChange={(e) => onApiKeyChange(e.target.value.trim())}
                placeholder="sb_live_…"
                autoComplete="off"
                spellCheck={false}
                aria-required="true"
              />
            </Field>
          )}
          {[...pathParams, ...queryParams, ...headerParams].map((p) => {
            const where = p.in === 'path' ? 'path' : p.in === 'query' ? 'query' : 'headers';
            return (
              <Field key={`${p.in}-${p.name}`} label={<code>{p.name}</code>} optional={!p.required} hint={p.in === 'path' ? 'path parameter' : p.in === 'query' ? 'query parameter' : 'header'}>
                <input
                  className="input"
                  value={values[where][p.name] ?? ''}
                  onChange={(e) => set(where, p.name, e.target.value)}
                  aria-required={p.required || p.in === 'path' || undefined}
                />
              </Field>
            );
          })}
          {values.body !== undefined && (
            <Field label="Request body (JSON)">
              <textarea className="textarea" value={values.body} onChange={(e) => onChange({ ...values, body: e.target.value })} spellCheck={false} />
            </Field>
          )}
          {missingKey && !askKey && <p className="muted">Paste an API key above to send this request.</p>}
          <div>
            <Button ref={sendRef} type="submit" variant="primary" icon={<Send size={14} aria-hidden="true" />} loading={busy} disabled={missingKey}>
              Send request
            </Button>
          </div>
          <InlineError>{error}</InlineError>
        </form>
        <div ref={resultRef} className={styles.result} aria-live="polite">
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

import { Lock, PlayCircle } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { CodeBlock } from '../../components/CodeBlock';
import { InlineMarkdown } from '../../components/InlineMarkdown';
import { formatJSON } from '../../lib/format';
import { KEY_PLACEHOLDER } from '../../lib/snippets';
import { buildCurl, type RequestValues } from './curl';
import { jsonMedia, mediaExample, typeLabel, type OpenAPIDocument, type Operation } from './openapi';
import { SchemaView } from './SchemaView';
import { TryIt } from './TryIt';
import styles from './Reference.module.css';

export function MethodBadge({ method }: { method: string }) {
  return <span className={`${styles.method} ${styles[method] ?? ''}`}>{method.toUpperCase()}</span>;
}

function initialValues(doc: OpenAPIDocument, op: Operation): RequestValues {
  const query: Record<string, string> = {};
  const headers: Record<string, string> = {};
  for (const p of op.parameters) {
    if (p.in === 'query' && p.required && p.example !== undefined) query[p.name] = String(p.example);
  }
  const media = jsonMedia(op.requestBody?.content);
  const example = media ? mediaExample(doc, media[1]) : undefined;
  return { path: {}, query, headers, body: op.requestBody ? (example === undefined ? '' : formatJSON(example)) : undefined };
}

function statusTone(status: string) {
  if (status.startsWith('2')) return 'green' as const;
  if (status.startsWith('4')) return 'amber' as const;
  if (status.startsWith('5')) return 'red' as const;
  return 'neutral' as const;
}

export function OperationView({
  doc,
  op,
  apiKey,
  onApiKeyChange,
  origin = window.location.origin,
}: {
  doc: OpenAPIDocument;
  op: Operation;
  apiKey: string;
  onApiKeyChange: (key: string) => void;
  origin?: string;
}) {
  const [values, setValues] = useState<RequestValues>(() => initialValues(doc, op));
  const [tryOpen, setTryOpen] = useState(false);
  const curl = useMemo(() => buildCurl(origin, op, apiKey || KEY_PLACEHOLDER, values), [origin, op, apiKey, values]);
  const body = jsonMedia(op.requestBody?.content);
  const bodyExample = body ? mediaExample(doc, body[1]) : undefined;
  const headingId = `op-${op.id}-title`;
  const tryId = `op-${op.id}-try`;

  return (
    <section id={op.id} className={styles.op} aria-labelledby={headingId} data-operation={`${op.method.toUpperCase()} ${op.path}`}>
      <div className={styles.opHeader}>
        <MethodBadge method={op.method} />
        <h3 id={headingId} className={styles.opPath} tabIndex={-1}>
          <span className="visually-hidden">{op.method.toUpperCase()} </span>
          {op.path}
        </h3>
        {op.deprecated && <Badge tone="amber">Deprecated</Badge>}
        {!op.requiresAuth && <Badge tone="blue">No auth</Badge>}
        {op.requiresAuth && (
          <span className="muted" title="Requires an API key" style={{ display: 'inline-flex' }}>
            <Lock size={13} aria-hidden="true" />
            <span className="visually-hidden">Requires an API key</span>
          </span>
        )}
        <span className={styles.opSummary}>{op.summary}</span>
        <Button size="sm" variant={tryOpen ? 'secondary' : 'primary'} icon={<PlayCircle size={14} aria-hidden="true" />} aria-expanded={tryOpen} aria-controls={tryOpen ? tryId : undefined} onClick={() => setTryOpen((v) => !v)}>
          {tryOpen ? 'Hide Try it' : 'Try it'}
        </Button>
      </div>
      {/* Right under the button that opens it, rather than after the whole operation. */}
      {tryOpen && <TryIt id={tryId} op={op} apiKey={apiKey} onApiKeyChange={onApiKeyChange} values={values} onChange={setValues} origin={origin} />}
      <div className={styles.opBody}>
        {op.description && op.description !== op.summary && <p className={styles.desc}>
            <InlineMarkdown text={op.description} />
          </p>}
        <div>
          <div className={styles.section}>
            <h4>Parameters</h4>
            {op.parameters.length === 0 ? (
              <p className="muted">No parameters.</p>
            ) : (
              <div className={styles.params}>
                {op.parameters.map((p) => (
                  <div key={`${p.in}-${p.name}`} className={styles.param}>
                    <div className={styles.paramHead}>
                      <span className={styles.paramName}>{p.name}</span>
                      <span className={styles.paramType}>{typeLabel(doc, p.schema)}</span>
                      {p.required ? <span className={styles.required}>required</span> : <span className={styles.optionalMark}>optional</span>}
                      <span className={styles.paramIn}>{p.in}</span>
                    </div>
                    {p.description && (
                      <div className={styles.paramDesc}>
                        <InlineMarkdown text={p.description} />
                      </div>
                    )}
                  </div>
                ))}
              </div>
            )}
          </div>
          <div className={styles.section}>
            <h4>Request body</h4>
            {!op.requestBody ? (
              <p className="muted">No request body.</p>
            ) : (
              <div className="stack" style={{ gap: 10 }}>
                <div className="row">
                  {body && <Badge mono>{body[0]}</Badge>}
                  {op.requestBody.required ? <span className={styles.required}>required</span> : <span className={styles.optionalMark}>optional</span>}
                </div>
                {op.requestBody.description && (
                  <p className={styles.paramDesc}>
                    <InlineMarkdown text={op.requestBody.description} />
                  </p>
                )}
                {body?.[1].schema && <SchemaView doc={doc} schema={body[1].schema} />}
                {bodyExample !== undefined && <CodeBlock code={formatJSON(bodyExample)} language="example" label={`Example request body for ${op.method.toUpperCase()} ${op.path}`} />}
              </div>
            )}
          </div>
        </div>
        <div>
          <div className={styles.section}>
            <h4>cURL</h4>
            <CodeBlock code={curl} language="shell" label={`cURL example for ${op.method.toUpperCase()} ${op.path}`} />
          </div>
          <div className={styles.section}>
            <h4>Responses</h4>
            {op.responses.length === 0 && <p className="muted">No responses documented.</p>}
            {op.responses.map(({ status, response }, i) => {
              const media = jsonMedia(response.content);
              const example = media ? mediaExample(doc, media[1]) : undefined;
              return (
                <details key={status} className={styles.response} open={i === 0}>
                  <summary>
                    <Badge tone={statusTone(status)} mono>
                      {status}
                    </Badge>
                    <span>
                      <InlineMarkdown text={response.description ?? ''} />
                    </span>
                  </summary>
                  <div className={styles.responseBody}>
                    {media?.[1].schema ? (
                      <div className="stack" style={{ gap: 10 }}>
                        <SchemaView doc={doc} schema={media[1].schema} />
                        {example !== undefined && <CodeBlock code={formatJSON(example)} language="example" label={`Example ${status} response`} />}
                      </div>
                    ) : (
                      <p className="muted">No body.</p>
                    )}
                  </div>
                </details>
              );
            })}
          </div>
        </div>
      </div>
    </section>
  );
}

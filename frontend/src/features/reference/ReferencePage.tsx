import { BookOpen, Eye, EyeOff } from 'lucide-react';
import { useMemo, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { Field } from '../../components/Field';
import { InlineMarkdown } from '../../components/InlineMarkdown';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { groupOperations, type OpenAPIDocument } from './openapi';
import { OperationView } from './OperationView';
import { OPENAPI_URL, useOpenAPI, useTryItKey } from './useOpenAPI';
import styles from './Reference.module.css';

export function Reference({ doc, origin = window.location.origin }: { doc: OpenAPIDocument; origin?: string }) {
  const [apiKey, setApiKey] = useTryItKey();
  const [reveal, setReveal] = useState(false);
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => groupOperations(doc), [doc]);
  const visible = useMemo(() => {
    const q = filter.trim().toLowerCase();
    if (!q) return groups;
    return groups
      .map((g) => ({
        ...g,
        operations: g.operations.filter((op) =>
          [op.path, op.method, op.summary, op.id, g.name].some((s) => s.toLowerCase().includes(q)),
        ),
      }))
      .filter((g) => g.operations.length);
  }, [groups, filter]);

  return (
    <>
      <div className={styles.keyBar}>
        <Field
          label="API key for cURL and Try it"
          hint={
            <>
              Paste a key from <Link to="/api/keys">API keys</Link>. It stays in this browser tab only and is sent nowhere but{' '}
              <code>/api/v1</code>.
            </>
          }
        >
          <input
            className="input mono"
            type={reveal ? 'text' : 'password'}
            value={apiKey}
            onChange={(e) => setApiKey(e.target.value.trim())}
            placeholder="sb_live_…"
            autoComplete="off"
            spellCheck={false}
          />
        </Field>
        <Button variant="secondary" icon={reveal ? <EyeOff size={14} aria-hidden="true" /> : <Eye size={14} aria-hidden="true" />} onClick={() => setReveal((v) => !v)} aria-pressed={reveal}>
          {reveal ? 'Hide key' : 'Show key'}
        </Button>
        {apiKey && (
          <Button variant="ghost" onClick={() => setApiKey('')}>
            Forget key
          </Button>
        )}
      </div>
      <div className={styles.layout}>
        <nav className={styles.toc} aria-label="API operations">
          <div className={styles.search}>
            <Field label="Filter operations">
              <input className="input" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="models, POST…" />
            </Field>
          </div>
          {visible.map((g) => (
            <div key={g.name} className={styles.tocGroup}>
              <div className={styles.tocTitle}>{g.name}</div>
              <ul className={styles.tocList}>
                {g.operations.map((op) => (
                  <li key={op.id}>
                    <a className={styles.tocLink} href={`#${op.id}`}>
                      <span className={styles.tocMethod}>{op.method.toUpperCase()}</span>
                      <span>{op.summary}</span>
                    </a>
                  </li>
                ))}
              </ul>
            </div>
          ))}
        </nav>
        <div>
          {visible.length === 0 ? (
            <Card>
              <EmptyState icon={<BookOpen size={20} />} title="No matching operations">
                Nothing matches “{filter}”.
              </EmptyState>
            </Card>
          ) : (
            visible.map((g) => (
              <section key={g.name} className={styles.group} aria-labelledby={`tag-${g.name}`}>
                <div className={styles.groupHeader}>
                  <h2 id={`tag-${g.name}`}>{g.name}</h2>
                  {g.description && (
                    <p>
                      <InlineMarkdown text={g.description} />
                    </p>
                  )}
                </div>
                {g.operations.map((op) => (
                  <OperationView key={op.id} doc={doc} op={op} apiKey={apiKey} onApiKeyChange={setApiKey} origin={origin} />
                ))}
              </section>
            ))
          )}
        </div>
      </div>
    </>
  );
}

export default function ReferencePage() {
  const state = useOpenAPI();
  return (
    <>
      <PageHeader
        title="API reference"
        description={
          <>
            Generated from <a href={OPENAPI_URL}>{OPENAPI_URL}</a> when you open this page, so it always matches the running
            service. Base URL <code>{window.location.origin}/api/v1</code>.
          </>
        }
      />
      {state.status === 'loading' ? (
        <Card>
          <Loading label="Loading the API description…" rows={6} />
        </Card>
      ) : state.status === 'error' ? (
        <Card>
          <ErrorState error={state.message} title="Could not load the API description" onRetry={state.reload} />
        </Card>
      ) : (
        <Reference doc={state.doc} />
      )}
    </>
  );
}


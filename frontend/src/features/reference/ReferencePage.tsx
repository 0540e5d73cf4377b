import { BookOpen, Eye, EyeOff } from 'lucide-react';
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react';
import { Link } from 'react-router';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { Field } from '../../components/Field';
import { InlineMarkdown } from '../../components/InlineMarkdown';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { groupOperations, type OpenAPIDocument, type TagGroup } from './openapi';
import { OperationView } from './OperationView';
import { OPENAPI_URL, useOpenAPI, useTryItKey } from './useOpenAPI';
import styles from './Reference.module.css';

/** The id of a group's heading, and the fragment that selects the group. */
function groupAnchor(name: string): string {
  return `tag-${name.trim().replace(/\s+/g, '-')}`;
}

/** What a URL fragment points at: an operation (by operationId) or a group heading, and its group. */
function locate(groups: TagGroup[], hash: string): { id: string; group: string } | undefined {
  let id = hash.replace(/^#/, '');
  try {
    id = decodeURIComponent(id);
  } catch {
    // not percent-encoded: use it as it is
  }
  if (!id) return undefined;
  for (const g of groups) {
    if (groupAnchor(g.name) === id) return { id, group: g.name };
    if (g.operations.some((op) => op.id === id)) return { id, group: g.name };
  }
  return undefined;
}

/** Where to scroll once the selected group has rendered; focus moves there when the user asked for it. */
type Target = { id: string; focus: boolean };

/**
 * The reference renders one tag group at a time, like one resource of Stripe's reference: the
 * table of contents lists every group and operation, the main column the selected group only
 * (rendering all ~100 operations at once made the page slow). The group is chosen by the URL
 * fragment: an operation's id selects its group, `#tag-<name>` the group itself; following a
 * link to another group renders that group, then scrolls the target below the sticky top bar
 * (the document's scroll-padding) and focuses its heading. A filter searches every group.
 */
export function Reference({ doc, origin = window.location.origin }: { doc: OpenAPIDocument; origin?: string }) {
  const [apiKey, setApiKey] = useTryItKey();
  const [reveal, setReveal] = useState(false);
  const [filter, setFilter] = useState('');
  const groups = useMemo(() => groupOperations(doc), [doc]);
  const [selected, setSelected] = useState(() => locate(groups, window.location.hash)?.group ?? groups[0]?.name ?? '');
  // On load the target did not exist when the browser looked for the fragment: scroll to it once rendered.
  const [target, setTarget] = useState<Target | undefined>(() => {
    const hit = locate(groups, window.location.hash);
    return hit && { id: hit.id, focus: false };
  });
  const current = groups.find((g) => g.name === selected) ?? groups[0];
  const query = filter.trim().toLowerCase();
  const visible = useMemo(() => {
    if (!query) return current ? [current] : [];
    return groups
      .map((g) => ({
        ...g,
        operations: g.operations.filter((op) =>
          [op.path, op.method, op.summary, op.id, g.name].some((s) => s.toLowerCase().includes(query)),
        ),
      }))
      .filter((g) => g.operations.length);
  }, [groups, current, query]);
  const toc = query ? visible : groups;

  // Links in the table of contents (and back/forward) change the fragment. When its target is
  // already on the page the browser has scrolled to it (or restored the position); otherwise
  // its group is rendered first and scrolled to afterwards.
  useEffect(() => {
    const onHashChange = () => {
      const hit = locate(groups, window.location.hash);
      if (!hit) return;
      setSelected(hit.group);
      if (!document.getElementById(hit.id)) setTarget({ id: hit.id, focus: true });
    };
    window.addEventListener('hashchange', onHashChange);
    return () => window.removeEventListener('hashchange', onHashChange);
  }, [groups]);

  useLayoutEffect(() => {
    if (!target) return;
    const el = document.getElementById(target.id);
    if (!el) return;
    el.scrollIntoView?.({ block: 'start' });
    if (target.focus) {
      // The operation's heading, or the group's: both take focus from script only.
      const heading = el.matches('h2') ? el : el.querySelector<HTMLElement>('h3');
      heading?.focus({ preventScroll: true });
    }
  }, [target]);

  // Keep the current group's title in sight in the table of contents, which scrolls on its own.
  const tocRef = useRef<HTMLElement>(null);
  useLayoutEffect(() => {
    const nav = tocRef.current;
    const title = nav?.querySelector<HTMLElement>('a[aria-current]');
    if (!nav || !title) return;
    const n = nav.getBoundingClientRect();
    const t = title.getBoundingClientRect();
    if (t.top < n.top || t.bottom > n.bottom) nav.scrollTop += t.top - n.top - 8;
  }, [current]);

  const index = current ? groups.indexOf(current) : -1;
  const prev = index > 0 ? groups[index - 1] : undefined;
  const next = index >= 0 && index < groups.length - 1 ? groups[index + 1] : undefined;

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
        <nav ref={tocRef} className={styles.toc} aria-label="API operations">
          <div className={styles.search}>
            <Field label="Filter operations" hint="Searches every group.">
              <input className="input" type="search" value={filter} onChange={(e) => setFilter(e.target.value)} placeholder="models, POST…" />
            </Field>
          </div>
          {toc.map((g) => {
            const isCurrent = !query && g.name === current?.name;
            return (
              <div key={g.name} className={styles.tocGroup}>
                <a className={styles.tocTitle} href={`#${groupAnchor(g.name)}`} aria-current={isCurrent ? 'location' : undefined}>
                  {g.name}
                </a>
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
            );
          })}
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
              <section key={g.name} className={styles.group} aria-labelledby={groupAnchor(g.name)}>
                <div className={styles.groupHeader}>
                  <h2 id={groupAnchor(g.name)} tabIndex={-1}>
                    {g.name}
                  </h2>
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
          {!query && (prev || next) && (
            <div className={styles.pager}>
              {prev && (
                <a href={`#${groupAnchor(prev.name)}`}>
                  <span aria-hidden="true">← </span>Previous: {prev.name}
                </a>
              )}
              {next && (
                <a href={`#${groupAnchor(next.name)}`} className={styles.pagerNext}>
                  Next: {next.name}
                  <span aria-hidden="true"> →</span>
                </a>
              )}
            </div>
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


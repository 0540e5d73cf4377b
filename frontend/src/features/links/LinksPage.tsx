import { Archive, ArchiveRestore, Link2, Plus, Search as SearchIcon, Trash2, X } from 'lucide-react';
import { useEffect, useId, useMemo, useRef, useState } from 'react';
import { Link, useLocation, useSearchParams } from 'react-router';
import { useClient, useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { ConfirmDialog } from '../../components/Dialog';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, Loading } from '../../components/States';
import { Table } from '../../components/Table';
import tableStyles from '../../components/Table.module.css';
import { Time } from '../../components/Time';
import { Toast } from '../../components/Toast';
import {
  CreateLinkDocument,
  DeleteLinkDocument,
  LinksDocument,
  ShortLinkBaseDocument,
  UpdateLinkDocument,
  type LinkFieldsFragment,
} from '../../graphql/generated';
import { errorMessage } from '../../lib/errors';
import { CopyLinkButton } from './CopyLinkButton';
import { toCreateInput, toFormErrors, valuesFrom } from './form';
import { LinkFormDialog } from './LinkFormDialog';
import { LinkStatusBadge } from './LinkStatus';
import { useLinkEvents } from './useLinkEvents';
import { withoutScheme } from './text';
import styles from './Links.module.css';

/** Links per page. */
const pageSize = 20;

type Status = 'active' | 'archived' | 'all';

/**
 * The list's filters and page live in the URL (?q=&tag=&status=&sort=, and &after= once per
 * page turned), so a reload, Back from a link and a shared link keep them.
 */
function useFilters() {
  const [params, setParams] = useSearchParams();
  const status = (['archived', 'all'].includes(params.get('status') ?? '') ? params.get('status') : 'active') as Status;
  const filters = {
    search: params.get('q') ?? '',
    tag: params.get('tag') ?? '',
    status,
    sort: params.get('sort') === 'clicks' ? ('CLICKS' as const) : ('CREATED' as const),
  };
  // Pages are a stack of cursors: page 1 has none, page n the cursors of pages 2 to n.
  const cursors = [null, ...params.getAll('after')];
  const edit = (change: (p: URLSearchParams) => void) =>
    setParams(
      (old) => {
        const p = new URLSearchParams(old);
        change(p);
        return p;
      },
      { replace: true },
    );
  /** New filters start again from page 1. */
  const update = (next: Partial<Record<'q' | 'tag' | 'status' | 'sort', string>>) =>
    edit((p) => {
      for (const [k, v] of Object.entries(next)) {
        if (v) p.set(k, v);
        else p.delete(k);
      }
      p.delete('after');
    });
  const turnTo = (next: (string | null)[]) =>
    edit((p) => {
      p.delete('after');
      for (const c of next) if (c) p.append('after', c);
    });
  return { filters, cursors, update, turnTo };
}

export default function LinksPage() {
  const client = useClient();
  const location = useLocation();
  const { filters, cursors, update, turnTo } = useFilters();
  const [searchText, setSearchText] = useState(filters.search);
  const [tagText, setTagText] = useState(filters.tag);
  // The boxes follow the URL when it changes by other means (a link to the list, Back).
  const [shown, setShown] = useState({ search: filters.search, tag: filters.tag });
  if (shown.search !== filters.search || shown.tag !== filters.tag) {
    setShown({ search: filters.search, tag: filters.tag });
    if (filters.search !== searchText.trim()) setSearchText(filters.search);
    if (filters.tag !== tagText.trim()) setTagText(filters.tag);
  }
  const [creating, setCreating] = useState(false);
  const [archiving, setArchiving] = useState<LinkFieldsFragment | null>(null);
  const [deleting, setDeleting] = useState<LinkFieldsFragment | null>(null);
  const [toast, setToast] = useState<string>(() => (location.state as { toast?: string } | null)?.toast ?? '');
  const searchId = useId();

  // Typing filters after a pause, not on every key.
  const typing = useRef<ReturnType<typeof setTimeout>>(undefined);
  useEffect(() => () => clearTimeout(typing.current), []);
  const typed = (param: 'q' | 'tag', value: string) => {
    clearTimeout(typing.current);
    typing.current = setTimeout(() => update({ [param]: value.trim() }), 300);
  };

  const after = cursors[cursors.length - 1] ?? null;

  const context = useMemo(() => ({ additionalTypenames: ['Link'] }), []);
  const [result, refetch] = useQuery({
    query: LinksDocument,
    variables: {
      search: filters.search || null,
      tag: filters.tag || null,
      archived: filters.status === 'all' ? null : filters.status === 'archived',
      sort: filters.sort,
      first: pageSize,
      after,
    },
    context,
    // Shown at once from the cache when coming back, and refreshed: counts may have moved.
    requestPolicy: 'cache-and-network',
  });
  const [base] = useQuery({ query: ShortLinkBaseDocument });
  const reload = () => refetch({ requestPolicy: 'network-only' });
  // Creations, changes and clicks from anywhere (the API, other tabs) show up here. Every
  // read of the list records a link.listed event, so a busy link reloads it at most every 5 s.
  useLinkEvents(reload, { throttleMs: 5000 });

  const list = result.data?.links.nodes ?? [];
  const filtered = !!(filters.search || filters.tag || filters.status !== 'active');
  const knownTags = [...new Set(list.flatMap((l) => l.tags))].sort();

  const clearFilters = () => {
    clearTimeout(typing.current);
    setSearchText('');
    setTagText('');
    update({ q: '', tag: '', status: '' });
  };
  const pickTag = (t: string) => {
    clearTimeout(typing.current);
    setTagText(t);
    update({ tag: t });
  };

  return (
    <>
      <PageHeader
        title="Short links"
        description="Short links send visitors to your URLs and count every click by day, country, device, browser and referrer."
        actions={
          <Button variant="primary" icon={<Plus size={15} aria-hidden="true" />} onClick={() => setCreating(true)}>
            New link
          </Button>
        }
      />
      <div className={styles.toolbar} role="search" aria-label="Filter links">
        <div className={`${styles.filter} ${styles.searchFilter}`}>
          <label htmlFor={searchId}>Search</label>
          <div className={styles.searchBox}>
            <SearchIcon size={15} aria-hidden="true" className={styles.searchIcon} />
            <input
              id={searchId}
              className="input"
              type="search"
              placeholder="Slug, URL or title"
              value={searchText}
              onChange={(e) => {
                setSearchText(e.target.value);
                typed('q', e.target.value);
              }}
            />
          </div>
        </div>
        <label className={styles.filter}>
          <span>Tag</span>
          <input
            className="input"
            list={`${searchId}-tags`}
            value={tagText}
            placeholder="Any"
            onChange={(e) => {
              setTagText(e.target.value);
              typed('tag', e.target.value);
            }}
          />
          <datalist id={`${searchId}-tags`}>
            {knownTags.map((t) => (
              <option key={t} value={t} />
            ))}
          </datalist>
        </label>
        <label className={styles.filter}>
          <span>Status</span>
          <select className="select" value={filters.status} onChange={(e) => update({ status: e.target.value === 'active' ? '' : e.target.value })}>
            <option value="active">Active</option>
            <option value="archived">Archived</option>
            <option value="all">All</option>
          </select>
        </label>
        <label className={styles.filter}>
          <span>Sort</span>
          <select className="select" value={filters.sort === 'CLICKS' ? 'clicks' : 'created'} onChange={(e) => update({ sort: e.target.value === 'clicks' ? 'clicks' : '' })}>
            <option value="created">Newest first</option>
            <option value="clicks">Most clicked</option>
          </select>
        </label>
        {filtered && (
          <Button size="sm" variant="ghost" icon={<X size={14} aria-hidden="true" />} onClick={clearFilters}>
            Clear filters
          </Button>
        )}
      </div>

      <Card flush>
        {result.error && !result.data ? (
          <ErrorState error={result.error} title="Could not load short links" onRetry={reload} />
        ) : !result.data ? (
          <Loading label="Loading short links…" rows={4} />
        ) : list.length === 0 ? (
          filtered || after ? (
            <EmptyState icon={<SearchIcon size={20} />} title="No links match" action={<Button onClick={clearFilters}>Clear filters</Button>}>
              No {filters.status === 'archived' ? 'archived ' : ''}link matches
              {filters.search ? ` “${filters.search}”` : ''}
              {filters.tag ? ` with the tag ${filters.tag}` : ''}.
            </EmptyState>
          ) : (
            <EmptyState
              icon={<Link2 size={20} />}
              title="No short links yet"
              action={
                <Button variant="primary" icon={<Plus size={15} aria-hidden="true" />} onClick={() => setCreating(true)}>
                  Create your first link
                </Button>
              }
            >
              A short link sends visitors to any URL and counts their clicks. Create one here or with POST /api/v1/links.
            </EmptyState>
          )
        ) : (
          <div className={styles.listTable}>
            <Table label="Short links">
              {/* Fixed column widths: long titles, URLs and tags are cut with an ellipsis (the full text
                  is in a tooltip) instead of widening the table past its card. */}
              <colgroup>
                <col />
                <col />
                <col className={styles.colTags} />
                <col className={styles.colClicks} />
                <col className={styles.colCreated} />
                <col className={styles.colActions} />
              </colgroup>
              <thead>
                <tr>
                  <th scope="col">Link</th>
                  <th scope="col">Destination</th>
                  <th scope="col">Tags</th>
                  <th scope="col" className={tableStyles.right}>
                    Clicks
                  </th>
                  <th scope="col">Created</th>
                  <th scope="col" className={`${tableStyles.right} ${styles.actionsCell}`}>
                    <span className="visually-hidden">Actions</span>
                  </th>
                </tr>
              </thead>
              <tbody>
                {list.map((l) => (
                  <tr key={l.id}>
                    <td className={styles.linkCell}>
                      <Link to={`/api/links/${l.id}`} className={`${styles.slug} ${styles.truncate}`} title={l.title || l.slug}>
                        {l.title || l.slug}
                      </Link>
                      <div className={styles.shortUrl}>
                        <span className={`mono ${styles.truncate}`} title={l.shortUrl}>
                          {withoutScheme(l.shortUrl)}
                        </span>
                        <LinkStatusBadge link={l} quiet />
                      </div>
                    </td>
                    <td className={styles.destCell}>
                      <span className={styles.dest} title={l.url}>
                        {withoutScheme(l.url)}
                      </span>
                    </td>
                    <td>
                      <span className={`${styles.tags} ${styles.tagList}`}>
                        {l.tags.map((t) => (
                          <button
                            key={t}
                            type="button"
                            className={styles.tagButton}
                            aria-pressed={filters.tag === t}
                            aria-label={`Show links tagged ${t}`}
                            title={t}
                            onClick={() => pickTag(filters.tag === t ? '' : t)}
                          >
                            <Badge tone={filters.tag === t ? 'blue' : 'neutral'}>{t}</Badge>
                          </button>
                        ))}
                      </span>
                    </td>
                    <td className={`${tableStyles.right} ${styles.clicks}`}>
                      {l.clicks.toLocaleString('en')}
                    </td>
                    <td className={styles.created}>
                      <Time iso={l.createdAt} relative />
                    </td>
                    <td className={`${tableStyles.right} ${styles.actionsCell}`}>
                      {/* Icon buttons, named by aria-label and explained by a tooltip, so the row fits. */}
                      <div className={styles.rowActions}>
                        <CopyLinkButton url={l.shortUrl} slug={l.slug} compact />
                        <Button
                          size="sm"
                          variant="ghost"
                          icon={l.archived ? <ArchiveRestore size={14} aria-hidden="true" /> : <Archive size={14} aria-hidden="true" />}
                          aria-label={`${l.archived ? 'Restore' : 'Archive'} ${l.slug}`}
                          title={l.archived ? 'Restore' : 'Archive'}
                          onClick={() => setArchiving(l)}
                        />
                        <Button
                          size="sm"
                          variant="ghost"
                          icon={<Trash2 size={14} aria-hidden="true" />}
                          aria-label={`Delete ${l.slug}`}
                          title="Delete"
                          onClick={() => setDeleting(l)}
                        />
                      </div>
                    </td>
                  </tr>
                ))}
              </tbody>
            </Table>
          </div>
        )}
        {(cursors.length > 1 || result.data?.links.hasMore) && (
          <nav className={styles.pager} aria-label="Pages of links">
            <span className="muted">Page {cursors.length}</span>
            <Button size="sm" disabled={cursors.length <= 1} onClick={() => turnTo(cursors.slice(0, -1))}>
              Previous
            </Button>
            <Button
              size="sm"
              disabled={!result.data?.links.hasMore}
              onClick={() => turnTo([...cursors, result.data?.links.nextCursor ?? null])}
            >
              Next
            </Button>
          </nav>
        )}
      </Card>

      {creating && (
        <LinkFormDialog
          open
          onOpenChange={setCreating}
          title="New short link"
          submitLabel="Create link"
          initial={valuesFrom(null)}
          shortBase={base.data?.shortLinkBase ?? ''}
          onSubmit={async (v) => {
            const r = await client.mutation(CreateLinkDocument, { input: toCreateInput(v) }).toPromise();
            if (!r.data) return toFormErrors(r.error);
            setCreating(false);
            setToast(`Short link ${r.data.createLink.shortUrl} created`);
            reload();
            return null;
          }}
        />
      )}
      <ConfirmDialog
        open={!!archiving}
        onOpenChange={(o) => !o && setArchiving(null)}
        title={archiving?.archived ? `Restore ${archiving.slug}?` : `Archive ${archiving?.slug ?? 'link'}?`}
        description={
          archiving?.archived
            ? 'It shows in the active list again.'
            : 'It keeps redirecting and counting clicks; it only leaves the active list. You can restore it from the archived list.'
        }
        confirmLabel={archiving?.archived ? 'Restore link' : 'Archive link'}
        onConfirm={async () => {
          if (!archiving) return;
          const r = await client.mutation(UpdateLinkDocument, { id: archiving.id, input: { archived: !archiving.archived } }).toPromise();
          if (r.error) return errorMessage(r.error);
          setToast(`Link ${archiving.slug} ${archiving.archived ? 'restored' : 'archived'}`);
          setArchiving(null);
          reload();
        }}
      />
      <ConfirmDialog
        open={!!deleting}
        onOpenChange={(o) => !o && setDeleting(null)}
        title={`Delete ${deleting?.slug ?? 'link'}?`}
        description="The short URL stops working at once and its clicks are deleted. The slug stays taken for 30 days. This cannot be undone."
        confirmLabel="Delete link"
        danger
        onConfirm={async () => {
          if (!deleting) return;
          const r = await client.mutation(DeleteLinkDocument, { id: deleting.id }).toPromise();
          if (r.error) return errorMessage(r.error);
          setToast(`Link ${deleting.slug} deleted`);
          setDeleting(null);
          reload();
        }}
      />
      <Toast message={toast} onDismiss={() => setToast('')} />
    </>
  );
}

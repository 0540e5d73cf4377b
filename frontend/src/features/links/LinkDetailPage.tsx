import { Archive, ArchiveRestore, ArrowLeft, BarChart3, Download, ExternalLink, MousePointerClick, Pencil, RefreshCw, Trash2 } from 'lucide-react';
import { useId, useMemo, useState } from 'react';
import { Link, useNavigate, useParams } from 'react-router';
import { useClient, useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import buttonStyles from '../../components/Button.module.css';
import { Card } from '../../components/Card';
import { ConfirmDialog } from '../../components/Dialog';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, InlineError, Loading } from '../../components/States';
import { Table } from '../../components/Table';
import tableStyles from '../../components/Table.module.css';
import { Time } from '../../components/Time';
import { Toast } from '../../components/Toast';
import {
  DeleteLinkDocument,
  LinkClicksDocument,
  LinkDocument,
  LinkQrDocument,
  LinkStatsDocument,
  ShortLinkBaseDocument,
  UpdateLinkDocument,
  type LinkFieldsFragment,
  type LinkStatsQuery,
} from '../../graphql/generated';
import { errorCode, errorMessage } from '../../lib/errors';
import { formatDateTime } from '../../lib/format';
import { ClicksChart } from './ClicksChart';
import { CopyLinkButton } from './CopyLinkButton';
import { toFormErrors, toUpdateInput, valuesFrom } from './form';
import { LinkFormDialog } from './LinkFormDialog';
import { LinkStatusBadge } from './LinkStatus';
import { download, svgDataURL, svgToPNG } from './qr';
import { browserTimeZone, clicksLabel, countryName, statLabel } from './text';
import { useLinkEvents, useRefetchOn } from './useLinkEvents';
import styles from './Links.module.css';

/** The QR code of a link, with downloads: the SVG as served, and a PNG drawn from it here. */
function QrCard({ id }: { id: string }) {
  const context = useMemo(() => ({ additionalTypenames: ['Link'] }), []);
  const [qr, refetch] = useQuery({ query: LinkQrDocument, variables: { id }, context });
  const [pngError, setPngError] = useState('');
  const [drawing, setDrawing] = useState(false);
  const code = qr.data?.link;

  const savePNG = async () => {
    if (!code) return;
    setDrawing(true);
    setPngError('');
    try {
      download(await svgToPNG(code.qrSvg, 1024), `${code.slug}-qr.png`);
    } catch (e) {
      setPngError(e instanceof Error ? e.message : String(e));
    } finally {
      setDrawing(false);
    }
  };

  return (
    <Card title="QR code" id="qr" description="Scans count as clicks, marked as QR.">
      {qr.error && !qr.data ? (
        <ErrorState headingLevel={3} error={qr.error} title="Could not load the QR code" onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !code ? (
        <Loading label="Loading the QR code…" />
      ) : (
        <div className={styles.qr}>
          <img src={svgDataURL(code.qrSvg)} width={176} height={176} alt={`QR code for the short link ${code.slug}`} />
          <div className="row">
            <a className={`${buttonStyles.button} ${buttonStyles.secondary} ${buttonStyles.sm}`} href={svgDataURL(code.qrSvg)} download={`${code.slug}-qr.svg`}>
              <Download size={14} aria-hidden="true" /> Download SVG
            </a>
            <Button size="sm" icon={<Download size={14} aria-hidden="true" />} loading={drawing} onClick={savePNG}>
              Download PNG
            </Button>
          </div>
          <InlineError>{pngError}</InlineError>
        </div>
      )}
    </Card>
  );
}

type Stats = LinkStatsQuery['linkStats'];

/** One breakdown of the clicks (referrers, countries, ...) as a table with each value's share. */
function Breakdown({ title, rows, total, label = statLabel }: { title: string; rows: Stats['countries']; total: number; label?: (v: string) => string }) {
  return (
    <Card title={title} headingLevel={3} flush id={`breakdown-${title.toLowerCase().replace(/\s+/g, '-')}`}>
      {rows.length === 0 ? (
        <p className={`muted ${styles.none}`}>No clicks in this period.</p>
      ) : (
        <Table label={title}>
          <thead>
            <tr>
              <th scope="col">{title === 'Referrers' ? 'Referrer' : title === 'Countries' ? 'Country' : title.replace(/s$/, '')}</th>
              <th scope="col" className={tableStyles.right}>
                Clicks
              </th>
            </tr>
          </thead>
          <tbody>
            {rows.slice(0, 10).map((r) => (
              <tr key={r.value}>
                <td>
                  <div className={styles.share}>
                    <span>{label(r.value)}</span>
                    <span className={styles.shareBar} style={{ width: `${total ? Math.round((r.clicks / total) * 100) : 0}%` }} aria-hidden="true" />
                  </div>
                </td>
                <td className={tableStyles.right}>
                  {r.clicks.toLocaleString('en')}
                  <span className="muted"> · {total ? Math.round((r.clicks / total) * 100) : 0}%</span>
                </td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
    </Card>
  );
}

type Range = '24h' | '7d' | '30d' | '90d';
const ranges: { value: Range; label: string; days: number }[] = [
  { value: '24h', label: 'Last 24 hours', days: 1 },
  { value: '7d', label: 'Last 7 days', days: 7 },
  { value: '30d', label: 'Last 30 days', days: 30 },
  { value: '90d', label: 'Last 90 days', days: 90 },
];

/** Totals, the clicks chart and the breakdowns for a period. */
function StatsSection({ id, version }: { id: string; version: number }) {
  const rangeId = useId();
  // The period's start is fixed when it is chosen; 24 hours and 30 days are the server's defaults.
  const [period, setPeriod] = useState<{ range: Range; from: string | null }>({ range: '30d', from: null });
  const [includeBots, setIncludeBots] = useState(false);
  const interval = period.range === '24h' ? ('HOUR' as const) : ('DAY' as const);
  // Days and hours are the browser's: a day in Berlin starts at Berlin's midnight.
  const timezone = useMemo(() => browserTimeZone(), []);
  const context = useMemo(() => ({ additionalTypenames: ['Link'] }), []);
  const [stats, refetch] = useQuery({
    query: LinkStatsDocument,
    variables: { id, from: period.from, interval, timezone, includeBots },
    context,
    requestPolicy: 'cache-and-network',
  });
  useRefetchOn(version, refetch);
  const s = stats.data?.linkStats;
  const rangeLabel = ranges.find((r) => r.value === period.range)?.label.toLowerCase() ?? '';

  const choose = (range: Range) => {
    const days = ranges.find((r) => r.value === range)?.days ?? 30;
    setPeriod({ range, from: range === '24h' || range === '30d' ? null : new Date(Date.now() - days * 86_400_000).toISOString() });
  };

  return (
    <section className="stack" aria-labelledby={`${rangeId}-title`}>
      <div className={styles.statsHeader}>
        <h2 id={`${rangeId}-title`}>Clicks</h2>
        <div className="row">
          <label htmlFor={rangeId} className="visually-hidden">
            Period
          </label>
          <select id={rangeId} className="select" value={period.range} onChange={(e) => choose(e.target.value as Range)}>
            {ranges.map((r) => (
              <option key={r.value} value={r.value}>
                {r.label}
              </option>
            ))}
          </select>
          <label className={styles.check}>
            <input type="checkbox" className="checkbox" checked={includeBots} onChange={(e) => setIncludeBots(e.target.checked)} />
            <span>Include bots</span>
          </label>
          <Button
            size="sm"
            variant="ghost"
            icon={<RefreshCw size={14} aria-hidden="true" />}
            loading={stats.fetching && !!stats.data}
            onClick={() => refetch({ requestPolicy: 'network-only' })}
          >
            Refresh
          </Button>
        </div>
      </div>
      {stats.error && !stats.data ? (
        <Card>
          <ErrorState headingLevel={3} error={stats.error} title="Could not load the stats" onRetry={() => refetch({ requestPolicy: 'network-only' })} />
        </Card>
      ) : !s ? (
        <Card>
          <Loading label="Loading stats…" rows={4} />
        </Card>
      ) : (
        <>
          <Card>
            <dl className={styles.totals}>
              <div>
                <dt>Clicks</dt>
                <dd data-testid="stats-clicks">{s.clicks.toLocaleString('en')}</dd>
              </div>
              <div>
                <dt>Unique visitors</dt>
                <dd>{s.uniques.toLocaleString('en')}</dd>
              </div>
              <div>
                <dt>Bot visits</dt>
                <dd>{s.bots.toLocaleString('en')}</dd>
              </div>
            </dl>
            {s.clicks === 0 ? (
              <EmptyState headingLevel={3} icon={<BarChart3 size={20} />} title={`No clicks ${rangeLabel.replace('last', 'in the last')}`}>
                Share the short link or its QR code: clicks show up here within a second.
              </EmptyState>
            ) : (
              <ClicksChart buckets={s.timeseries} interval={s.interval} period={rangeLabel} timezone={s.timezone} />
            )}
          </Card>
          <div className={styles.breakdowns}>
            <Breakdown title="Referrers" rows={s.referrers} total={s.clicks} />
            <Breakdown title="Countries" rows={s.countries} total={s.clicks} label={countryName} />
            <Breakdown title="Devices" rows={s.devices} total={s.clicks} />
            <Breakdown title="Browsers" rows={s.browsers} total={s.clicks} />
            <Breakdown title="Operating systems" rows={s.os} total={s.clicks} />
          </div>
        </>
      )}
    </section>
  );
}

/** The newest clicks, a page at a time. */
function RecentClicks({ id, version }: { id: string; version: number }) {
  const [cursors, setCursors] = useState<(string | null)[]>([null]);
  const after = cursors[cursors.length - 1] ?? null;
  const context = useMemo(() => ({ additionalTypenames: ['Link'] }), []);
  const [clicks, refetch] = useQuery({
    query: LinkClicksDocument,
    variables: { id, includeBots: true, first: 20, after },
    context,
    requestPolicy: 'cache-and-network',
  });
  useRefetchOn(version, refetch);
  const list = clicks.data?.linkClicks.nodes ?? [];
  return (
    <Card title="Recent clicks" id="recent-clicks" description="Every visit, newest first, bots included and marked." flush>
      {clicks.error && !clicks.data ? (
        <ErrorState headingLevel={3} error={clicks.error} title="Could not load the clicks" onRetry={() => refetch({ requestPolicy: 'network-only' })} />
      ) : !clicks.data ? (
        <Loading label="Loading clicks…" rows={3} />
      ) : list.length === 0 ? (
        <EmptyState headingLevel={3} icon={<MousePointerClick size={20} />} title="No clicks yet">
          Visits of the short link are listed here.
        </EmptyState>
      ) : (
        <Table label="Recent clicks">
          <thead>
            <tr>
              <th scope="col">Time</th>
              <th scope="col">Referrer</th>
              <th scope="col">Country</th>
              <th scope="col">Device</th>
              <th scope="col">Browser</th>
              <th scope="col">OS</th>
            </tr>
          </thead>
          <tbody>
            {list.map((c) => (
              <tr key={c.id}>
                <td>
                  <Time iso={c.timestamp} />
                </td>
                <td className={styles.destCell}>
                  <span className={styles.dest} title={c.referrer ?? undefined}>
                    {c.referrerHost ?? <span className="muted">Direct</span>}
                  </span>
                  {c.qr && <Badge tone="blue">QR</Badge>}
                </td>
                <td>{countryName(c.country)}</td>
                <td>
                  {c.bot ? (
                    <Badge tone="amber" title={c.botReason ?? undefined}>
                      Bot
                    </Badge>
                  ) : (
                    statLabel(c.device)
                  )}
                </td>
                <td>{c.browser || <span className="muted">Unknown</span>}</td>
                <td>{c.os || <span className="muted">Unknown</span>}</td>
              </tr>
            ))}
          </tbody>
        </Table>
      )}
      {(cursors.length > 1 || clicks.data?.linkClicks.hasMore) && (
        <nav className={styles.pager} aria-label="Pages of clicks">
          <Button size="sm" disabled={cursors.length <= 1} onClick={() => setCursors([null])}>
            Newest
          </Button>
          <Button size="sm" disabled={!clicks.data?.linkClicks.hasMore} onClick={() => setCursors([...cursors, clicks.data?.linkClicks.nextCursor ?? null])}>
            Older
          </Button>
        </nav>
      )}
    </Card>
  );
}

function Details({ link }: { link: LinkFieldsFragment & { metadata: unknown } }) {
  const utm = Object.entries(link.utm).filter(([k, v]) => k !== '__typename' && v);
  const meta = link.metadata && typeof link.metadata === 'object' && Object.keys(link.metadata).length ? JSON.stringify(link.metadata, null, 2) : '';
  return (
    <Card title="Details" id="details">
      <dl className={styles.dl}>
        <dt>Status</dt>
        <dd className={styles.badges}>
          <LinkStatusBadge link={link} />
        </dd>
        <dt>Destination</dt>
        <dd>
          <a href={link.url} target="_blank" rel="noreferrer noopener" className={styles.external}>
            {link.url}
            <ExternalLink size={12} aria-hidden="true" />
            <span className="visually-hidden"> (opens in a new tab)</span>
          </a>
        </dd>
        <dt>Tags</dt>
        <dd className={styles.badges}>{link.tags.length ? link.tags.map((t) => <Badge key={t}>{t}</Badge>) : <span className="muted">None</span>}</dd>
        <dt>Redirect</dt>
        <dd>{link.redirectStatus}</dd>
        <dt>Expires</dt>
        <dd>{link.expiresAt ? formatDateTime(link.expiresAt) : <span className="muted">Never</span>}</dd>
        <dt>Click limit</dt>
        <dd>{link.maxClicks != null ? `${link.clicks.toLocaleString('en')} of ${link.maxClicks.toLocaleString('en')} used` : <span className="muted">None</span>}</dd>
        {link.expiredUrl && (
          <>
            <dt>Expired URL</dt>
            <dd className="mono">{link.expiredUrl}</dd>
          </>
        )}
        {utm.length > 0 && (
          <>
            <dt>UTM</dt>
            <dd className="mono">{utm.map(([k, v]) => `utm_${k}=${v}`).join(' ')}</dd>
          </>
        )}
        {link.iosUrl && (
          <>
            <dt>iOS URL</dt>
            <dd className="mono">{link.iosUrl}</dd>
          </>
        )}
        {link.androidUrl && (
          <>
            <dt>Android URL</dt>
            <dd className="mono">{link.androidUrl}</dd>
          </>
        )}
        {link.externalId && (
          <>
            <dt>External ID</dt>
            <dd className="mono">{link.externalId}</dd>
          </>
        )}
        {meta && (
          <>
            <dt>Metadata</dt>
            <dd>
              <pre className={styles.meta}>{meta}</pre>
            </dd>
          </>
        )}
        <dt>Last click</dt>
        <dd>
          <Time iso={link.lastClickedAt} relative />
        </dd>
        <dt>ID</dt>
        <dd className="mono">{link.id}</dd>
        <dt>Created</dt>
        <dd>
          <Time iso={link.createdAt} />
        </dd>
      </dl>
    </Card>
  );
}

export default function LinkDetailPage() {
  const { id = '' } = useParams();
  const client = useClient();
  const navigate = useNavigate();
  const context = useMemo(() => ({ additionalTypenames: ['Link'] }), []);
  const [result, refetch] = useQuery({ query: LinkDocument, variables: { id }, context, requestPolicy: 'cache-and-network' });
  const [base] = useQuery({ query: ShortLinkBaseDocument });
  const [editing, setEditing] = useState(false);
  const [archiving, setArchiving] = useState(false);
  const [deleting, setDeleting] = useState(false);
  const [toast, setToast] = useState('');
  // Bumped when this link changes or is clicked elsewhere: the stats and clicks reload too.
  const [version, setVersion] = useState(0);
  useLinkEvents(
    () => {
      refetch({ requestPolicy: 'network-only' });
      setVersion((v) => v + 1);
    },
    { linkId: result.data?.link?.id ?? id, throttleMs: 1000 },
  );
  const link = result.data?.link;

  if (result.error && !result.data?.link) {
    const notFound = errorCode(result.error) === 'NOT_FOUND';
    return (
      <>
        <BackLink />
        <PageHeader title="Short link" />
        <Card>
          <ErrorState
            error={notFound ? 'This link does not exist or was deleted.' : result.error}
            title={notFound ? 'Link not found' : 'Could not load this link'}
            onRetry={notFound ? undefined : () => refetch({ requestPolicy: 'network-only' })}
          />
        </Card>
      </>
    );
  }
  if (!link) {
    return (
      <>
        <BackLink />
        <PageHeader title="Short link" />
        <Card>
          <Loading label="Loading the link…" rows={4} />
        </Card>
      </>
    );
  }

  return (
    <>
      <BackLink />
      <PageHeader
        title={link.title || link.slug}
        description={
          <span className={styles.headerUrl}>
            <span className="mono" data-testid="short-url">
              {link.shortUrl}
            </span>
            <CopyLinkButton url={link.shortUrl} slug={link.slug} variant="secondary" />
          </span>
        }
        actions={
          <>
            <Button icon={<Pencil size={14} aria-hidden="true" />} onClick={() => setEditing(true)}>
              Edit
            </Button>
            <Button
              icon={link.archived ? <ArchiveRestore size={14} aria-hidden="true" /> : <Archive size={14} aria-hidden="true" />}
              onClick={() => setArchiving(true)}
            >
              {link.archived ? 'Restore' : 'Archive'}
            </Button>
            <Button variant="danger" icon={<Trash2 size={14} aria-hidden="true" />} onClick={() => setDeleting(true)}>
              Delete
            </Button>
          </>
        }
      />
      <p className={styles.summary}>
        <span data-testid="link-clicks">{clicksLabel(link.clicks)}</span> in total
        {link.lastClickedAt && (
          <>
            , the last <Time iso={link.lastClickedAt} relative />
          </>
        )}
        .
      </p>
      <div className={styles.detailGrid}>
        <StatsSection id={link.id} version={version} />
        <div className="stack">
          <QrCard id={link.id} />
          <Details link={link} />
        </div>
      </div>
      <div style={{ marginTop: 24 }}>
        <RecentClicks id={link.id} version={version} />
      </div>

      {editing && (
        <LinkFormDialog
          open
          onOpenChange={setEditing}
          title={`Edit ${link.slug}`}
          submitLabel="Save changes"
          editing
          hasPassword={link.passwordProtected}
          initial={valuesFrom(link)}
          shortBase={base.data?.shortLinkBase ?? ''}
          onSubmit={async (v) => {
            const input = toUpdateInput(v, link);
            if (Object.keys(input).length) {
              const r = await client.mutation(UpdateLinkDocument, { id: link.id, input }).toPromise();
              if (!r.data) return toFormErrors(r.error);
              setToast(`Link ${r.data.updateLink.slug} saved`);
            }
            setEditing(false);
            return null;
          }}
        />
      )}
      <ConfirmDialog
        open={archiving}
        onOpenChange={setArchiving}
        title={link.archived ? `Restore ${link.slug}?` : `Archive ${link.slug}?`}
        description={
          link.archived
            ? 'It shows in the active list again.'
            : 'It keeps redirecting and counting clicks; it only leaves the active list. You can restore it at any time.'
        }
        confirmLabel={link.archived ? 'Restore link' : 'Archive link'}
        onConfirm={async () => {
          const r = await client.mutation(UpdateLinkDocument, { id: link.id, input: { archived: !link.archived } }).toPromise();
          if (r.error) return errorMessage(r.error);
          setToast(`Link ${link.slug} ${link.archived ? 'restored' : 'archived'}`);
        }}
      />
      <ConfirmDialog
        open={deleting}
        onOpenChange={setDeleting}
        title={`Delete ${link.slug}?`}
        description="The short URL stops working at once and its clicks are deleted. The slug stays taken for 30 days. This cannot be undone."
        confirmLabel="Delete link"
        danger
        onConfirm={async () => {
          const r = await client.mutation(DeleteLinkDocument, { id: link.id }).toPromise();
          if (r.error) return errorMessage(r.error);
          navigate('/api/links', { replace: true, state: { toast: `Link ${link.slug} deleted` } });
        }}
      />
      <Toast message={toast} onDismiss={() => setToast('')} />
    </>
  );
}

function BackLink() {
  return (
    <Link to="/api/links" className={styles.back}>
      <ArrowLeft size={14} aria-hidden="true" /> Short links
    </Link>
  );
}

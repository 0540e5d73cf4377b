import { ChevronRight, Pause, Play, Radio } from 'lucide-react';
import { useState } from 'react';
import { useSearchParams } from 'react-router';
import { useQuery } from 'urql';
import { Badge } from '../../components/Badge';
import { Button } from '../../components/Button';
import { Card } from '../../components/Card';
import { CodeBlock } from '../../components/CodeBlock';
import { PageHeader } from '../../components/PageHeader';
import { EmptyState, ErrorState, InlineError, Loading } from '../../components/States';
import { Time } from '../../components/Time';
import { EventTypesDocument } from '../../graphql/generated';
import { useConnectionState } from '../../lib/clientContext';
import { errorMessage } from '../../lib/errors';
import { formatJSON } from '../../lib/format';
import { eventSummary, useLiveEvents } from './useLiveEvents';
import styles from './EventsPage.module.css';

function StatusBadge({ paused, state }: { paused: boolean; state: string }) {
  if (paused) return <Badge tone="amber" dot>Paused</Badge>;
  if (state === 'connected') return <Badge tone="green" dot>Live</Badge>;
  if (state === 'connecting') return <Badge tone="blue" dot>Connecting…</Badge>;
  return <Badge tone="neutral" dot>Offline</Badge>;
}

/** The type filter lives in the URL (?type=a&type=b), so a reload, Back and a shared link keep it. */
function useTypeFilter(): [string[], (next: string[]) => void] {
  const [params, setParams] = useSearchParams();
  const types = [...new Set(params.getAll('type'))].sort();
  const setTypes = (next: string[]) =>
    setParams(
      (old) => {
        const p = new URLSearchParams(old);
        p.delete('type');
        for (const t of next) p.append('type', t);
        return p;
      },
      { replace: true },
    );
  return [types, setTypes];
}

export function EventsPage() {
  const [types, setTypes] = useTypeFilter();
  const [paused, setPaused] = useState(false);
  const [eventTypes] = useQuery({ query: EventTypesDocument });
  const live = useLiveEvents(types, paused);
  const connection = useConnectionState();

  const toggleType = (t: string) => setTypes(types.includes(t) ? types.filter((x) => x !== t) : [...types, t].sort());

  const resume = () => {
    live.flush();
    setPaused(false);
  };

  return (
    <>
      <PageHeader
        title="Events"
        description="Everything that happens in this workspace, as it happens. The same events reach your webhooks and GET /api/v1/events."
        actions={
          <>
            <StatusBadge paused={paused} state={connection} />
            {paused ? (
              <Button variant="primary" icon={<Play size={14} aria-hidden="true" />} onClick={resume}>
                Resume{live.pending.length ? ` (${live.pending.length} new)` : ''}
              </Button>
            ) : (
              <Button icon={<Pause size={14} aria-hidden="true" />} onClick={() => setPaused(true)}>
                Pause
              </Button>
            )}
          </>
        }
      />
      <Card flush>
        <div className={styles.toolbar} role="group" aria-label="Filter by event type">
          <span className={styles.toolbarLabel}>Types</span>
          <button type="button" className={styles.chip} aria-pressed={types.length === 0} onClick={() => setTypes([])}>
            All
          </button>
          {eventTypes.data?.eventTypes.map((t) => (
            <button
              key={t.type}
              type="button"
              className={styles.chip}
              aria-pressed={types.includes(t.type)}
              onClick={() => toggleType(t.type)}
              title={t.description}
            >
              {t.type}
            </button>
          ))}
          {eventTypes.error && !eventTypes.data && <span className="muted">Could not load event types.</span>}
        </div>
        {live.liveError && (
          <div style={{ padding: '12px 16px 0' }}>
            <InlineError>Live updates are interrupted: {errorMessage(live.liveError)} Reconnecting…</InlineError>
          </div>
        )}
        {paused && live.pending.length > 0 && (
          <div className={styles.banner}>
            <Button size="sm" variant="secondary" onClick={resume}>
              Show {live.pending.length} new event{live.pending.length === 1 ? '' : 's'}
            </Button>
          </div>
        )}
        {live.loading ? (
          <Loading label="Loading events…" rows={5} />
        ) : live.historyError && live.events.length === 0 ? (
          <ErrorState error={live.historyError} title="Could not load recent events" />
        ) : live.events.length === 0 ? (
          <EmptyState icon={<Radio size={20} />} title={types.length ? 'No events of these types yet' : 'Waiting for events'}>
            New events appear here the moment they happen. Create an API key or a webhook in another tab to see one.
          </EmptyState>
        ) : (
          <ul className={styles.list} aria-label="Events, newest first" aria-live={paused ? 'off' : 'polite'} aria-relevant="additions">
            {live.events.map((e) => (
              <li key={e.id} className={`${styles.item} ${live.freshIds.has(e.id) ? styles.fresh : ''}`} data-event-type={e.type}>
                <details>
                  <summary className={styles.summary}>
                    <ChevronRight size={14} className={styles.chev} aria-hidden="true" />
                    <span>
                      <Badge tone="purple" mono>
                        {e.type}
                      </Badge>
                    </span>
                    <span className={styles.id}>
                      {eventSummary(e.data) && <span className={styles.what}>{eventSummary(e.data)}</span>}
                      {e.id}
                    </span>
                    <span className={styles.time}>
                      <Time iso={e.timestamp} />
                    </span>
                  </summary>
                  <div className={styles.detail}>
                    <CodeBlock
                      code={formatJSON({ id: e.id, type: e.type, timestamp: e.timestamp, workspace_id: e.workspaceId, data: e.data })}
                      language="json"
                      label={`Event ${e.id}`}
                    />
                  </div>
                </details>
              </li>
            ))}
          </ul>
        )}
        {live.events.length > 0 && (
          <div className={styles.footer}>
            Showing the latest {live.events.length} event{live.events.length === 1 ? '' : 's'}, newest first.
          </div>
        )}
      </Card>
    </>
  );
}

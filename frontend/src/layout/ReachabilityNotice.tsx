import { CloudOff } from 'lucide-react';
import { Button } from '../components/Button';
import { useReachability } from '../lib/clientContext';
import { formatTime } from '../lib/format';
import styles from './ReachabilityNotice.module.css';

/**
 * Says, under the top bar of every console page, that Switchboard cannot be reached and how
 * old the data on screen is: from a request that got no answer, or at once when the live
 * connection of a page with live updates drops; until requests succeed and the live connection
 * is back. Pages keep what they showed (see lib/reachability.ts). Like Toast, the status region is always in the page, empty while the
 * server answers, so screen readers announce the message when it appears.
 */
export function ReachabilityNotice() {
  const { reachable, liveOnly, lastSuccessAt, retryNow } = useReachability();
  const since = lastSuccessAt ? ` — showing data from ${formatTime(lastSuccessAt)}` : '';
  const message = liveOnly
    ? "Live updates are paused: Switchboard answers, but its live connection fails (a proxy in front may not pass websockets); retrying…"
    : `Can't reach Switchboard${since}; retrying…`;
  return (
    <div className={reachable ? styles.empty : styles.notice}>
      {!reachable && <CloudOff size={16} aria-hidden="true" className={styles.icon} />}
      <p role="status" aria-live="polite" aria-atomic="true" className={styles.message}>
        {!reachable && message}
      </p>
      {!reachable && (
        <Button size="sm" variant="secondary" onClick={retryNow}>
          Retry now
        </Button>
      )}
    </div>
  );
}

import { useSyncExternalStore } from 'react';
import { formatDateTime, formatRelative } from '../lib/format';

// One timer for every relative time on the page, so "just now" becomes "1 minute ago" (and
// "in 10 minutes" counts down) while the page stays open.
const TICK_MS = 30_000;
const listeners = new Set<() => void>();
let tick = 0;
let timer: ReturnType<typeof setInterval> | undefined;

function subscribe(listener: () => void) {
  listeners.add(listener);
  timer ??= setInterval(() => {
    tick += 1;
    listeners.forEach((l) => l());
  }, TICK_MS);
  return () => {
    listeners.delete(listener);
    if (listeners.size === 0 && timer !== undefined) {
      clearInterval(timer);
      timer = undefined;
    }
  };
}

function Relative({ iso }: { iso: string }) {
  useSyncExternalStore(subscribe, () => tick);
  return <>{formatRelative(iso)}</>;
}

export function Time({ iso, relative }: { iso: string | null | undefined; relative?: boolean }) {
  if (!iso) return <span className="muted">—</span>;
  return (
    <time dateTime={iso} title={formatDateTime(iso)}>
      {relative ? <Relative iso={iso} /> : formatDateTime(iso)}
    </time>
  );
}

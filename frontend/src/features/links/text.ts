const regions = typeof Intl.DisplayNames === 'function' ? new Intl.DisplayNames(['en'], { type: 'region' }) : null;

/** A country code as a name ("DE" → "Germany"); unknown stays "Unknown". */
export function countryName(code: string): string {
  if (!code || code === 'unknown') return 'Unknown';
  try {
    return regions?.of(code.toUpperCase()) ?? code;
  } catch {
    return code;
  }
}

/** A stats value as shown: devices and the unknown/direct buckets capitalized. */
export function statLabel(value: string): string {
  if (!value) return 'Unknown';
  if (/^(unknown|direct|desktop|mobile|tablet|bot)$/.test(value)) return value[0]!.toUpperCase() + value.slice(1);
  return value;
}

/** A URL without its scheme, for tight columns ("https://example.com/a" → "example.com/a"). */
export function withoutScheme(url: string): string {
  return url.replace(/^https?:\/\//, '');
}

/** "1 click", "2 clicks". */
export function clicksLabel(n: number): string {
  return `${n.toLocaleString('en')} ${n === 1 ? 'click' : 'clicks'}`;
}

const dayFormat = new Intl.DateTimeFormat('en', { month: 'short', day: 'numeric', timeZone: 'UTC' });

/**
 * A bucket's start as shown, read from its local start (RFC 3339 with the stats' time zone's
 * offset, such as 2025-03-30T00:00:00.000+01:00): "Mar 30" by day, "14:00" by hour. The date
 * and time are the zone's whatever zone the browser is in.
 */
export function bucketLabel(localStart: string, interval: 'DAY' | 'HOUR'): string {
  if (interval === 'HOUR') return localStart.slice(11, 16);
  const [y = 1970, m = 1, d = 1] = localStart.slice(0, 10).split('-').map(Number);
  return dayFormat.format(new Date(Date.UTC(y, m - 1, d)));
}

/** The browser's IANA time zone (Europe/Berlin), in whose days and hours the console asks for stats; UTC when it cannot tell. */
export function browserTimeZone(): string {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  } catch {
    return 'UTC';
  }
}

export type LinkState = 'active' | 'archived' | 'expired' | 'used_up';

/** Whether a link redirects: expired and used-up links do not (archived ones still do). */
export function linkState(
  l: { archived: boolean; expiresAt: string | null; maxClicks: number | null; clicks: number },
  now: number = Date.now(),
): LinkState {
  if (l.expiresAt && new Date(l.expiresAt).getTime() <= now) return 'expired';
  if (l.maxClicks != null && l.clicks >= l.maxClicks) return 'used_up';
  if (l.archived) return 'archived';
  return 'active';
}

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
const hourFormat = new Intl.DateTimeFormat('en', { hour: '2-digit', minute: '2-digit', hour12: false, timeZone: 'UTC' });

/** A bucket's start as shown: "Nov 24" by day, "14:00 UTC" by hour (buckets are UTC days and hours). */
export function bucketLabel(start: string, interval: 'DAY' | 'HOUR'): string {
  const d = new Date(start);
  return interval === 'DAY' ? dayFormat.format(d) : `${hourFormat.format(d)} UTC`;
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

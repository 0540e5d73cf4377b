import type { CombinedError } from 'urql';
import { errorsByField } from '../../lib/errors';
import { formatDateTime } from '../../lib/format';

/** How far back "Recover failed deliveries" goes: a preset, or a time the user enters. */
export type SincePreset = 'hour' | 'day' | 'week' | 'custom';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;

export const sincePresets: { value: Exclude<SincePreset, 'custom'>; label: string; ms: number }[] = [
  { value: 'hour', label: 'Last hour', ms: HOUR },
  { value: 'day', label: 'Last 24 hours', ms: DAY },
  { value: 'week', label: 'Last 7 days', ms: 7 * DAY },
];

/** Deliveries are kept this long (docs/webhooks.md); older ones cannot be recovered. */
export const RETENTION_DAYS = 30;

const pad = (n: number) => String(n).padStart(2, '0');

/** A moment as a datetime-local value in the browser's time zone. */
export function toLocalInput(d: Date): string {
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/**
 * The custom time's input when it is chosen: prefilled with 24 hours ago, and kept between
 * the oldest deliveries still kept and now.
 */
export function customSinceInput(now: number = Date.now()): { value: string; min: string; max: string } {
  return { value: toLocalInput(new Date(now - DAY)), min: toLocalInput(new Date(now - RETENTION_DAYS * DAY)), max: toLocalInput(new Date(now)) };
}

/** The `since` to send (an ISO time), or why there is none: the custom time is missing or in the future. */
export function sinceFrom(preset: SincePreset, custom: string, now: number = Date.now()): { since: string } | { error: string } {
  if (preset !== 'custom') {
    const p = sincePresets.find((x) => x.value === preset) ?? sincePresets[0]!;
    return { since: new Date(now - p.ms).toISOString() };
  }
  const d = custom ? new Date(custom) : null;
  if (!d || Number.isNaN(d.getTime())) return { error: 'Enter a date and time.' };
  if (d.getTime() > now) return { error: 'Choose a time in the past.' };
  return { since: d.toISOString() };
}

/** What the calls so far did, in a sentence. */
export function recoveryMessage(queued: number, hasMore: boolean, since: string): string {
  if (queued === 0 && !hasMore) return `No failed deliveries since ${formatDateTime(since)}.`;
  const n = queued.toLocaleString('en');
  return `Queued ${n} failed ${queued === 1 ? 'delivery' : 'deliveries'} for another attempt.`;
}

export type RecoverErrors = Partial<Record<'since' | 'form', string>>;

/**
 * A failed call's errors: one naming since under that field (while it is shown), the rest at
 * the top; a disabled endpoint says what to do about it.
 */
export function recoverErrors(error: CombinedError | undefined, sinceShown: boolean): RecoverErrors {
  if (isWebhookDisabled(error)) return { form: 'This endpoint is disabled. Enable it, then recover its failed deliveries.' };
  return errorsByField(error, sinceShown ? ['since'] : []);
}

export function isWebhookDisabled(error: CombinedError | undefined): boolean {
  return !!error?.graphQLErrors.some((e) => e.extensions?.code === 'CONFLICT' && e.extensions?.reason === 'webhook_disabled');
}

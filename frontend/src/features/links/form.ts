import type { CombinedError } from 'urql';
import type { CreateLinkInput, LinkFieldsFragment, UpdateLinkInput } from '../../graphql/generated';
import { errorMessage } from '../../lib/errors';

/** The link form's values, as typed (strings), for creating a link or editing one. */
export interface LinkFormValues {
  url: string;
  slug: string;
  title: string;
  /** Separated by commas. */
  tags: string;
  /** A datetime-local value (the browser's time zone), or empty for no expiry. */
  expiresAt: string;
  expiredUrl: string;
  maxClicks: string;
  /** A new password; empty keeps the current one (or sets none). */
  password: string;
  removePassword: boolean;
  redirectStatus: string;
  utmSource: string;
  utmMedium: string;
  utmCampaign: string;
  utmTerm: string;
  utmContent: string;
  iosUrl: string;
  androidUrl: string;
}

export type LinkFormErrors = Partial<Record<keyof LinkFormValues | 'form', string>>;

/** The fields under "More options". */
export const advancedFields: (keyof LinkFormValues)[] = [
  'expiresAt',
  'expiredUrl',
  'maxClicks',
  'password',
  'redirectStatus',
  'utmSource',
  'utmMedium',
  'utmCampaign',
  'utmTerm',
  'utmContent',
  'iosUrl',
  'androidUrl',
];

/** Short labels, so the select shows them whole in a half-width column; the hint explains the chosen one. */
export const redirectStatuses = [
  { value: '302', label: '302 Found (default)', hint: 'Temporary: browsers ask again on every visit.' },
  { value: '301', label: '301 Moved permanently', hint: 'Permanent: browsers may cache it, so a later change may not reach returning visitors.' },
  { value: '307', label: '307 Temporary redirect', hint: 'Temporary, and keeps the request method (a POST stays a POST).' },
  { value: '308', label: '308 Permanent redirect', hint: 'Permanent, and keeps the request method; browsers may cache it.' },
];

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO time as a datetime-local value in the browser's time zone. */
export function toLocalInput(iso: string | null | undefined): string {
  if (!iso) return '';
  const d = new Date(iso);
  if (Number.isNaN(d.getTime())) return '';
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
}

/** A datetime-local value as an ISO time (UTC). */
export function fromLocalInput(local: string): string | null {
  if (!local) return null;
  const d = new Date(local);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

/** Tags typed separated by commas: trimmed, without blanks or repeats. */
export function parseTags(s: string): string[] {
  return [...new Set(s.split(',').map((t) => t.trim()).filter(Boolean))];
}

export function valuesFrom(link?: LinkFieldsFragment | null): LinkFormValues {
  return {
    url: link?.url ?? '',
    slug: link?.slug ?? '',
    title: link?.title ?? '',
    tags: link?.tags.join(', ') ?? '',
    expiresAt: toLocalInput(link?.expiresAt),
    expiredUrl: link?.expiredUrl ?? '',
    maxClicks: link?.maxClicks != null ? String(link.maxClicks) : '',
    password: '',
    removePassword: false,
    redirectStatus: String(link?.redirectStatus ?? 302),
    utmSource: link?.utm.source ?? '',
    utmMedium: link?.utm.medium ?? '',
    utmCampaign: link?.utm.campaign ?? '',
    utmTerm: link?.utm.term ?? '',
    utmContent: link?.utm.content ?? '',
    iosUrl: link?.iosUrl ?? '',
    androidUrl: link?.androidUrl ?? '',
  };
}

/** Whether any option under "More options" differs from a new link's default. */
export function hasAdvanced(v: LinkFormValues): boolean {
  const blank = valuesFrom(null);
  return advancedFields.some((f) => v[f] !== blank[f]);
}

function isWebURL(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
}

/**
 * Checks what the browser can check; the server has the last word. `initial` is what the form
 * started from: an expiry left as it was is not checked, so an expired link can still be
 * edited (toUpdateInput does not send it either); one set or changed must be in the future.
 */
export function validateLink(v: LinkFormValues, initial?: LinkFormValues, now: number = Date.now()): LinkFormErrors {
  const errors: LinkFormErrors = {};
  const url = v.url.trim();
  if (!url) errors.url = 'Enter the URL visitors should go to, such as https://example.com/launch.';
  else if (!isWebURL(url)) errors.url = 'Enter a full http:// or https:// URL, such as https://example.com/launch.';
  const slug = v.slug.trim();
  if (slug && !/^[A-Za-z0-9_-]{3,64}$/.test(slug)) errors.slug = 'Use 3 to 64 letters, digits, - or _.';
  for (const f of ['expiredUrl', 'iosUrl', 'androidUrl'] as const) {
    const s = v[f].trim();
    if (s && !isWebURL(s)) errors[f] = 'Enter a full http:// or https:// URL.';
  }
  const max = v.maxClicks.trim();
  if (max && !(/^\d+$/.test(max) && Number(max) > 0 && Number(max) <= 2147483647)) errors.maxClicks = 'Enter a whole number above 0.';
  if (v.expiresAt && v.expiresAt !== initial?.expiresAt) {
    const at = fromLocalInput(v.expiresAt);
    if (!at) errors.expiresAt = 'Enter a date and time.';
    else if (new Date(at).getTime() <= now) errors.expiresAt = 'Choose a time in the future.';
  }
  return errors;
}

function utmOf(v: LinkFormValues) {
  return {
    source: v.utmSource.trim(),
    medium: v.utmMedium.trim(),
    campaign: v.utmCampaign.trim(),
    term: v.utmTerm.trim(),
    content: v.utmContent.trim(),
  };
}

/** The createLink input: only what was filled in (the server's defaults for the rest). */
export function toCreateInput(v: LinkFormValues): CreateLinkInput {
  const text = (s: string) => s.trim() || undefined;
  const tags = parseTags(v.tags);
  const utm = utmOf(v);
  const input: CreateLinkInput = {
    url: v.url.trim(),
    slug: text(v.slug),
    title: text(v.title),
    tags: tags.length ? tags : undefined,
    expiresAt: fromLocalInput(v.expiresAt) ?? undefined,
    expiredUrl: text(v.expiredUrl),
    maxClicks: text(v.maxClicks) ? Number(v.maxClicks.trim()) : undefined,
    password: v.password || undefined,
    redirectStatus: v.redirectStatus !== '302' ? Number(v.redirectStatus) : undefined,
    utm: Object.values(utm).some(Boolean) ? Object.fromEntries(Object.entries(utm).filter(([, s]) => s)) : undefined,
    iosUrl: text(v.iosUrl),
    androidUrl: text(v.androidUrl),
  };
  return Object.fromEntries(Object.entries(input).filter(([, x]) => x !== undefined)) as CreateLinkInput;
}

/**
 * The updateLink input: only the fields that changed, so that saving a title does not
 * resend (and re-check) an expiry that has passed. An emptied optional field is sent as
 * null, which clears it.
 */
export function toUpdateInput(v: LinkFormValues, link: LinkFieldsFragment): UpdateLinkInput {
  const was = valuesFrom(link);
  const input: UpdateLinkInput = {};
  const changed = (f: keyof LinkFormValues) => String(v[f]).trim() !== String(was[f]).trim();
  if (changed('url')) input.url = v.url.trim();
  if (changed('slug')) input.slug = v.slug.trim();
  if (changed('title')) input.title = v.title.trim();
  if (parseTags(v.tags).join('\n') !== link.tags.join('\n')) input.tags = parseTags(v.tags);
  if (changed('expiresAt')) input.expiresAt = fromLocalInput(v.expiresAt);
  if (changed('expiredUrl')) input.expiredUrl = v.expiredUrl.trim() || null;
  if (changed('maxClicks')) input.maxClicks = v.maxClicks.trim() ? Number(v.maxClicks.trim()) : null;
  if (v.removePassword) input.password = null;
  else if (v.password) input.password = v.password;
  if (changed('redirectStatus')) input.redirectStatus = Number(v.redirectStatus);
  if ((['utmSource', 'utmMedium', 'utmCampaign', 'utmTerm', 'utmContent'] as const).some(changed)) input.utm = utmOf(v);
  if (changed('iosUrl')) input.iosUrl = v.iosUrl.trim() || null;
  if (changed('androidUrl')) input.androidUrl = v.androidUrl.trim() || null;
  return input;
}

/** The form field a server error names (extensions.field, such as url or utm.source). */
const fieldOf: Record<string, keyof LinkFormValues> = {
  url: 'url',
  slug: 'slug',
  title: 'title',
  tags: 'tags',
  expiresAt: 'expiresAt',
  expiredUrl: 'expiredUrl',
  maxClicks: 'maxClicks',
  password: 'password',
  redirectStatus: 'redirectStatus',
  'utm.source': 'utmSource',
  'utm.medium': 'utmMedium',
  'utm.campaign': 'utmCampaign',
  'utm.term': 'utmTerm',
  'utm.content': 'utmContent',
  iosUrl: 'iosUrl',
  androidUrl: 'androidUrl',
};

/** Puts the server's errors under the fields they name (INVALID, CONFLICT or any other code); the rest above the form. */
export function toFormErrors(error: CombinedError | undefined): LinkFormErrors {
  const out: LinkFormErrors = {};
  for (const e of error?.graphQLErrors ?? []) {
    const field = typeof e.extensions?.field === 'string' ? fieldOf[e.extensions.field] : undefined;
    if (field) out[field] = e.message;
  }
  if (!Object.keys(out).length) out.form = errorMessage(error) || 'Something went wrong. Try again.';
  return out;
}

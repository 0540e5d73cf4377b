import type { ApiKeyFieldsFragment, ScopeCatalogQuery } from '../../graphql/generated';

export type ScopeCatalog = ScopeCatalogQuery['scopes'];

/** What the picker holds: a preset's id, or custom with an explicit list. */
export interface ScopeSelection {
  mode: string; // preset id or 'custom'
  custom: string[];
}

export function selectedScopes(catalog: ScopeCatalog, selection: ScopeSelection): string[] {
  if (selection.mode === 'custom') {
    const order = catalog.scopes.map((s) => s.scope);
    return [...selection.custom].sort((a, b) => order.indexOf(a) - order.indexOf(b));
  }
  return catalog.presets.find((p) => p.id === selection.mode)?.scopes ?? [];
}

/** Groups scopes by resource ("links:read" -> "links"), keeping catalog order. */
export function groupScopes(catalog: ScopeCatalog): { resource: string; scopes: ScopeCatalog['scopes'] }[] {
  const groups: { resource: string; scopes: ScopeCatalog['scopes'] }[] = [];
  for (const s of catalog.scopes) {
    const resource = s.scope.split(':')[0] ?? s.scope;
    let g = groups.find((x) => x.resource === resource);
    if (!g) {
      g = { resource, scopes: [] };
      groups.push(g);
    }
    g.scopes.push(s);
  }
  return groups;
}

/** A short human summary of a key's scopes for tables. */
export function describeScopes(scopes: string[], catalog?: ScopeCatalog): string {
  if (scopes.includes('*')) return 'Full access';
  if (catalog) {
    const sorted = [...scopes].sort().join(' ');
    const preset = catalog.presets.find((p) => [...p.scopes].sort().join(' ') === sorted);
    if (preset) return preset.name;
  }
  return `${scopes.length} scope${scopes.length === 1 ? '' : 's'}`;
}

export const expiryOptions = [
  { id: 'never', label: 'Never', days: 0 },
  { id: '7d', label: '7 days', days: 7 },
  { id: '30d', label: '30 days', days: 30 },
  { id: '90d', label: '90 days', days: 90 },
  { id: '1y', label: '1 year', days: 365 },
  { id: 'custom', label: 'Custom date', days: -1 },
] as const;

export type ExpiryId = (typeof expiryOptions)[number]['id'];

/** Turns the expiry choice into an RFC 3339 time, null for never; throws a message when invalid. */
export function expiryToISO(choice: ExpiryId, customDate: string, now: number = Date.now()): string | null {
  if (choice === 'never') return null;
  if (choice === 'custom') {
    if (!/^\d{4}-\d{2}-\d{2}$/.test(customDate)) throw new Error('Pick a date.');
    const [y, m, d] = customDate.split('-').map(Number) as [number, number, number];
    const end = new Date(y, m - 1, d, 23, 59, 59, 0);
    if (end.getTime() <= now) throw new Error('Pick a date in the future.');
    return end.toISOString();
  }
  const days = expiryOptions.find((o) => o.id === choice)?.days ?? 0;
  return new Date(now + days * 86_400_000).toISOString();
}

/** Splits a free-text list of origins (commas, spaces or new lines). */
export function parseOrigins(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((s) => s.trim().replace(/\/+$/, ''))
    .filter(Boolean);
}

/** How a key is shown once its secret is gone: display prefix, an ellipsis, last four. */
export function maskedKey(k: Pick<ApiKeyFieldsFragment, 'prefix' | 'lastFour'>): string {
  return `${k.prefix}…${k.lastFour}`;
}

/** Names can repeat, so a Revoke button also names its key by the masked value. */
export function revokeLabel(k: Pick<ApiKeyFieldsFragment, 'name' | 'prefix' | 'lastFour'>): string {
  return `Revoke key ${k.name} (${maskedKey(k)})`;
}

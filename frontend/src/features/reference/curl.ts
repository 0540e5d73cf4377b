import type { Operation } from './openapi';

export interface RequestValues {
  path: Record<string, string>;
  query: Record<string, string>;
  headers: Record<string, string>;
  body?: string;
}

/** Substitutes path parameters and appends the non-empty query parameters. */
export function buildURL(origin: string, op: Pick<Operation, 'path'>, values: Pick<RequestValues, 'path' | 'query'>): string {
  const path = op.path.replace(/\{([^}]+)\}/g, (whole, name: string) => {
    const v = values.path[name];
    return v ? encodeURIComponent(v) : whole;
  });
  const qs = new URLSearchParams();
  for (const [k, v] of Object.entries(values.query)) if (v !== '') qs.append(k, v);
  const q = qs.toString();
  return `${origin}${path}${q ? `?${q}` : ''}`;
}

function shellQuote(s: string): string {
  if (/^[A-Za-z0-9:/._~%-]+$/.test(s)) return s;
  return `'${s.replace(/'/g, `'\\''`)}'`;
}

/** A copy-pasteable cURL command for the operation. */
export function buildCurl(origin: string, op: Pick<Operation, 'method' | 'path' | 'requiresAuth'>, key: string, values: RequestValues): string {
  const lines = [`curl${op.method === 'get' ? '' : ` -X ${op.method.toUpperCase()}`} ${shellQuote(buildURL(origin, op, values))}`];
  // Double quotes so a placeholder such as $SWITCHBOARD_API_KEY expands in the shell.
  if (op.requiresAuth) lines.push(`-H "Authorization: Bearer ${key.replace(/["\\`]/g, '')}"`);
  for (const [k, v] of Object.entries(values.headers)) if (v !== '') lines.push(`-H ${shellQuote(`${k}: ${v}`)}`);
  if (values.body !== undefined && values.body.trim() !== '') {
    lines.push(`-H ${shellQuote('Content-Type: application/json')}`);
    lines.push(`-d ${shellQuote(values.body.trim())}`);
  }
  return lines.join(' \\\n  ');
}

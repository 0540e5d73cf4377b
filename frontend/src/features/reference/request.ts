import { buildURL, type RequestValues } from './curl';
import type { Operation } from './openapi';

export interface TryResult {
  status: number;
  statusText: string;
  headers: [string, string][];
  body: string;
  ms: number;
}

/** Sends the request from the browser with the pasted key; the key goes only to /api/v1. */
export async function sendRequest(
  origin: string,
  op: Pick<Operation, 'method' | 'path' | 'requiresAuth'>,
  key: string,
  values: RequestValues,
  fetchImpl: typeof fetch = fetch,
): Promise<TryResult> {
  const headers: Record<string, string> = { Accept: 'application/json' };
  if (op.requiresAuth && key) headers.Authorization = `Bearer ${key}`;
  for (const [k, v] of Object.entries(values.headers)) if (v) headers[k] = v;
  const hasBody = values.body !== undefined && values.body.trim() !== '' && op.method !== 'get' && op.method !== 'head';
  if (hasBody) headers['Content-Type'] = 'application/json';
  const started = performance.now();
  const res = await fetchImpl(buildURL(origin, op, values), {
    method: op.method.toUpperCase(),
    headers,
    body: hasBody ? values.body : undefined,
    credentials: 'omit',
    cache: 'no-store',
  });
  const text = await res.text();
  const ms = Math.round(performance.now() - started);
  let body = text;
  try {
    body = JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    // not JSON: show as is
  }
  const list: [string, string][] = [];
  res.headers.forEach((v, k) => list.push([k, v]));
  list.sort((a, b) => a[0].localeCompare(b[0]));
  return { status: res.status, statusText: res.statusText, headers: list, body, ms };
}

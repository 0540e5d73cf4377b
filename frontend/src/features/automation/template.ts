/**
 * The automation action templates, as the service renders them (backend/service/automation/
 * template.go), for the console's live preview. A template is text with holes:
 * "{{payload.a.b}}" (a field of the payload; list elements by index, "{{payload.items.0.sku}}"),
 * "{{endpoint.id}}" and "{{endpoint.name}}". Nothing else can be read and nothing runs. A hole
 * naming a field the payload lacks is an error, never an empty string.
 *
 * Values are written as the service writes them: strings as they are, anything else as JSON
 * (objects with their keys sorted, <, > and & escaped, as Go's encoding/json does). The one
 * difference: the service keeps a number's text as sent (7.0 stays 7.0), the browser's
 * JSON.parse has already made it 7.
 */

/** The longest template the service accepts, in bytes. */
export const maxTemplateBytes = 4096;

/** What templates read. */
export interface TemplateScope {
  payload: unknown;
  endpoint: { id: string; name: string };
}

export type Rendered = { ok: true; value: string } | { ok: false; error: string };

const readable = 'templates read payload.<field> or endpoint.id / endpoint.name';

/** A value as Go's json.Marshal writes it (sorted keys, HTML-safe). */
export function goJSON(v: unknown): string {
  const write = (x: unknown): string => {
    if (x === null || x === undefined) return 'null';
    if (Array.isArray(x)) return `[${x.map(write).join(',')}]`;
    if (typeof x === 'object') {
      const o = x as Record<string, unknown>;
      return `{${Object.keys(o)
        .sort()
        .map((k) => `${JSON.stringify(k)}:${write(o[k])}`)
        .join(',')}}`;
    }
    return JSON.stringify(x) ?? 'null';
  };
  return write(v)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** The value a hole names, or why there is none. */
function lookup(path: string, scope: TemplateScope): Rendered {
  if (path === 'endpoint.id') return { ok: true, value: scope.endpoint.id };
  if (path === 'endpoint.name') return { ok: true, value: scope.endpoint.name };
  const parts = path.split('.');
  if (parts[0] !== 'payload') return { ok: false, error: `{{${path}}}: ${readable}` };
  let cur: unknown = scope.payload;
  for (let i = 1; i < parts.length; i++) {
    const p = parts[i]!;
    const here = parts.slice(0, i + 1).join('.');
    if (Array.isArray(cur)) {
      const n = /^[+-]?\d+$/.test(p) ? Number(p) : NaN;
      if (!Number.isInteger(n) || n < 0 || n >= cur.length) return { ok: false, error: `{{${path}}}: the payload has no ${here}` };
      cur = cur[n];
    } else if (cur !== null && typeof cur === 'object') {
      if (!Object.prototype.hasOwnProperty.call(cur, p)) return { ok: false, error: `{{${path}}}: the payload has no ${here}` };
      cur = (cur as Record<string, unknown>)[p];
    } else {
      return { ok: false, error: `{{${path}}}: ${parts.slice(0, i).join('.')} is not an object or a list` };
    }
  }
  if (cur === null || cur === undefined) return { ok: false, error: `{{${path}}}: the payload's value is null` };
  if (typeof cur === 'string') return { ok: true, value: cur };
  return { ok: true, value: goJSON(cur) };
}

/** Fills a template's holes, or says why it cannot. */
export function renderTemplate(tpl: string, scope: TemplateScope): Rendered {
  let out = '';
  let rest = tpl;
  for (;;) {
    const i = rest.indexOf('{{');
    if (i < 0) return { ok: true, value: out + rest };
    out += rest.slice(0, i);
    const j = rest.indexOf('}}', i);
    if (j < 0) return { ok: false, error: `unclosed {{ in ${JSON.stringify(tpl)}` };
    const got = lookup(rest.slice(i + 2, j).trim(), scope);
    if (!got.ok) return got;
    out += got.value;
    rest = rest.slice(j + 2);
  }
}

/**
 * Why the service would refuse a template when the endpoint is saved (it could never
 * render), or null: too long, an unclosed hole, a hole naming something templates cannot read.
 */
export function checkTemplate(tpl: string): string | null {
  if (new TextEncoder().encode(tpl).length > maxTemplateBytes) return `A template is at most ${maxTemplateBytes} bytes.`;
  let rest = tpl;
  for (;;) {
    const i = rest.indexOf('{{');
    if (i < 0) return null;
    const j = rest.indexOf('}}', i);
    if (j < 0) return 'Close every {{ with }}.';
    const path = rest.slice(i + 2, j).trim();
    if (!(path === 'payload' || path.startsWith('payload.') || path === 'endpoint.id' || path === 'endpoint.name')) {
      return `{{${path}}} cannot be read: use {{payload.<field>}}, {{endpoint.id}} or {{endpoint.name}}.`;
    }
    rest = rest.slice(j + 2);
  }
}

/** Whether a text has holes at all (otherwise it is sent as it is). */
export function hasHoles(tpl: string): boolean {
  return tpl.includes('{{');
}

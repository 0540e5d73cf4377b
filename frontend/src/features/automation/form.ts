import type { CombinedError } from 'urql';
import type {
  AutomationActionInput,
  AutomationActionType,
  AutomationEndpointFieldsFragment,
  AutomationVerification,
  CreateAutomationEndpointInput,
  UpdateAutomationEndpointInput,
} from '../../graphql/generated';
import { errorMessage } from '../../lib/errors';
import { checkTemplate } from './template';

/** The endpoint form's values, as typed, for creating an endpoint or editing one. */
export interface EndpointFormValues {
  name: string;
  verification: AutomationVerification;
  enabled: boolean;
  /** A JSON Schema as text; empty for none. */
  schema: string;
  /** '' for no action. */
  actionType: AutomationActionType | '';
  instanceId: string;
  to: string;
  text: string;
  mediaUrl: string;
  url: string;
  slug: string;
  title: string;
  /** A JSON object of templates as text; empty for none. */
  metadata: string;
  targetUrl: string;
}

export type EndpointFormErrors = Partial<Record<keyof EndpointFormValues | 'form', string>>;

/** The action fields each type uses; the others are not sent. */
export const actionFields: Record<AutomationActionType, (keyof EndpointFormValues)[]> = {
  SEND_MESSAGE: ['instanceId', 'to', 'text', 'mediaUrl'],
  CREATE_LINK: ['url', 'slug', 'title', 'metadata'],
  FORWARD: ['targetUrl'],
};

/** The fields whose text is a template (rendered with each call's payload). */
export const templateFields: Record<AutomationActionType, ('to' | 'text' | 'mediaUrl' | 'url' | 'slug' | 'title')[]> = {
  SEND_MESSAGE: ['to', 'text', 'mediaUrl'],
  CREATE_LINK: ['url', 'slug', 'title'],
  FORWARD: [],
};

export const verificationOptions: { value: AutomationVerification; label: string; hint: string }[] = [
  { value: 'NONE', label: 'None: the URL is the secret', hint: 'Anyone who has the URL can publish. Fine for trying things out.' },
  {
    value: 'STANDARD_WEBHOOKS',
    label: 'Standard Webhooks signature',
    hint: 'Callers sign each call with the endpoint’s whsec_ secret (webhook-id, webhook-timestamp, webhook-signature headers).',
  },
  {
    value: 'HEADER_TOKEN',
    label: 'Header token',
    hint: 'Callers send the endpoint’s sbt_ secret in an X-Switchboard-Token header (what n8n, Zapier and Make can do with a header).',
  },
];

export const actionOptions: { value: AutomationActionType | ''; label: string }[] = [
  { value: '', label: 'None: store the call and publish the event' },
  { value: 'CREATE_LINK', label: 'Create a short link' },
  { value: 'SEND_MESSAGE', label: 'Send a message' },
  { value: 'FORWARD', label: 'Forward the payload to a URL' },
];

/** A sample payload to preview templates with, until the user writes their own. */
export const defaultSample = JSON.stringify(
  {
    order_id: 'A-1001',
    url: 'https://example.com/orders/A-1001',
    customer: { name: 'Ada', phone: '+15550100002' },
    items: [{ sku: 'SKU-1', qty: 2 }],
  },
  null,
  2,
);

const pretty = (v: unknown) => (v == null ? '' : JSON.stringify(v, null, 2));

export function valuesFrom(e?: AutomationEndpointFieldsFragment | null): EndpointFormValues {
  const a = e?.action;
  const meta = a?.metadata && typeof a.metadata === 'object' && Object.keys(a.metadata).length ? pretty(a.metadata) : '';
  return {
    name: e?.name ?? '',
    verification: e?.verification ?? 'NONE',
    enabled: e?.enabled ?? true,
    schema: pretty(e?.schema),
    actionType: a?.type ?? '',
    instanceId: a?.instanceId ?? '',
    to: a?.to ?? '',
    text: a?.text ?? '',
    mediaUrl: a?.mediaUrl ?? '',
    url: a?.url ?? '',
    slug: a?.slug ?? '',
    title: a?.title ?? '',
    metadata: meta,
    targetUrl: a?.targetUrl ?? '',
  };
}

/** Parses JSON text; the error says where it is wrong. */
export function parseJSON(text: string): { ok: true; value: unknown } | { ok: false; error: string } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch (e) {
    return { ok: false, error: e instanceof Error ? e.message : String(e) };
  }
}

/** The metadata field as an object of strings, or why it is not one. */
export function parseMetadata(text: string): { ok: true; value: Record<string, string> } | { ok: false; error: string } {
  if (!text.trim()) return { ok: true, value: {} };
  const p = parseJSON(text);
  if (!p.ok) return { ok: false, error: `This is not valid JSON: ${p.error}` };
  const v = p.value;
  if (!v || typeof v !== 'object' || Array.isArray(v) || !Object.values(v).every((x) => typeof x === 'string')) {
    return { ok: false, error: 'Enter a JSON object of text values, such as {"order": "{{payload.order_id}}"}.' };
  }
  return { ok: true, value: v as Record<string, string> };
}

function isWebURL(s: string): boolean {
  try {
    const u = new URL(s);
    return (u.protocol === 'http:' || u.protocol === 'https:') && !!u.hostname;
  } catch {
    return false;
  }
}

/** Checks what the browser can check; the server has the last word. */
export function validateEndpoint(v: EndpointFormValues): EndpointFormErrors {
  const errors: EndpointFormErrors = {};
  const name = v.name.trim();
  if (!name) errors.name = 'Enter a name, such as New orders.';
  else if ([...name].length > 200) errors.name = 'Use at most 200 characters.';

  if (v.schema.trim()) {
    const p = parseJSON(v.schema);
    if (!p.ok) errors.schema = `This is not valid JSON: ${p.error}`;
    else if (typeof p.value !== 'boolean' && (!p.value || typeof p.value !== 'object' || Array.isArray(p.value))) {
      errors.schema = 'A JSON Schema is an object, such as {"type": "object", "required": ["order_id"]}.';
    } else if (new TextEncoder().encode(v.schema.trim()).length > 64 * 1024) errors.schema = 'A schema is at most 64 KB.';
  }

  const type = v.actionType;
  if (!type) return errors;
  for (const f of templateFields[type]) {
    const problem = v[f] ? checkTemplate(v[f]) : null;
    if (problem) errors[f] = problem;
  }
  if (type === 'SEND_MESSAGE') {
    if (!v.instanceId) errors.instanceId = 'Choose the instance that sends the message.';
    if (!v.to.trim()) errors.to ??= 'Enter the recipient, such as {{payload.customer.phone}}.';
    if (!v.text.trim() && !v.mediaUrl.trim()) errors.text ??= 'Enter a text, an image URL, or both.';
  }
  if (type === 'CREATE_LINK') {
    if (!v.url.trim()) errors.url ??= 'Enter the link’s target, such as {{payload.url}}.';
    const meta = parseMetadata(v.metadata);
    if (!meta.ok) errors.metadata = meta.error;
    else if (Object.keys(meta.value).length > 20) errors.metadata = 'Use at most 20 metadata fields.';
    else {
      for (const [k, t] of Object.entries(meta.value)) {
        const problem = checkTemplate(t);
        if (problem) {
          errors.metadata = `${k}: ${problem}`;
          break;
        }
      }
    }
  }
  if (type === 'FORWARD') {
    const t = v.targetUrl.trim();
    if (!t) errors.targetUrl = 'Enter the URL to POST each payload to.';
    else if (!isWebURL(t)) errors.targetUrl = 'Enter a full http:// or https:// URL.';
  }
  return errors;
}

/** The action as the API takes it: the type's fields that are filled in, or null for none. */
export function actionOf(v: EndpointFormValues): AutomationActionInput | null {
  const type = v.actionType;
  if (!type) return null;
  const out: AutomationActionInput = { type };
  for (const f of actionFields[type]) {
    if (f === 'metadata') {
      const meta = parseMetadata(v.metadata);
      if (meta.ok && Object.keys(meta.value).length) out.metadata = meta.value;
      continue;
    }
    // A message's text is sent as typed (its spaces and line breaks may matter); the rest trimmed.
    const s = f === 'text' ? String(v[f]) : String(v[f]).trim();
    if (s.trim()) (out as unknown as Record<string, string>)[f] = s;
  }
  return out;
}

function schemaOf(v: EndpointFormValues): unknown {
  if (!v.schema.trim()) return null;
  const p = parseJSON(v.schema);
  return p.ok ? p.value : null;
}

/** The createAutomationEndpoint input: only what was set (the server's defaults for the rest). */
export function toCreateInput(v: EndpointFormValues): CreateAutomationEndpointInput {
  const input: CreateAutomationEndpointInput = { name: v.name.trim() };
  if (v.verification !== 'NONE') input.verification = v.verification;
  const schema = schemaOf(v);
  if (schema !== null) input.schema = schema;
  const action = actionOf(v);
  if (action) input.action = action;
  if (!v.enabled) input.enabled = false;
  return input;
}

/**
 * The updateAutomationEndpoint input: only what changed. A schema or action that was
 * removed is sent as null, which removes it.
 */
export function toUpdateInput(v: EndpointFormValues, e: AutomationEndpointFieldsFragment): UpdateAutomationEndpointInput {
  const was = valuesFrom(e);
  const input: UpdateAutomationEndpointInput = {};
  if (v.name.trim() !== was.name) input.name = v.name.trim();
  if (v.verification !== was.verification) input.verification = v.verification;
  if (v.enabled !== was.enabled) input.enabled = v.enabled;
  const schema = schemaOf(v);
  if (JSON.stringify(schema) !== JSON.stringify(e.schema ?? null)) input.schema = schema;
  const action = actionOf(v);
  if (JSON.stringify(action) !== JSON.stringify(actionOf(was))) input.action = action;
  return input;
}

/** The form field a server error names (extensions.field, such as action.url). */
function fieldOf(field: string): keyof EndpointFormValues | undefined {
  if (field === 'name' || field === 'verification' || field === 'schema' || field === 'enabled') return field;
  if (field === 'action.type') return 'actionType';
  if (field.startsWith('action.metadata')) return 'metadata';
  const f = field.replace(/^action\./, '');
  const known: (keyof EndpointFormValues)[] = ['instanceId', 'to', 'text', 'mediaUrl', 'url', 'slug', 'title', 'targetUrl'];
  return known.find((k) => k === f);
}

/** Puts the server's errors under the fields they name (INVALID, CONFLICT or any other code); the rest above the form. */
export function toFormErrors(error: CombinedError | undefined): EndpointFormErrors {
  const out: EndpointFormErrors = {};
  for (const e of error?.graphQLErrors ?? []) {
    const field = typeof e.extensions?.field === 'string' ? fieldOf(e.extensions.field) : undefined;
    if (field) out[field] = e.message;
  }
  if (!Object.keys(out).length) out.form = errorMessage(error) || 'Something went wrong. Try again.';
  return out;
}

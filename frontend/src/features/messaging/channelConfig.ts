import type { ChannelsQuery } from '../../graphql/generated';

/** A channel instances can be created with, as the channels query describes it. */
export type ChannelInfo = ChannelsQuery['channels'][number];
export type ConfigFieldInfo = ChannelInfo['configFields'][number];

/** A config form's values by field name: checkboxes hold booleans, other inputs their text. */
export type ConfigValues = Record<string, string | boolean>;

/** What the API shows in place of a write-only value that is set. */
export const REDACTED = '********';

const channelNames: Record<string, string> = {
  sandbox: 'Sandbox',
  telegram: 'Telegram',
  whatsapp_cloud: 'WhatsApp Cloud',
};

const channelSummaries: Record<string, string> = {
  sandbox: 'Simulates a phone network: no outside account needed.',
  telegram: 'A Telegram bot, connected with the token @BotFather gives you.',
  whatsapp_cloud: "A WhatsApp Business number on Meta's Cloud API.",
};

/** Guidance shown next to an instance's callback URL: what to do with it. */
const callbackGuidance: Record<string, string> = {
  telegram: 'Nothing to paste: Switchboard registers this URL with Telegram automatically when you connect.',
  whatsapp_cloud:
    'Paste it with your verify token in Meta App Dashboard → WhatsApp → Configuration → Webhook, and subscribe to the messages field.',
};

/** words_like_this → "Words like this", with ID, URL and (ms) spelled as people write them. */
function humanize(name: string): string {
  const words = name.split('_').map((w) => (w === 'id' ? 'ID' : w === 'url' ? 'URL' : w === 'ms' ? '(ms)' : w));
  const text = words.join(' ');
  return text.charAt(0).toUpperCase() + text.slice(1);
}

const fieldLabels: Record<string, string> = {
  auto_pair: 'Pair automatically on connect',
};

export function channelLabel(name: string): string {
  return channelNames[name] ?? humanize(name);
}

/** One line on what a channel is; for channels this console does not know, what it can send. */
export function channelSummary(c: ChannelInfo): string {
  return (
    channelSummaries[c.name] ??
    `Sends ${c.capabilities.messageTypes.join(', ')}${c.callsBack ? '; its provider calls back at a URL you paste' : ''}.`
  );
}

export function callbackHint(channel: string): string {
  return callbackGuidance[channel] ?? 'Paste it where the provider asks for a webhook or callback URL.';
}

export function fieldLabel(name: string): string {
  return fieldLabels[name] ?? humanize(name);
}

/** A field's value for the form: the current config's when given, else the field's default. */
function formValue(f: ConfigFieldInfo, v: unknown): string | boolean {
  if (f.type === 'bool') return v === true;
  if (v === null || v === undefined) return '';
  return typeof v === 'string' ? v : String(v);
}

/**
 * The form values for a channel's fields: from an instance's config (secrets arrive as
 * ********), or the defaults for a new instance.
 */
export function initialValues(fields: readonly ConfigFieldInfo[], config?: unknown): ConfigValues {
  const current = config && typeof config === 'object' ? (config as Record<string, unknown>) : null;
  const out: ConfigValues = {};
  for (const f of fields) out[f.name] = formValue(f, current ? current[f.name] : f.default);
  return out;
}

/** Errors by field name: required fields left empty, numbers that are not whole. */
export function validateConfig(fields: readonly ConfigFieldInfo[], values: ConfigValues): Record<string, string> {
  const errors: Record<string, string> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (f.type === 'bool' || typeof v !== 'string') continue;
    const label = fieldLabel(f.name);
    if (!v.trim()) {
      if (f.required) errors[f.name] = `Enter the ${label.charAt(0).toLowerCase()}${label.slice(1)}.`;
    } else if (f.type === 'int' && !/^-?\d+$/.test(v.trim())) {
      errors[f.name] = 'Enter a whole number.';
    }
  }
  return errors;
}

/**
 * The config to send: only this channel's fields, and of those only the ones that differ from
 * baseline (the defaults for a new instance, the current config for an edit). A secret left
 * as ******** is therefore not sent and the API keeps it; a field emptied is sent as null,
 * which resets it to its default (or, for a secret, removes it).
 */
export function configChanges(fields: readonly ConfigFieldInfo[], values: ConfigValues, baseline: ConfigValues): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const f of fields) {
    const v = values[f.name];
    if (v === undefined || v === baseline[f.name]) continue;
    if (typeof v === 'boolean') out[f.name] = v;
    else if (!v.trim()) out[f.name] = null;
    else out[f.name] = f.type === 'int' ? Number(v.trim()) : f.secret ? v : v.trim();
  }
  return out;
}

/** A config value as the instance card shows it. */
export function displayValue(f: ConfigFieldInfo | undefined, v: unknown): string {
  if (v === undefined || v === null || v === '') return f?.secret ? 'not set' : '—';
  if (typeof v === 'boolean') return v ? 'On' : 'Off';
  return typeof v === 'string' ? v : JSON.stringify(v);
}

/**
 * The API's field errors (from fieldErrors, keyed by the camel-cased last part of the path:
 * config.bot_token → botToken) by form field: name and the config fields.
 */
export function formErrors(fields: readonly ConfigFieldInfo[], api: Record<string, string>): Record<string, string> {
  const out: Record<string, string> = {};
  if (api.name) out.name = api.name;
  for (const f of fields) {
    const message = api[f.name.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())];
    if (message) out[f.name] = message;
  }
  return out;
}

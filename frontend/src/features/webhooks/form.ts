import type { CombinedError } from 'urql';
import type { WebhookFieldsFragment } from '../../graphql/generated';
import { errorMessage, fieldErrors } from '../../lib/errors';

export interface WebhookFormValues {
  url: string;
  description: string;
  eventTypes: string[];
  instanceId: string;
  enabled: boolean;
}

export type WebhookFormErrors = Partial<Record<keyof WebhookFormValues | 'form', string>>;

export function valuesFrom(w?: WebhookFieldsFragment | null): WebhookFormValues {
  return {
    url: w?.url ?? '',
    description: w?.description ?? '',
    eventTypes: w?.eventTypes ?? ['*'],
    instanceId: w?.instanceId ?? '',
    enabled: w?.enabled ?? true,
  };
}

export function validateWebhook(v: WebhookFormValues): WebhookFormErrors {
  const errors: WebhookFormErrors = {};
  try {
    const u = new URL(v.url.trim());
    if (u.protocol !== 'https:' && u.protocol !== 'http:') errors.url = 'Use an http:// or https:// URL.';
  } catch {
    errors.url = 'Enter the full URL of your endpoint, e.g. https://example.com/webhooks/switchboard.';
  }
  if (v.eventTypes.length === 0) errors.eventTypes = 'Choose at least one event type, or all events.';
  return errors;
}

export function toFormErrors(error: CombinedError | undefined): WebhookFormErrors {
  const f = fieldErrors(error);
  const out: WebhookFormErrors = { url: f.url, description: f.description, eventTypes: f.eventTypes, instanceId: f.instanceId };
  if (!Object.values(out).some(Boolean)) out.form = errorMessage(error) || 'Something went wrong.';
  return out;
}

import type { CombinedError } from 'urql';
import type { CreateAutomationSubscriptionInput } from '../../graphql/generated';
import { errorMessage, fieldErrors } from '../../lib/errors';

export interface SubscribeValues {
  targetUrl: string;
  /** ['*'] for every type, including types added later. */
  eventTypes: string[];
  description: string;
}

export type SubscribeErrors = Partial<Record<keyof SubscribeValues | 'form', string>>;

export const emptySubscription: SubscribeValues = { targetUrl: '', eventTypes: ['*'], description: '' };

/** Only sent when a webhook endpoint is tested: the server refuses a subscription to it. */
export const unsubscribable = new Set(['webhook.test']);

/** Checks what the browser can check; the server has the last word (its public-address rule, say). */
export function validateSubscription(v: SubscribeValues): SubscribeErrors {
  const errors: SubscribeErrors = {};
  const t = v.targetUrl.trim();
  if (!t) errors.targetUrl = 'Enter the URL your workflow tool gave you, such as https://hooks.zapier.com/hooks/catch/….';
  else {
    try {
      const u = new URL(t);
      if (u.protocol !== 'http:' && u.protocol !== 'https:') errors.targetUrl = 'Use an http:// or https:// URL.';
    } catch {
      errors.targetUrl = 'Enter a full http:// or https:// URL.';
    }
  }
  if (v.eventTypes.length === 0) errors.eventTypes = 'Choose at least one event type, or all events.';
  if ([...v.description.trim()].length > 200) errors.description = 'Use at most 200 characters.';
  return errors;
}

export function toSubscribeInput(v: SubscribeValues): CreateAutomationSubscriptionInput {
  const input: CreateAutomationSubscriptionInput = { targetUrl: v.targetUrl.trim(), eventTypes: v.eventTypes };
  if (v.description.trim()) input.description = v.description.trim();
  return input;
}

/** Puts the server's errors under the fields they name (extensions.field); the rest above the form. */
export function toSubscribeErrors(error: CombinedError | undefined): SubscribeErrors {
  const f = fieldErrors(error);
  const out: SubscribeErrors = {};
  if (f.targetUrl) out.targetUrl = f.targetUrl;
  if (f.eventTypes) out.eventTypes = f.eventTypes;
  if (f.description) out.description = f.description;
  if (!Object.keys(out).length) out.form = errorMessage(error) || 'Something went wrong. Try again.';
  return out;
}

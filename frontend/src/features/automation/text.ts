import type { BadgeTone } from '../../components/Badge';
import type { AutomationActionType, AutomationVerification } from '../../graphql/generated';

export const verificationLabels: Record<AutomationVerification, string> = {
  NONE: 'None',
  STANDARD_WEBHOOKS: 'Standard Webhooks',
  HEADER_TOKEN: 'Header token',
};

export const actionLabels: Record<AutomationActionType, string> = {
  CREATE_LINK: 'Create a short link',
  SEND_MESSAGE: 'Send a message',
  FORWARD: 'Forward',
};

export const runTones: Record<string, BadgeTone> = { succeeded: 'green', failed: 'red', queued: 'amber' };

/** A JSON value on one line, cut to max characters. */
export function oneLine(v: unknown, max = 80): string {
  const s = JSON.stringify(v) ?? 'null';
  return s.length > max ? `${s.slice(0, max - 1)}…` : s;
}

/** "12 ms", "1.4 s". */
export function duration(ms: number): string {
  return ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`;
}

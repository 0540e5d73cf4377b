import type { CombinedError } from 'urql';

/** The codes the API puts in a GraphQL error's extensions.code. */
export type ErrorCode =
  | 'UNAUTHENTICATED'
  | 'FORBIDDEN'
  | 'NOT_FOUND'
  | 'INVALID'
  | 'CONFLICT'
  | 'RATE_LIMITED'
  | 'INTERNAL'
  | 'NETWORK';

export function errorCode(error: CombinedError | undefined | null): ErrorCode | undefined {
  if (!error) return undefined;
  if (error.networkError) return 'NETWORK';
  for (const e of error.graphQLErrors) {
    const code = e.extensions?.code;
    if (typeof code === 'string') return code as ErrorCode;
  }
  return undefined;
}

type GraphQLErrorLike = CombinedError['graphQLErrors'][number];

/** One GraphQL error's message as a person should read it. */
function graphQLErrorMessage(e: GraphQLErrorLike): string {
  const code = e.extensions?.code;
  if (code === 'RATE_LIMITED') return 'Too many attempts. Wait a moment and try again.';
  if (code === 'INTERNAL') return 'Something went wrong on our side. Try again in a moment.';
  return e.message.replace(/^\[GraphQL\]\s*/, '');
}

/** A message that is safe and useful to show a person. */
export function errorMessage(error: CombinedError | Error | undefined | null): string {
  if (!error) return '';
  if ('graphQLErrors' in error) {
    if (error.networkError) return 'Could not reach Switchboard. Check your connection and try again.';
    const first = error.graphQLErrors[0];
    if (first) return graphQLErrorMessage(first);
  }
  return error.message.replace(/^\[(GraphQL|Network)\]\s*/, '');
}

/** extensions.field as a form's key: camelCase, the last part of a path (input.bot_token → botToken). */
function fieldKey(field: unknown): string | undefined {
  if (typeof field !== 'string' || !field) return undefined;
  const key = field.split('.').pop() ?? field;
  return key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase());
}

/**
 * Maps errors that name a field (extensions.field) to that field's message, whatever their
 * code: an INVALID value, but also a CONFLICT such as an address the instance already has.
 */
export function fieldErrors(error: CombinedError | undefined | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!error) return out;
  for (const e of error.graphQLErrors) {
    const key = fieldKey(e.extensions?.field);
    if (key && !(key in out)) out[key] = e.message;
  }
  return out;
}

/**
 * A failed submit's errors for a form that shows the given fields: each error under the field
 * it names, and the rest (an error naming no field, or a field the form does not show) above
 * the form as `form`, so that none is lost.
 */
export function errorsByField<K extends string>(error: CombinedError | undefined | null, shown: readonly K[]): Partial<Record<K | 'form', string>> {
  const out: Partial<Record<K | 'form', string>> = {};
  const rest: string[] = [];
  for (const e of error?.graphQLErrors ?? []) {
    const key = fieldKey(e.extensions?.field);
    if (key && (shown as readonly string[]).includes(key)) out[key as K] ??= e.message;
    else rest.push(graphQLErrorMessage(e));
  }
  if (rest.length) out.form = rest.join(' ');
  else if (!Object.keys(out).length) out.form = errorMessage(error) || 'Something went wrong. Try again.';
  return out;
}

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

/** A message that is safe and useful to show a person. */
export function errorMessage(error: CombinedError | Error | undefined | null): string {
  if (!error) return '';
  if ('graphQLErrors' in error) {
    if (error.networkError) return 'Could not reach Switchboard. Check your connection and try again.';
    const first = error.graphQLErrors[0];
    if (first) {
      const code = first.extensions?.code;
      if (code === 'RATE_LIMITED') return 'Too many attempts. Wait a moment and try again.';
      if (code === 'INTERNAL') return 'Something went wrong on our side. Try again in a moment.';
      return first.message.replace(/^\[GraphQL\]\s*/, '');
    }
  }
  return error.message.replace(/^\[(GraphQL|Network)\]\s*/, '');
}

/** Maps INVALID errors that name a field (extensions.field) to that field's message. */
export function fieldErrors(error: CombinedError | undefined | null): Record<string, string> {
  const out: Record<string, string> = {};
  if (!error) return out;
  for (const e of error.graphQLErrors) {
    const field = e.extensions?.field;
    if (e.extensions?.code === 'INVALID' && typeof field === 'string' && field) {
      // Accept both camelCase and snake_case, and paths like input.name.
      const key = field.split('.').pop() ?? field;
      out[key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = e.message;
    }
  }
  return out;
}

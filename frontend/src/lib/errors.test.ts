import { CombinedError } from 'urql';
import { describe, expect, it } from 'vitest';
import { errorsByField, fieldErrors } from './errors';

const err = (...errors: { message: string; extensions?: Record<string, unknown> }[]) => new CombinedError({ graphQLErrors: errors });

describe('fieldErrors', () => {
  it('maps every error that names a field, whatever its code', () => {
    const error = err(
      { message: 'this instance already has a contact with that address', extensions: { code: 'CONFLICT', reason: 'contact_exists', field: 'address' } },
      { message: 'bot_token is required', extensions: { code: 'INVALID', field: 'config.bot_token' } },
      { message: 'not allowed', extensions: { code: 'FORBIDDEN' } },
    );
    expect(fieldErrors(error)).toEqual({ address: 'this instance already has a contact with that address', botToken: 'bot_token is required' });
    expect(fieldErrors(undefined)).toEqual({});
  });
});

describe('errorsByField', () => {
  it('puts an error under the field it names when the form shows it, else above the form', () => {
    const conflict = err({ message: 'this instance already has a contact with that address', extensions: { code: 'CONFLICT', field: 'address' } });
    expect(errorsByField(conflict, ['address', 'name'])).toEqual({ address: 'this instance already has a contact with that address' });
    // A form without the address field (editing a contact) still shows the message.
    expect(errorsByField(conflict, ['name', 'labels'])).toEqual({ form: 'this instance already has a contact with that address' });
    expect(errorsByField(err({ message: 'slow down', extensions: { code: 'RATE_LIMITED' } }), ['name'])).toEqual({
      form: 'Too many attempts. Wait a moment and try again.',
    });
    expect(errorsByField(new CombinedError({ networkError: new TypeError('Failed to fetch') }), ['name'])).toEqual({
      form: 'Could not reach Switchboard. Check your connection and try again.',
    });
  });
});

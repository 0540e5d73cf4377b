import { afterEach, describe, expect, it, vi } from 'vitest';
import { ApiKeysDocument, SignInDocument } from '../graphql/generated';
import { createConsoleClient, setUnauthenticatedHandler, redirectToSignIn } from './client';
import { safeNext } from './session';

function graphqlError(code: string) {
  return new Response(JSON.stringify({ data: null, errors: [{ message: 'not signed in', extensions: { code } }] }), {
    status: 200,
    headers: { 'content-type': 'application/json' },
  });
}

afterEach(() => {
  vi.unstubAllGlobals();
  setUnauthenticatedHandler(redirectToSignIn);
});

describe('console client', () => {
  it('handles an expired session in one place', async () => {
    const fetchMock = vi.fn().mockImplementation(() => Promise.resolve(graphqlError('UNAUTHENTICATED')));
    vi.stubGlobal('fetch', fetchMock);
    const onExpired = vi.fn();
    setUnauthenticatedHandler(onExpired);
    const { client, dispose } = createConsoleClient();
    const result = await client.query(ApiKeysDocument, {}).toPromise();
    expect(result.error?.graphQLErrors[0]?.extensions?.code).toBe('UNAUTHENTICATED');
    expect(onExpired).toHaveBeenCalledTimes(1);
    const [url, init] = fetchMock.mock.calls[0] as [string, RequestInit];
    expect(url).toBe('/graphql');
    expect(init.method).toBe('POST');
    expect(init.credentials).toBe('same-origin');
    expect(new Headers(init.headers).get('content-type')).toBe('application/json');

    // signIn failing with UNAUTHENTICATED is a wrong password, not an expired session.
    await client.mutation(SignInDocument, { input: { email: 'a@b.c', password: 'x' } }, { authRedirect: false }).toPromise();
    expect(onExpired).toHaveBeenCalledTimes(1);

    fetchMock.mockImplementation(() => Promise.resolve(graphqlError('FORBIDDEN')));
    await client.query(ApiKeysDocument, {}, { requestPolicy: 'network-only' }).toPromise();
    expect(onExpired).toHaveBeenCalledTimes(1);
    dispose();
  });
});

describe('safeNext', () => {
  it('only returns to console paths', () => {
    expect(safeNext('/user/api/keys?x=1')).toBe('/api/keys?x=1');
    expect(safeNext('https://evil.example/user/api')).toBe('/api');
    expect(safeNext('//evil.example/user/')).toBe('/api');
    expect(safeNext('/user/sign-in')).toBe('/api');
    expect(safeNext(null)).toBe('/api');
  });
});

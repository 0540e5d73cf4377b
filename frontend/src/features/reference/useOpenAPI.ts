import { useCallback, useEffect, useState } from 'react';
import type { OpenAPIDocument } from './openapi';

export const OPENAPI_URL = '/api/v1/openapi.json';

type State = { status: 'loading' } | { status: 'error'; message: string } | { status: 'ready'; doc: OpenAPIDocument };

/** Loads the OpenAPI document at run time, so the reference is never out of date. */
export function useOpenAPI(url: string = OPENAPI_URL): State & { reload: () => void } {
  const [state, setState] = useState<State>({ status: 'loading' });
  const [attempt, setAttempt] = useState(0);
  useEffect(() => {
    const ctrl = new AbortController();
    fetch(url, { signal: ctrl.signal, headers: { Accept: 'application/json' }, credentials: 'omit' })
      .then(async (res) => {
        if (!res.ok) throw new Error(`The API description returned HTTP ${res.status}.`);
        const doc = (await res.json()) as OpenAPIDocument;
        if (!doc || typeof doc !== 'object' || !doc.paths) throw new Error('The API description is not a valid OpenAPI document.');
        setState({ status: 'ready', doc });
      })
      .catch((e: unknown) => {
        if (ctrl.signal.aborted) return;
        setState({ status: 'error', message: e instanceof Error ? e.message : String(e) });
      });
    return () => ctrl.abort();
  }, [url, attempt]);
  const reload = useCallback(() => {
    setState({ status: 'loading' });
    setAttempt((a) => a + 1);
  }, []);
  return { ...state, reload };
}

const KEY_STORAGE = 'switchboard.reference.apiKey';

/** The key pasted for Try it: kept in this tab's sessionStorage only, never sent to GraphQL. */
export function useTryItKey(): [string, (key: string) => void] {
  const [key, setKey] = useState(() => {
    try {
      return sessionStorage.getItem(KEY_STORAGE) ?? '';
    } catch {
      return '';
    }
  });
  const update = useCallback((next: string) => {
    setKey(next);
    try {
      if (next) sessionStorage.setItem(KEY_STORAGE, next);
      else sessionStorage.removeItem(KEY_STORAGE);
    } catch {
      // storage disabled: keep it in memory only
    }
  }, []);
  return [key, update];
}

import { createContext, useContext } from 'react';

export interface Session {
  user: { id: string; email: string; name: string };
  workspace: { id: string; name: string; createdAt: string };
}

/** Router state the sign-in page reads: `signedOut` after the user signed out themselves. */
export interface SignInState {
  signedOut?: boolean;
}

export const SessionContext = createContext<Session | null>(null);

export function useSession(): Session {
  const s = useContext(SessionContext);
  if (!s) throw new Error('useSession outside the console');
  return s;
}

/** Where to go after sign-in: only paths inside the console, never another origin. */
export function safeNext(next: string | null | undefined): string {
  if (!next || !next.startsWith('/user/') || next.startsWith('//') || next.includes('\\')) return '/api';
  const path = next.slice('/user'.length);
  if (path.startsWith('/sign-')) return '/api';
  return path;
}

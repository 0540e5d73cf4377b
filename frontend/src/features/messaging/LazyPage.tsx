import { Suspense, type ReactNode } from 'react';
import { Loading } from '../../components/States';

/** A page loaded on demand, with a loading state meanwhile. */
export function LazyPage({ children }: { children: ReactNode }) {
  return <Suspense fallback={<Loading label="Loading page…" />}>{children}</Suspense>;
}

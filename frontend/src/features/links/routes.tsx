import { lazy, Suspense } from 'react';
import { Route } from 'react-router';
import { Loading } from '../../components/States';

// The short-link pages, loaded on demand.
const LinksPage = lazy(() => import('./LinksPage'));
const LinkDetailPage = lazy(() => import('./LinkDetailPage'));

const loading = <Loading label="Loading page…" />;

/** The short-link surface's routes below /api (App.tsx renders them with one line). */
export const linksRoutes = (
  <>
    <Route path="links" element={<Suspense fallback={loading}><LinksPage /></Suspense>} />
    <Route path="links/:id" element={<Suspense fallback={loading}><LinkDetailPage /></Suspense>} />
  </>
);

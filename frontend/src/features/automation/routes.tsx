import { lazy, Suspense } from 'react';
import { Route } from 'react-router';
import { Loading } from '../../components/States';

// The automation pages, loaded on demand.
const EndpointsPage = lazy(() => import('./EndpointsPage'));
const EndpointDetailPage = lazy(() => import('./EndpointDetailPage'));

const loading = <Loading label="Loading page…" />;

/** The automation surface's routes below /api (App.tsx renders them with one line). */
export const automationRoutes = (
  <>
    <Route path="automation" element={<Suspense fallback={loading}><EndpointsPage /></Suspense>} />
    <Route path="automation/:id" element={<Suspense fallback={loading}><EndpointDetailPage /></Suspense>} />
  </>
);

import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { Loading } from './components/States';
import { SignInPage } from './features/auth/SignInPage';
import { SignUpPage } from './features/auth/SignUpPage';
import { automationRoutes } from './features/automation/routes';
import { linksRoutes } from './features/links/routes';
import { messagingRoutes } from './features/messaging/routes';
import { NotBuiltPage, NotFoundPage } from './features/placeholder/Placeholders';
import { ConsoleGate } from './layout/ConsoleGate';

// Every console page is loaded on demand (a failed download shows ConsoleGate's
// PageErrorBoundary); only sign-in and sign-up, the pages a signed-out visitor needs at once,
// are in the entry chunk.
const OverviewPage = lazy(() => import('./features/overview/OverviewPage').then((m) => ({ default: m.OverviewPage })));
const KeysPage = lazy(() => import('./features/keys/KeysPage').then((m) => ({ default: m.KeysPage })));
const ModelsPage = lazy(() => import('./features/models/ModelsPage').then((m) => ({ default: m.ModelsPage })));
const EventsPage = lazy(() => import('./features/events/EventsPage').then((m) => ({ default: m.EventsPage })));
const ReferencePage = lazy(() => import('./features/reference/ReferencePage'));
const WebhooksPage = lazy(() => import('./features/webhooks/WebhooksPage'));
const WebhookDetailPage = lazy(() => import('./features/webhooks/WebhookDetailPage'));

function Lazy({ children }: { children: React.ReactNode }) {
  return <Suspense fallback={<Loading label="Loading page…" />}>{children}</Suspense>;
}

/** Routes below the /user basename. */
export function AppRoutes() {
  return (
    <Routes>
      <Route path="/" element={<Navigate to="/api" replace />} />
      <Route path="/sign-in" element={<SignInPage />} />
      <Route path="/sign-up" element={<SignUpPage />} />
      <Route path="/api" element={<ConsoleGate />}>
        <Route
          index
          element={
            <Lazy>
              <OverviewPage />
            </Lazy>
          }
        />
        <Route
          path="keys"
          element={
            <Lazy>
              <KeysPage />
            </Lazy>
          }
        />
        <Route
          path="models"
          element={
            <Lazy>
              <ModelsPage />
            </Lazy>
          }
        />
        <Route
          path="reference"
          element={
            <Lazy>
              <ReferencePage />
            </Lazy>
          }
        />
        <Route
          path="events"
          element={
            <Lazy>
              <EventsPage />
            </Lazy>
          }
        />
        <Route
          path="webhooks"
          element={
            <Lazy>
              <WebhooksPage />
            </Lazy>
          }
        />
        <Route
          path="webhooks/:id"
          element={
            <Lazy>
              <WebhookDetailPage />
            </Lazy>
          }
        />
        {messagingRoutes}
        {linksRoutes}
        {automationRoutes}
        <Route path=":surface" element={<NotBuiltPage />} />
        <Route path="*" element={<NotFoundPage />} />
      </Route>
      <Route path="*" element={<NotFoundPage standalone />} />
    </Routes>
  );
}

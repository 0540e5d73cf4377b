import { lazy, Suspense } from 'react';
import { Navigate, Route, Routes } from 'react-router';
import { Loading } from './components/States';
import { SignInPage } from './features/auth/SignInPage';
import { SignUpPage } from './features/auth/SignUpPage';
import { EventsPage } from './features/events/EventsPage';
import { KeysPage } from './features/keys/KeysPage';
import { ModelsPage } from './features/models/ModelsPage';
import { automationRoutes } from './features/automation/routes';
import { linksRoutes } from './features/links/routes';
import { messagingRoutes } from './features/messaging/routes';
import { OverviewPage } from './features/overview/OverviewPage';
import { NotBuiltPage, NotFoundPage } from './features/placeholder/Placeholders';
import { ConsoleGate } from './layout/ConsoleGate';

// The API reference (OpenAPI renderer, Try it) and the webhooks pages are loaded on demand.
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
        <Route index element={<OverviewPage />} />
        <Route path="keys" element={<KeysPage />} />
        <Route path="models" element={<ModelsPage />} />
        <Route
          path="reference"
          element={
            <Lazy>
              <ReferencePage />
            </Lazy>
          }
        />
        <Route path="events" element={<EventsPage />} />
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

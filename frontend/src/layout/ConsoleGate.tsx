import { useEffect, useState } from 'react';
import { Navigate, Outlet, useLocation } from 'react-router';
import { useClient, useQuery } from 'urql';
import { PageErrorBoundary } from '../components/PageErrorBoundary';
import { ErrorState, Loading } from '../components/States';
import { EnsureWorkspaceDocument, ViewerDocument, type EnsureWorkspaceMutation } from '../graphql/generated';
import { errorMessage } from '../lib/errors';
import { SessionContext } from '../lib/session';
import { AppShell } from './AppShell';
import styles from './AppShell.module.css';

type WorkspaceState =
  | { status: 'pending' }
  | { status: 'ready'; workspace: EnsureWorkspaceMutation['ensureWorkspace'] }
  | { status: 'error'; message: string };

/**
 * Everything under /user/api: sends signed-out visitors to sign in (and back afterwards), and
 * makes sure the workspace exists (ensureWorkspace) before any page asks for workspace data.
 */
export function ConsoleGate() {
  const location = useLocation();
  const client = useClient();
  const [viewer, refetchViewer] = useQuery({ query: ViewerDocument, requestPolicy: 'network-only' });
  const user = viewer.data?.viewer.user ?? null;
  const userId = user?.id;
  const [ws, setWs] = useState<WorkspaceState>({ status: 'pending' });
  const [attempt, setAttempt] = useState(0);

  useEffect(() => {
    if (!userId) return;
    let cancelled = false;
    client
      .mutation(EnsureWorkspaceDocument, {})
      .toPromise()
      .then((result) => {
        if (cancelled) return;
        if (result.data) setWs({ status: 'ready', workspace: result.data.ensureWorkspace });
        else setWs({ status: 'error', message: errorMessage(result.error) || 'Could not open your workspace.' });
      });
    return () => {
      cancelled = true;
    };
  }, [client, userId, attempt]);

  if (viewer.error && !viewer.data) {
    return (
      <div className={styles.center}>
        <ErrorState error={viewer.error} title="Could not reach Switchboard" onRetry={() => refetchViewer({ requestPolicy: 'network-only' })} />
      </div>
    );
  }
  if (viewer.fetching || !viewer.data) {
    return (
      <div className={styles.center}>
        <Loading label="Loading your console…" />
      </div>
    );
  }
  if (!user) {
    const here = `/user${location.pathname}${location.search}${location.hash}`;
    return <Navigate to={`/sign-in?next=${encodeURIComponent(here)}`} replace />;
  }
  if (ws.status === 'error') {
    return (
      <div className={styles.center}>
        <ErrorState
          error={ws.message}
          title="Could not open your workspace"
          onRetry={() => {
            setWs({ status: 'pending' });
            setAttempt((a) => a + 1);
          }}
        />
      </div>
    );
  }
  if (ws.status === 'pending') {
    return (
      <div className={styles.center}>
        <Loading label="Opening your workspace…" />
      </div>
    );
  }
  return (
    <SessionContext.Provider value={{ user, workspace: ws.workspace }}>
      <AppShell>
        {/* Keyed by path: going to another page leaves a page's error behind. */}
        <PageErrorBoundary key={location.pathname}>
          <Outlet />
        </PageErrorBoundary>
      </AppShell>
    </SessionContext.Provider>
  );
}

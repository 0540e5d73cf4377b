import { Component, type ReactNode } from 'react';
import { ErrorState } from './States';

/** A page's code that could not be downloaded: offline, or replaced by a new release. */
const chunkFailure = /dynamically imported module|importing a module script failed|unable to preload/i;

function pageErrorMessage(error: Error): string {
  return chunkFailure.test(error.message)
    ? 'This page could not be downloaded from Switchboard. Check your connection and try again.'
    : 'Something went wrong while showing this page. Try again, or go to another page.';
}

/**
 * Shows an error in place of a page that failed to render, or whose code (loaded on demand)
 * could not be downloaded, instead of blanking the whole console. Trying again reloads the
 * page: a failed import is not retried by React.
 */
export class PageErrorBoundary extends Component<{ children: ReactNode }, { error: Error | null }> {
  state: { error: Error | null } = { error: null };

  static getDerivedStateFromError(error: unknown) {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return <ErrorState title="Could not load this page" error={pageErrorMessage(error)} onRetry={() => window.location.reload()} />;
  }
}

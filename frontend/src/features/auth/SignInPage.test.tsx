import { screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Route, Routes } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { AppShell } from '../../layout/AppShell';
import { mockClient } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { SignInPage } from './SignInPage';
import { SignUpPage } from './SignUpPage';

const signedOut = () => ({ data: { viewer: { __typename: 'Viewer', user: null, workspace: null } } });
const signedIn = () => ({
  data: {
    viewer: {
      __typename: 'Viewer',
      user: { __typename: 'User', id: 'usr_1', email: 'ada@example.com', name: 'Ada' },
      workspace: { __typename: 'Workspace', id: 'ws_1', name: 'Ada', createdAt: '2025-01-01T00:00:00Z' },
    },
  },
});

/** The auth pages and two console pages, to see where a visitor ends up. */
const pages = (
  <Routes>
    <Route path="/sign-in" element={<SignInPage />} />
    <Route path="/sign-up" element={<SignUpPage />} />
    <Route path="/api" element={<h1>Overview</h1>} />
    <Route path="/api/keys" element={<h1>API keys</h1>} />
  </Routes>
);

describe('sign-in and sign-up when already signed in', () => {
  it('sign-in sends the user on to where ?next= says', async () => {
    const { client } = mockClient({ Viewer: signedIn });
    renderWithClient(pages, { client, route: '/sign-in?next=%2Fuser%2Fapi%2Fkeys', session: null });
    expect(await screen.findByRole('heading', { name: 'API keys' })).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Sign in' })).not.toBeInTheDocument();
  });

  it('sign-up sends the user to the console', async () => {
    const { client } = mockClient({ Viewer: signedIn });
    renderWithClient(pages, { client, route: '/sign-up', session: null });
    expect(await screen.findByRole('heading', { name: 'Overview' })).toBeInTheDocument();
  });

  it('a signed-out visitor stays on the form', async () => {
    const viewer = vi.fn(signedOut);
    const { client } = mockClient({ Viewer: viewer });
    renderWithClient(pages, { client, route: '/sign-in?next=%2Fuser%2Fapi%2Fkeys', session: null });
    await waitFor(() => expect(viewer).toHaveBeenCalled());
    expect(screen.getByRole('button', { name: 'Sign in' })).toBeInTheDocument();
  });
});

describe('SignInPage', () => {
  it('shows one generic inline error for bad credentials and stays on the page', async () => {
    const user = userEvent.setup();
    const signIn = vi.fn(() => ({ errors: [{ message: 'invalid email or password', extensions: { code: 'UNAUTHENTICATED' } }] }));
    const { client } = mockClient({ SignIn: signIn, Viewer: signedOut });
    const { reset } = renderWithClient(<SignInPage />, { client, route: '/sign-in', path: '/sign-in', session: null });
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(screen.getByText('Enter your email address.')).toBeInTheDocument();
    expect(signIn).not.toHaveBeenCalled();

    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'wrong password');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    expect(await screen.findByRole('alert')).toHaveTextContent('That email and password do not match an account.');
    expect(reset).not.toHaveBeenCalled();
    // The sign-in mutation opts out of the global "session expired" redirect.
    expect((signIn.mock.calls[0] as unknown as [unknown, { context: { authRedirect: boolean } }])[1].context.authRedirect).toBe(false);
  });

  it('goes back to the page it came from after signing in', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({ SignIn: () => ({ data: { signIn: { user: { id: 'usr_1', email: 'a@b.c', name: 'A' } } } }), Viewer: signedOut });
    const { reset } = renderWithClient(<SignInPage />, {
      client,
      route: '/sign-in?next=%2Fuser%2Fapi%2Fkeys',
      path: '/sign-in',
      session: null,
    });
    expect(screen.queryByText(/session has ended/)).not.toBeInTheDocument();
    await user.type(screen.getByLabelText('Email'), 'a@b.c');
    await user.type(screen.getByLabelText('Password'), 'correct horse');
    await user.click(screen.getByRole('button', { name: 'Sign in' }));
    await waitFor(() => expect(reset).toHaveBeenCalled());
    expect(await screen.findByTestId('elsewhere')).toBeInTheDocument();
  });

  it('confirms that the user signed out, as a status message', async () => {
    const user = userEvent.setup();
    const signOut = vi.fn(() => ({ data: { signOut: true } }));
    const { client } = mockClient({ SignOut: signOut, Viewer: signedOut });
    const { reset } = renderWithClient(
      <Routes>
        <Route path="/api" element={<AppShell>console</AppShell>} />
        <Route path="/sign-in" element={<SignInPage />} />
      </Routes>,
      { client, route: '/api' },
    );
    expect(screen.queryByText('You are signed out.')).not.toBeInTheDocument();
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    // Wait for sign-in: the console's layout has a status region of its own (ReachabilityNotice).
    expect(await screen.findByRole('heading', { name: 'Sign in to Switchboard' })).toBeInTheDocument();
    expect(screen.getByRole('status')).toHaveTextContent('You are signed out.');
    expect(signOut).toHaveBeenCalledTimes(1);
    expect(reset).toHaveBeenCalled();
  });

  it('does not claim a sign-out the server did not confirm', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({ SignOut: () => ({ networkError: new Error('offline') }), Viewer: signedOut });
    renderWithClient(
      <Routes>
        <Route path="/api" element={<AppShell>console</AppShell>} />
        <Route path="/sign-in" element={<SignInPage />} />
      </Routes>,
      { client, route: '/api' },
    );
    await user.click(screen.getByRole('button', { name: 'Sign out' }));
    expect(await screen.findByRole('heading', { name: 'Sign in to Switchboard' })).toBeInTheDocument();
    expect(screen.queryByText('You are signed out.')).not.toBeInTheDocument();
  });

  it('says nothing about signing out when the user just arrives at sign-in', () => {
    const { client } = mockClient({ Viewer: signedOut });
    renderWithClient(<SignInPage />, { client, route: '/sign-in?next=%2Fuser%2Fapi', path: '/sign-in', session: null });
    expect(screen.queryByText('You are signed out.')).not.toBeInTheDocument();
    expect(screen.queryByRole('status')).not.toBeInTheDocument();
  });

  it('shows the signed-out message from the router state only', () => {
    const { client } = mockClient({ Viewer: signedOut });
    renderWithClient(<SignInPage />, {
      client,
      route: { pathname: '/sign-in', state: { signedOut: true } },
      path: '/sign-in',
      session: null,
    });
    expect(screen.getByRole('status')).toHaveTextContent('You are signed out.');
  });

  it('explains an expired session', () => {
    const { client } = mockClient({ Viewer: signedOut });
    renderWithClient(<SignInPage />, { client, route: '/sign-in?reason=expired', path: '/sign-in', session: null });
    expect(screen.getByText(/session has ended/)).toBeInTheDocument();
  });
});

describe('SignUpPage', () => {
  it('validates inline and maps server field errors', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({
      SignUp: () => ({ errors: [{ message: 'email already registered', extensions: { code: 'CONFLICT' } }] }),
      Viewer: signedOut,
    });
    renderWithClient(<SignUpPage />, { client, route: '/sign-up', path: '/sign-up', session: null });
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(screen.getByText('Enter your name.')).toBeInTheDocument();
    expect(screen.getByText('Enter a valid email address.')).toBeInTheDocument();
    expect(screen.getByText('Use at least 10 characters.')).toBeInTheDocument();

    await user.type(screen.getByLabelText('Name'), 'Ada');
    await user.type(screen.getByLabelText('Email'), 'ada@example.com');
    await user.type(screen.getByLabelText('Password'), 'long enough password');
    await user.click(screen.getByRole('button', { name: 'Create account' }));
    expect(await screen.findByText(/already exists/)).toBeInTheDocument();
    expect(screen.getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true');
  });
});

import { useState, type FormEvent } from 'react';
import { Link, Navigate, useLocation, useNavigate, useSearchParams } from 'react-router';
import { useClient } from 'urql';
import { Button } from '../../components/Button';
import { Field } from '../../components/Field';
import { Form } from '../../components/Form';
import { InlineError, Notice } from '../../components/States';
import { SignInDocument } from '../../graphql/generated';
import { useResetClient } from '../../lib/clientContext';
import { errorCode, errorMessage } from '../../lib/errors';
import { safeNext, type SignInState } from '../../lib/session';
import { AuthLayout } from './AuthLayout';
import { useSignedIn } from './useSignedIn';
import authStyles from './AuthLayout.module.css';

export function SignInPage() {
  const client = useClient();
  const reset = useResetClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = params.get('next');
  const signedOut = (useLocation().state as SignInState | null)?.signedOut === true;
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<{ email?: string; password?: string; form?: string }>({});
  const [busy, setBusy] = useState(false);
  const signedIn = useSignedIn();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const local: typeof errors = {};
    if (!email.trim()) local.email = 'Enter your email address.';
    if (!password) local.password = 'Enter your password.';
    setErrors(local);
    if (local.email || local.password) return;
    setBusy(true);
    const result = await client
      .mutation(SignInDocument, { input: { email: email.trim(), password } }, { authRedirect: false })
      .toPromise();
    setBusy(false);
    if (result.error || !result.data) {
      const code = errorCode(result.error);
      setErrors({
        form:
          code === 'UNAUTHENTICATED' || code === 'INVALID'
            ? 'That email and password do not match an account.'
            : errorMessage(result.error) || 'Sign-in failed.',
      });
      return;
    }
    reset();
    navigate(safeNext(next), { replace: true });
  };

  if (signedIn) return <Navigate to={safeNext(next)} replace />;
  return (
    <AuthLayout
      title="Sign in to Switchboard"
      subtitle="Manage API keys, webhooks and live events for your workspace."
      footer={
        <>
          New to Switchboard? <Link to={`/sign-up${next ? `?next=${encodeURIComponent(next)}` : ''}`}>Create an account</Link>
        </>
      }
    >
      <Form className={authStyles.form} onSubmit={submit}>
        {signedOut && (
          <Notice tone="success" role="status">
            You are signed out.
          </Notice>
        )}
        {params.get('reason') === 'expired' && <Notice>Your session has ended. Sign in again to continue.</Notice>}
        <InlineError>{errors.form}</InlineError>
        <Field label="Email" error={errors.email}>
          <input
            className="input"
            type="email"
            name="email"
            autoComplete="email"
            value={email}
            onChange={(e) => setEmail(e.target.value)}
            autoFocus
          />
        </Field>
        <Field label="Password" error={errors.password}>
          <input
            className="input"
            type="password"
            name="password"
            autoComplete="current-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <Button type="submit" variant="primary" className={authStyles.submit} loading={busy}>
          Sign in
        </Button>
      </Form>
    </AuthLayout>
  );
}

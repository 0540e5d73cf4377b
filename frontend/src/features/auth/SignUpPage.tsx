import { useState, type FormEvent } from 'react';
import { Link, Navigate, useNavigate, useSearchParams } from 'react-router';
import { useClient } from 'urql';
import { Button } from '../../components/Button';
import { Field } from '../../components/Field';
import { Form } from '../../components/Form';
import { InlineError } from '../../components/States';
import { SignUpDocument } from '../../graphql/generated';
import { useResetClient } from '../../lib/clientContext';
import { errorCode, errorMessage, fieldErrors } from '../../lib/errors';
import { safeNext } from '../../lib/session';
import { AuthLayout } from './AuthLayout';
import { useSignedIn } from './useSignedIn';
import authStyles from './AuthLayout.module.css';

type Errors = { name?: string; email?: string; password?: string; form?: string };

export const MIN_PASSWORD = 10;

export function SignUpPage() {
  const client = useClient();
  const reset = useResetClient();
  const navigate = useNavigate();
  const [params] = useSearchParams();
  const next = params.get('next');
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  const signedIn = useSignedIn();

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const local: Errors = {};
    if (!name.trim()) local.name = 'Enter your name.';
    if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email.trim())) local.email = 'Enter a valid email address.';
    if (password.length < MIN_PASSWORD) local.password = `Use at least ${MIN_PASSWORD} characters.`;
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    const result = await client
      .mutation(SignUpDocument, { input: { name: name.trim(), email: email.trim(), password } }, { authRedirect: false })
      .toPromise();
    setBusy(false);
    if (result.error || !result.data) {
      const fields = fieldErrors(result.error);
      const code = errorCode(result.error);
      const next: Errors = { name: fields.name, email: fields.email, password: fields.password };
      if (code === 'CONFLICT') next.email = 'An account with this email already exists. Sign in instead.';
      if (!next.name && !next.email && !next.password) next.form = errorMessage(result.error) || 'Sign-up failed.';
      setErrors(next);
      return;
    }
    reset();
    navigate(safeNext(next), { replace: true });
  };

  if (signedIn) return <Navigate to={safeNext(next)} replace />;
  return (
    <AuthLayout
      title="Create your account"
      subtitle="Get a workspace and your first API key in a minute."
      footer={
        <>
          Already have an account? <Link to={`/sign-in${next ? `?next=${encodeURIComponent(next)}` : ''}`}>Sign in</Link>
        </>
      }
    >
      <Form className={authStyles.form} onSubmit={submit}>
        <InlineError>{errors.form}</InlineError>
        <Field label="Name" error={errors.name}>
          <input className="input" name="name" autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} autoFocus />
        </Field>
        <Field label="Email" error={errors.email}>
          <input className="input" type="email" name="email" autoComplete="email" value={email} onChange={(e) => setEmail(e.target.value)} />
        </Field>
        <Field label="Password" error={errors.password} hint={errors.password ? undefined : `At least ${MIN_PASSWORD} characters.`}>
          <input
            className="input"
            type="password"
            name="password"
            autoComplete="new-password"
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </Field>
        <Button type="submit" variant="primary" className={authStyles.submit} loading={busy}>
          Create account
        </Button>
      </Form>
    </AuthLayout>
  );
}

import { render, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { Button } from './Button';
import { Dialog } from './Dialog';
import { Field } from './Field';
import { Form } from './Form';
import { InlineError } from './States';

type Errors = { name?: string; email?: string; form?: string };

/**
 * A dialog form built from the shared pieces, as the console's forms are: local checks, then a
 * request (answer resolves it) while the submit button is disabled, then the server's errors.
 */
function SignUpDialog({ answer }: { answer: () => Promise<Errors | null> }) {
  const [name, setName] = useState('');
  const [email, setEmail] = useState('');
  const [errors, setErrors] = useState<Errors>({});
  const [busy, setBusy] = useState(false);
  return (
    <Dialog
      open
      onOpenChange={() => {}}
      title="Invite"
      onSubmit={async () => {
        const local: Errors = {};
        if (!name.trim()) local.name = 'Enter a name.';
        setErrors(local);
        if (local.name) return;
        setBusy(true);
        const result = await answer();
        setBusy(false);
        setErrors(result ?? {});
      }}
      footer={
        <Button type="submit" loading={busy}>
          Invite
        </Button>
      }
    >
      <InlineError>{errors.form}</InlineError>
      <Field label="Name" error={errors.name}>
        <input value={name} onChange={(e) => setName(e.target.value)} />
      </Field>
      <Field label="Email" error={errors.email} hint="Where the invitation goes.">
        <input value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
    </Dialog>
  );
}

describe('Field', () => {
  it('ties its error to the control and announces it', () => {
    render(
      <Field label="Email" error="Enter a valid email address." hint="We never share it.">
        <input />
      </Field>,
    );
    const input = screen.getByLabelText('Email');
    expect(input).toHaveAttribute('aria-invalid', 'true');
    expect(input).toHaveAccessibleDescription('We never share it. Enter a valid email address.');
    expect(screen.getByRole('alert')).toHaveTextContent('Enter a valid email address.');
  });

  it('has no alert and no aria-invalid without an error', () => {
    render(
      <Field label="Email">
        <input />
      </Field>,
    );
    expect(screen.getByLabelText('Email')).not.toHaveAttribute('aria-invalid');
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

describe('focus after a failed submit', () => {
  it('moves to the first invalid field after a local check, not staying on the submit button', async () => {
    const user = userEvent.setup();
    render(<SignUpDialog answer={async () => null} />);
    const dialog = screen.getByRole('dialog', { name: 'Invite' });
    await user.click(within(dialog).getByRole('button', { name: 'Invite' }));
    await waitFor(() => expect(within(dialog).getByLabelText('Name')).toHaveFocus());
    expect(within(dialog).getByRole('alert')).toHaveTextContent('Enter a name.');
  });

  it("moves to the field a server error names, although the submit button was disabled while the request ran", async () => {
    const user = userEvent.setup();
    let reply: (e: Errors) => void = () => {};
    render(<SignUpDialog answer={() => new Promise<Errors>((resolve) => (reply = resolve))} />);
    const dialog = screen.getByRole('dialog', { name: 'Invite' });
    await user.type(within(dialog).getByLabelText('Name'), 'Ada');
    await user.click(within(dialog).getByRole('button', { name: 'Invite' }));
    expect(within(dialog).getByRole('button', { name: 'Invite' })).toBeDisabled();
    reply({ email: 'Someone with this email is already invited.' });
    await waitFor(() => expect(within(dialog).getByLabelText('Email')).toHaveFocus());
    expect(within(dialog).getByLabelText('Email')).toHaveAccessibleDescription('Where the invitation goes. Someone with this email is already invited.');
  });

  it("moves to the form's error message when the error names no field", async () => {
    const user = userEvent.setup();
    render(<SignUpDialog answer={async () => ({ form: 'Too many attempts. Wait a moment and try again.' })} />);
    const dialog = screen.getByRole('dialog', { name: 'Invite' });
    await user.type(within(dialog).getByLabelText('Name'), 'Ada');
    await user.click(within(dialog).getByRole('button', { name: 'Invite' }));
    const alert = await within(dialog).findByRole('alert');
    await waitFor(() => expect(alert).toHaveFocus());
    expect(alert).toHaveTextContent('Too many attempts');
  });

  it('leaves focus alone after a submit without errors', async () => {
    const user = userEvent.setup();
    render(
      <Form onSubmit={() => {}}>
        <Field label="Search">
          <input />
        </Field>
        <Button type="submit">Go</Button>
      </Form>,
    );
    await user.click(screen.getByRole('button', { name: 'Go' }));
    await new Promise((r) => setTimeout(r, 0));
    expect(screen.getByRole('button', { name: 'Go' })).toHaveFocus();
  });
});

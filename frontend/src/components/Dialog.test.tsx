import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { Button } from './Button';
import { ConfirmDialog, Dialog } from './Dialog';

/** A page with a button that opens a form dialog, which on submit opens a second dialog (like a key's secret). */
function Page() {
  const [open, setOpen] = useState(false);
  const [second, setSecond] = useState(false);
  const [confirm, setConfirm] = useState(false);
  return (
    <>
      <Button onClick={() => setOpen(true)}>Create</Button>
      <Button onClick={() => setConfirm(true)}>Revoke</Button>
      <Dialog
        open={open}
        onOpenChange={setOpen}
        title="Create something"
        onSubmit={(e) => {
          e.preventDefault();
          setOpen(false);
          setSecond(true);
        }}
        footer={<Button type="submit">Save</Button>}
      >
        <input aria-label="Name" />
      </Dialog>
      <Dialog open={second} onOpenChange={setSecond} title="Saved" footer={<Button onClick={() => setSecond(false)}>Done</Button>} />
      <ConfirmDialog open={confirm} onOpenChange={setConfirm} title="Revoke it?" description="This cannot be undone." confirmLabel="Revoke it" onConfirm={async () => {}} />
    </>
  );
}

describe('Dialog focus', () => {
  it('gives focus back to the button that opened it when closed with Escape', async () => {
    const user = userEvent.setup();
    render(<Page />);
    await user.click(screen.getByRole('button', { name: 'Create' }));
    expect(await screen.findByLabelText('Name')).toHaveFocus();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByRole('button', { name: 'Create' })).toHaveFocus());
  });

  it('gives focus back to the first opener when a dialog opened by another one closes', async () => {
    const user = userEvent.setup();
    render(<Page />);
    await user.click(screen.getByRole('button', { name: 'Create' }));
    await user.click(await screen.findByRole('button', { name: 'Save' }));
    const done = await screen.findByRole('button', { name: 'Done' });
    await user.click(done);
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByRole('button', { name: 'Create' })).toHaveFocus());
  });

  it('a confirmation gives focus back to its opener on Cancel and on Escape', async () => {
    const user = userEvent.setup();
    render(<Page />);
    const revoke = screen.getByRole('button', { name: 'Revoke' });
    await user.click(revoke);
    expect(await screen.findByRole('button', { name: 'Cancel' })).toHaveFocus();
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    await waitFor(() => expect(revoke).toHaveFocus());
    await user.click(revoke);
    await user.click(await screen.findByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    await waitFor(() => expect(revoke).toHaveFocus());
  });
});

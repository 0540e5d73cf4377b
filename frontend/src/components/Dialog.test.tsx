import { render, screen, waitFor } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { Button } from './Button';
import { ConfirmDialog, Dialog } from './Dialog';
import { PageHeader } from './PageHeader';

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

/**
 * A list page whose Delete buttons open a confirmation; deleting removes the row, either while
 * the confirmation is still open or, like a list refetched after the mutation, just after.
 */
function ListPage({ removeRow }: { removeRow: 'before-close' | 'after-close' }) {
  const [items, setItems] = useState(['alpha', 'beta']);
  const [deleting, setDeleting] = useState<string | null>(null);
  const remove = (name: string) => setItems((list) => list.filter((i) => i !== name));
  return (
    <main tabIndex={-1}>
      <PageHeader title="Things" />
      <ul>
        {items.map((name) => (
          <li key={name}>
            {name} <Button onClick={() => setDeleting(name)}>Delete {name}</Button>
          </li>
        ))}
      </ul>
      <ConfirmDialog
        open={deleting !== null}
        onOpenChange={(open) => !open && setDeleting(null)}
        title={`Delete ${deleting}?`}
        description="This cannot be undone."
        confirmLabel="Delete it"
        onConfirm={async () => {
          const name = deleting!;
          if (removeRow === 'before-close') remove(name);
          else setTimeout(() => remove(name), 20);
        }}
      />
    </main>
  );
}

describe('Dialog focus when the opener is gone', () => {
  it.each(['before-close', 'after-close'] as const)('moves focus to the page heading when the row is removed %s', async (removeRow) => {
    const user = userEvent.setup();
    render(<ListPage removeRow={removeRow} />);
    await user.click(screen.getByRole('button', { name: 'Delete beta' }));
    await user.click(await screen.findByRole('button', { name: 'Delete it' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Delete beta' })).not.toBeInTheDocument());
    await waitFor(() => expect(screen.getByRole('heading', { level: 1, name: 'Things' })).toHaveFocus());
  });

  it('leaves focus alone when the user has moved it before the row goes', async () => {
    const user = userEvent.setup();
    render(<ListPage removeRow="after-close" />);
    await user.click(screen.getByRole('button', { name: 'Delete beta' }));
    await user.click(await screen.findByRole('button', { name: 'Delete it' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    screen.getByRole('button', { name: 'Delete alpha' }).focus();
    await waitFor(() => expect(screen.queryByRole('button', { name: 'Delete beta' })).not.toBeInTheDocument());
    expect(screen.getByRole('button', { name: 'Delete alpha' })).toHaveFocus();
  });
});

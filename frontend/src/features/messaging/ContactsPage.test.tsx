import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import { mockClient, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import ContactsPage from './ContactsPage';
import { contact, instance } from './fixtures';

const route = { route: '/api/contacts?instance=inst_a', path: '/api/contacts' };
const noEvents = () => makeSubject<MockResponse>().source;
const toast = () => screen.getByTestId('toast');
type Contact = ReturnType<typeof contact>;

describe('ContactsPage', () => {
  it('lists the contacts with their names, numbers and labels', async () => {
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Contacts: () => ({
        data: { contacts: { nodes: [contact(), contact({ id: 'ct_2', address: '+15553330003', name: '', labels: [] })], hasMore: false } },
      }),
      MessagingEvents: noEvents,
    });
    renderWithClient(<ContactsPage />, { client, ...route });
    const table = await screen.findByRole('table', { name: 'Contacts' });
    const rows = within(table).getAllByRole('row').slice(1);
    expect(rows).toHaveLength(2);
    const [first, second] = rows as [HTMLElement, HTMLElement];
    expect(within(first).getByText('Grace Hopper')).toBeInTheDocument();
    expect(within(first).getByText('+15552220002')).toBeInTheDocument();
    expect(within(first).getByText('vip')).toBeInTheDocument();
    expect(within(second).getByText('No name')).toBeInTheDocument();
    expect(within(second).getByRole('button', { name: 'Edit +15553330003' })).toBeInTheDocument();
  });

  it('creates a contact, showing the server’s contact_exists error for a number it already has', async () => {
    const user = userEvent.setup();
    let contacts: Contact[] = [contact()];
    const create = vi.fn((v: Record<string, unknown>) => {
      const input = v.input as { address: string; name: string | null; labels: string[] };
      if (contacts.some((c) => c.address === input.address)) {
        return {
          errors: [
            { message: 'this instance already has a contact with that address', extensions: { code: 'CONFLICT', reason: 'contact_exists', field: 'address' } },
          ],
        };
      }
      const created = contact({ id: 'ct_2', address: input.address, name: input.name ?? '', labels: input.labels });
      contacts = [...contacts, created];
      return { data: { createContact: created } };
    });
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Contacts: () => ({ data: { contacts: { nodes: contacts, hasMore: false } } }),
      MessagingEvents: noEvents,
      CreateContact: create,
    });
    renderWithClient(<ContactsPage />, { client, ...route });
    await screen.findByRole('table', { name: 'Contacts' });
    await user.click(screen.getByRole('button', { name: 'New contact' }));
    const dialog = await screen.findByRole('dialog', { name: 'New contact' });
    const number = within(dialog).getByLabelText('Phone number');
    await user.click(within(dialog).getByRole('button', { name: 'Create contact' }));
    expect(number).toHaveAccessibleDescription('Enter a phone number, such as +15551234567.');
    expect(create).not.toHaveBeenCalled();

    await user.type(number, '+15552220002');
    await user.type(within(dialog).getByLabelText(/^Name/), 'Grace again');
    await user.click(within(dialog).getByRole('button', { name: 'Create contact' }));
    // A CONFLICT that names a field is shown under that field (not above the form), and focused.
    await waitFor(() => expect(number).toHaveAccessibleDescription('this instance already has a contact with that address'));
    expect(number).toHaveAttribute('aria-invalid', 'true');
    await waitFor(() => expect(number).toHaveFocus());
    expect(within(dialog).getAllByRole('alert')).toHaveLength(1);
    expect(screen.getByRole('dialog', { name: 'New contact' })).toBeInTheDocument();

    await user.clear(number);
    await user.type(number, ' +15553330003 ');
    const labels = within(dialog).getByLabelText(/^Labels/);
    await user.type(labels, 'beta, vip, beta,');
    await user.click(within(dialog).getByRole('button', { name: 'Create contact' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(create).toHaveBeenLastCalledWith(
      { instanceId: 'inst_a', input: { address: '+15553330003', name: 'Grace again', labels: ['beta', 'vip'] } },
      expect.anything(),
    );
    expect(toast()).toHaveTextContent('Contact Grace again created');
    const table = screen.getByRole('table', { name: 'Contacts' });
    const row = (await within(table).findByText('+15553330003')).closest('tr') as HTMLElement;
    expect(within(row).getByText('Grace again')).toBeInTheDocument();
    expect(within(row).getByText('beta')).toBeInTheDocument();
  });

  it('edits a contact’s name and labels, and shows a field error from the server', async () => {
    const user = userEvent.setup();
    let current = contact();
    const update = vi.fn((v: Record<string, unknown>) => {
      const input = v.input as { name: string; labels: string[] };
      if (input.labels.some((l) => l.length > 20)) {
        return { errors: [{ message: 'labels: each label is at most 20 characters', extensions: { code: 'INVALID', field: 'labels' } }] };
      }
      current = { ...current, ...input };
      return { data: { updateContact: current } };
    });
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Contacts: () => ({ data: { contacts: { nodes: [current], hasMore: false } } }),
      MessagingEvents: noEvents,
      UpdateContact: update,
    });
    renderWithClient(<ContactsPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Edit Grace Hopper' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit Grace Hopper' });
    // The number is not editable; the name and labels start filled in.
    expect(within(dialog).queryByLabelText('Phone number')).not.toBeInTheDocument();
    const name = within(dialog).getByLabelText(/^Name/);
    const labels = within(dialog).getByLabelText(/^Labels/);
    expect(name).toHaveValue('Grace Hopper');
    expect(labels).toHaveValue('vip');

    await user.clear(labels);
    await user.type(labels, 'vip, a-label-much-longer-than-twenty');
    await user.click(within(dialog).getByRole('button', { name: 'Save contact' }));
    await waitFor(() => expect(labels).toHaveAttribute('aria-invalid', 'true'));
    expect(labels).toHaveAccessibleDescription(expect.stringContaining('labels: each label is at most 20 characters'));
    expect(name).not.toHaveAttribute('aria-invalid');

    await user.clear(name);
    await user.type(name, 'Rear Admiral Hopper');
    await user.clear(labels);
    await user.type(labels, 'vip, navy');
    await user.click(within(dialog).getByRole('button', { name: 'Save contact' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(update).toHaveBeenLastCalledWith({ instanceId: 'inst_a', id: 'ct_1', input: { name: 'Rear Admiral Hopper', labels: ['vip', 'navy'] } }, expect.anything());
    expect(toast()).toHaveTextContent('Contact Rear Admiral Hopper saved');
    const table = screen.getByRole('table', { name: 'Contacts' });
    expect(await within(table).findByText('Rear Admiral Hopper')).toBeInTheDocument();
    expect(within(table).getByText('navy')).toBeInTheDocument();
  });

  it('deletes a contact only after confirming', async () => {
    const user = userEvent.setup();
    let contacts: Contact[] = [contact()];
    const del = vi.fn(() => {
      contacts = [];
      return { data: { deleteContact: { __typename: 'Contact', id: 'ct_1' } } };
    });
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Contacts: () => ({ data: { contacts: { nodes: contacts, hasMore: false } } }),
      MessagingEvents: noEvents,
      DeleteContact: del,
    });
    renderWithClient(<ContactsPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Delete Grace Hopper' }));
    let dialog = await screen.findByRole('alertdialog', { name: 'Delete Grace Hopper?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(del).not.toHaveBeenCalled();
    expect(screen.getByRole('table', { name: 'Contacts' })).toHaveTextContent('Grace Hopper');

    await user.click(screen.getByRole('button', { name: 'Delete Grace Hopper' }));
    dialog = await screen.findByRole('alertdialog', { name: 'Delete Grace Hopper?' });
    await user.click(within(dialog).getByRole('button', { name: 'Delete contact' }));
    await waitFor(() => expect(del).toHaveBeenCalledWith({ instanceId: 'inst_a', id: 'ct_1' }, expect.anything()));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(toast()).toHaveTextContent('Contact Grace Hopper deleted');
    expect(await screen.findByRole('heading', { name: 'No contacts yet' })).toBeInTheDocument();
    expect(screen.queryByRole('table')).not.toBeInTheDocument();
  });

  it('shows a contact created by inbound traffic when its event arrives', async () => {
    const events = makeSubject<MockResponse>();
    let contacts: Contact[] = [];
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Contacts: () => ({ data: { contacts: { nodes: contacts, hasMore: false } } }),
      MessagingEvents: () => events.source,
    });
    renderWithClient(<ContactsPage />, { client, ...route });
    expect(await screen.findByRole('heading', { name: 'No contacts yet' })).toBeInTheDocument();
    contacts = [contact({ name: '' })];
    act(() => events.next({ data: { events: { __typename: 'Event', id: 'evt_1', type: 'contact.created' } } }));
    const table = await screen.findByRole('table', { name: 'Contacts' });
    expect(within(table).getByText('+15552220002')).toBeInTheDocument();
  });

  it('shows loading, then an error with a retry that loads the contacts', async () => {
    const user = userEvent.setup();
    let answer: (r: MockResponse) => void = () => {};
    const contacts = vi.fn(() => new Promise<MockResponse>((resolve) => (answer = resolve)));
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Contacts: contacts,
      MessagingEvents: noEvents,
    });
    renderWithClient(<ContactsPage />, { client, ...route });
    expect(await screen.findByText('Loading contacts…')).toBeInTheDocument();
    act(() => answer({ errors: [{ message: 'missing scope contacts:read', extensions: { code: 'FORBIDDEN' } }] }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load contacts');
    expect(alert).toHaveTextContent('missing scope contacts:read');
    const loads = contacts.mock.calls.length;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(contacts.mock.calls.length).toBeGreaterThan(loads));
    act(() => answer({ data: { contacts: { nodes: [contact()], hasMore: false } } }));
    expect(await screen.findByRole('table', { name: 'Contacts' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('points to the instances page when there is no instance', async () => {
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [], hasMore: false } } }),
    });
    renderWithClient(<ContactsPage />, { client, ...route });
    expect(await screen.findByRole('heading', { name: 'No instances yet' })).toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Create an instance' })).toHaveAttribute('href', '/api/instances');
  });
});

import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import { mockClient, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { group, instance } from './fixtures';
import GroupsPage from './GroupsPage';

const route = { route: '/api/groups?instance=inst_a', path: '/api/groups' };
const noEvents = () => makeSubject<MockResponse>().source;
const toast = () => screen.getByTestId('toast');

describe('GroupsPage', () => {
  it('creates a group, showing the checks and the server’s field errors on their fields', async () => {
    const user = userEvent.setup();
    let groups: ReturnType<typeof group>[] = [];
    const create = vi
      .fn()
      .mockImplementationOnce(() => ({
        errors: [{ message: '"555": must be a phone number in E.164 form', extensions: { code: 'INVALID', field: 'participants' } }],
      }))
      .mockImplementationOnce(() => {
        groups = [group()];
        return { data: { createGroup: groups[0] } };
      });
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Groups: () => ({ data: { groups: { nodes: groups, hasMore: false } } }),
      MessagingEvents: noEvents,
      CreateGroup: create,
    });
    renderWithClient(<GroupsPage />, { client, ...route });
    expect(await screen.findByRole('heading', { name: 'No groups yet' })).toBeInTheDocument();

    const form = screen.getByRole('form', { name: 'Create a group' });
    const subject = within(form).getByLabelText('Subject');
    const participants = within(form).getByLabelText('Participants');
    await user.click(within(form).getByRole('button', { name: 'Create group' }));
    expect(subject).toHaveAccessibleDescription('Enter a subject.');
    expect(participants).toHaveAccessibleDescription(expect.stringContaining('Add at least one phone number.'));
    expect(create).not.toHaveBeenCalled();

    await user.type(subject, 'Team');
    await user.type(participants, '+15552220002, 555');
    await user.click(within(form).getByRole('button', { name: 'Create group' }));
    await waitFor(() => expect(create).toHaveBeenCalledTimes(1));
    expect(create).toHaveBeenLastCalledWith({ instanceId: 'inst_a', input: { subject: 'Team', participants: ['+15552220002', '555'] } }, expect.anything());
    expect(participants).toHaveAttribute('aria-invalid', 'true');
    expect(participants).toHaveAccessibleDescription(expect.stringContaining('"555": must be a phone number in E.164 form'));
    expect(subject).not.toHaveAttribute('aria-invalid');

    await user.clear(participants);
    await user.type(participants, '+15552220002');
    await user.click(within(form).getByRole('button', { name: 'Create group' }));
    await waitFor(() => expect(toast()).toHaveTextContent('Group Team created'));
    expect(subject).toHaveValue('');
    expect(participants).toHaveValue('');
    expect(participants).not.toHaveAttribute('aria-invalid');
    const members = await screen.findByRole('list', { name: 'Participants of Team' });
    expect(within(members).getByText('+15552220002')).toBeInTheDocument();
    expect(within(members).getByText('admin')).toBeInTheDocument();
  });

  it('cannot create a group while the instance is not connected', async () => {
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance({ status: 'disconnected' })], hasMore: false } } }),
      Groups: () => ({ data: { groups: { nodes: [], hasMore: false } } }),
      MessagingEvents: noEvents,
    });
    renderWithClient(<GroupsPage />, { client, ...route });
    expect(await screen.findByRole('heading', { name: 'No groups yet' })).toBeInTheDocument();
    expect(screen.getByRole('button', { name: 'Create group' })).toBeDisabled();
  });

  it('adds and removes participants, and shows a failed change', async () => {
    const user = userEvent.setup();
    let current = group();
    const change = vi.fn((v: Record<string, unknown>) => {
      const add = (v.add as string[] | null) ?? [];
      const remove = (v.remove as string[] | null) ?? [];
      if (add.includes('+15559990009')) {
        return { errors: [{ message: 'this instance is not an admin of the group', extensions: { code: 'FORBIDDEN' } }] };
      }
      current = {
        ...current,
        participants: [
          ...current.participants.filter((p) => !remove.includes(p.address)),
          ...add.map((address) => ({ __typename: 'Participant' as const, address, role: 'member' })),
        ],
      };
      return { data: { changeGroupParticipants: current } };
    });
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Groups: () => ({ data: { groups: { nodes: [current], hasMore: false } } }),
      MessagingEvents: noEvents,
      ChangeGroupParticipants: change,
    });
    renderWithClient(<GroupsPage />, { client, ...route });
    const members = await screen.findByRole('list', { name: 'Participants of Team' });
    // The instance itself cannot be removed; others can.
    expect(screen.queryByRole('button', { name: 'Remove +15551110001 from Team' })).not.toBeInTheDocument();

    const add = screen.getByLabelText('Add participant');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    // The add form's errors are its field's description, shown under it.
    expect(add).toHaveAccessibleDescription('Enter a phone number to add.');
    expect(add).toHaveAttribute('aria-invalid', 'true');
    expect(change).not.toHaveBeenCalled();

    await user.type(add, '+15553330003');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    await waitFor(() => expect(toast()).toHaveTextContent('Added to Team'));
    expect(change).toHaveBeenLastCalledWith({ instanceId: 'inst_a', id: 'grp_1', add: ['+15553330003'], remove: null }, expect.anything());
    expect(add).toHaveValue('');
    expect(await within(members).findByText('+15553330003')).toBeInTheDocument();
    expect(screen.queryByText('Enter a phone number to add.')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Remove +15552220002 from Team' }));
    await waitFor(() => expect(toast()).toHaveTextContent('+15552220002 removed from Team'));
    expect(change).toHaveBeenLastCalledWith({ instanceId: 'inst_a', id: 'grp_1', add: null, remove: ['+15552220002'] }, expect.anything());
    await waitFor(() => expect(within(members).queryByText('+15552220002')).not.toBeInTheDocument());

    await user.type(add, '+15559990009');
    await user.click(screen.getByRole('button', { name: 'Add' }));
    expect(await screen.findByText('this instance is not an admin of the group')).toBeInTheDocument();
    expect(add).toHaveAccessibleDescription('this instance is not an admin of the group');
    expect(add).toHaveValue('+15559990009');
    expect(within(members).queryByText('+15559990009')).not.toBeInTheDocument();
  });

  it('leaves a group only after confirming, then shows it read-only', async () => {
    const user = userEvent.setup();
    let current = group();
    const leave = vi.fn(() => {
      current = { ...current, left: true };
      return { data: { leaveGroup: current } };
    });
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Groups: () => ({ data: { groups: { nodes: [current], hasMore: false } } }),
      MessagingEvents: noEvents,
      LeaveGroup: leave,
    });
    renderWithClient(<GroupsPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Leave Team' }));
    let dialog = await screen.findByRole('alertdialog', { name: 'Leave Team?' });
    await user.click(within(dialog).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(leave).not.toHaveBeenCalled();

    await user.click(screen.getByRole('button', { name: 'Leave Team' }));
    dialog = await screen.findByRole('alertdialog', { name: 'Leave Team?' });
    await user.click(within(dialog).getByRole('button', { name: 'Leave group' }));
    await waitFor(() => expect(leave).toHaveBeenCalledWith({ instanceId: 'inst_a', id: 'grp_1' }, expect.anything()));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(toast()).toHaveTextContent('Left Team');
    expect(await screen.findByText('Left')).toBeInTheDocument();
    expect(screen.queryByRole('button', { name: 'Leave Team' })).not.toBeInTheDocument();
    expect(screen.queryByLabelText('Add participant')).not.toBeInTheDocument();
    expect(screen.queryByRole('button', { name: /^Remove / })).not.toBeInTheDocument();
  });

  it('keeps the confirmation open with the error when leaving fails', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Groups: () => ({ data: { groups: { nodes: [group()], hasMore: false } } }),
      MessagingEvents: noEvents,
      LeaveGroup: () => ({ errors: [{ message: 'instance is not connected', extensions: { code: 'CONFLICT' } }] }),
    });
    renderWithClient(<GroupsPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Leave Team' }));
    const dialog = await screen.findByRole('alertdialog', { name: 'Leave Team?' });
    await user.click(within(dialog).getByRole('button', { name: 'Leave group' }));
    expect(await within(dialog).findByText('instance is not connected')).toBeInTheDocument();
    expect(toast()).toHaveTextContent('');
  });

  it('shows a group created elsewhere when its event arrives', async () => {
    const events = makeSubject<MockResponse>();
    let groups: ReturnType<typeof group>[] = [];
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Groups: () => ({ data: { groups: { nodes: groups, hasMore: false } } }),
      MessagingEvents: () => events.source,
    });
    renderWithClient(<GroupsPage />, { client, ...route });
    expect(await screen.findByRole('heading', { name: 'No groups yet' })).toBeInTheDocument();
    groups = [group({ subject: 'Book club' })];
    act(() => events.next({ data: { events: { __typename: 'Event', id: 'evt_1', type: 'group.created' } } }));
    expect(await screen.findByRole('list', { name: 'Participants of Book club' })).toBeInTheDocument();
  });

  it('shows loading, then an error with a retry that loads the groups', async () => {
    const user = userEvent.setup();
    // Every load waits for the test to answer it.
    let answer: (r: MockResponse) => void = () => {};
    const groups = vi.fn(() => new Promise<MockResponse>((resolve) => (answer = resolve)));
    const { client } = mockClient({
      Instances: () => ({ data: { instances: { nodes: [instance()], hasMore: false } } }),
      Groups: groups,
      MessagingEvents: noEvents,
    });
    renderWithClient(<GroupsPage />, { client, ...route });
    expect(await screen.findByText('Loading groups…')).toBeInTheDocument();
    act(() => answer({ errors: [{ message: 'missing scope groups:read', extensions: { code: 'FORBIDDEN' } }] }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load groups');
    expect(alert).toHaveTextContent('missing scope groups:read');
    const loads = groups.mock.calls.length;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(groups.mock.calls.length).toBeGreaterThan(loads));
    act(() => answer({ data: { groups: { nodes: [group()], hasMore: false } } }));
    expect(await screen.findByRole('list', { name: 'Participants of Team' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { describe, expect, it, vi } from 'vitest';
import { mockClient } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { apiKey, catalog } from './fixtures';
import { KeysPage } from './KeysPage';

const SECRET = 'sb_live_' + 'S'.repeat(32) + 'ChkSum';

describe('KeysPage', () => {
  it('shows an empty state with a call to action when there are no keys', async () => {
    const { client } = mockClient({ ApiKeys: () => ({ data: { apiKeys: [] } }), ScopeCatalog: () => ({ data: catalog }) });
    renderWithClient(<KeysPage />, { client });
    expect(await screen.findByText('No API keys yet')).toBeInTheDocument();
    expect(screen.getByRole('button', { name: /create your first key/i })).toBeInTheDocument();
  });

  it('shows an error state with a retry button when the list fails', async () => {
    let failing = true;
    const { client } = mockClient({
      ApiKeys: () => (failing ? { errors: [{ message: 'database is down', extensions: { code: 'INTERNAL' } }] } : { data: { apiKeys: [apiKey()] } }),
      ScopeCatalog: () => ({ data: catalog }),
    });
    renderWithClient(<KeysPage />, { client });
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load API keys');
    expect(alert).not.toHaveTextContent('database is down');
    failing = false;
    await userEvent.click(within(alert).getByRole('button', { name: /try again/i }));
    expect(await screen.findByText('Production server')).toBeInTheDocument();
  });

  it('lists keys with prefix…last four, scopes, status and no secret', async () => {
    const { client } = mockClient({
      ApiKeys: () => ({
        data: {
          apiKeys: [
            apiKey(),
            apiKey({ id: 'key_2', name: 'Old job', status: 'REVOKED', scopes: ['links:read', 'links:write', 'events:read'] }),
          ],
        },
      }),
      ScopeCatalog: () => ({ data: catalog }),
    });
    renderWithClient(<KeysPage />, { client });
    const table = await screen.findByRole('table', { name: 'API keys' });
    expect(within(table).getAllByText('sb_live_AbCd…wXyZ')).toHaveLength(2);
    expect(within(table).getByText('Full access')).toBeInTheDocument();
    expect(within(table).getByText('Revoked')).toBeInTheDocument();
    expect(within(table).getByText('+1 more')).toBeInTheDocument();
    // Only active keys can be revoked.
    expect(within(table).getAllByRole('button', { name: /revoke/i })).toHaveLength(1);
  });

  it('creates a key with a preset, shows the secret once with a copy button, and forgets it on close', async () => {
    const user = userEvent.setup();
    const writeText = vi.fn().mockResolvedValue(undefined);
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true });
    const create = vi.fn((vars: Record<string, unknown>) => ({
      data: { createApiKey: { secret: SECRET, apiKey: apiKey({ id: 'key_new', name: (vars.input as { name: string }).name }) } },
    }));
    const { client } = mockClient({
      ApiKeys: () => ({ data: { apiKeys: [] } }),
      ScopeCatalog: () => ({ data: catalog }),
      CreateApiKey: create,
    });
    renderWithClient(<KeysPage />, { client });
    await user.click(await screen.findByRole('button', { name: /create your first key/i }));
    const dialog = await screen.findByRole('dialog', { name: 'Create API key' });

    // Validation is inline.
    await user.click(within(dialog).getByRole('button', { name: 'Create key' }));
    expect(within(dialog).getByText(/give the key a name/i)).toBeInTheDocument();

    await user.type(within(dialog).getByLabelText('Name'), 'CI runner');
    await user.click(within(dialog).getByRole('radio', { name: /read only/i }));
    await user.selectOptions(within(dialog).getByLabelText('Expires'), '30d');
    await user.click(within(dialog).getByRole('button', { name: 'Create key' }));

    await waitFor(() => expect(create).toHaveBeenCalledTimes(1));
    const input = (create.mock.calls[0]![0] as { input: { name: string; scopes: string[]; expiresAt: string } }).input;
    expect(input.name).toBe('CI runner');
    expect(input.scopes).toEqual(['models:read', 'links:read', 'events:read']);
    expect(new Date(input.expiresAt).getTime()).toBeGreaterThan(Date.now() + 29 * 86_400_000);

    const secretDialog = await screen.findByRole('dialog', { name: 'Save your API key' });
    expect(within(secretDialog).getByText(SECRET)).toBeInTheDocument();
    expect(within(secretDialog).getByText(/only time the secret is shown/i)).toBeInTheDocument();
    await user.click(within(secretDialog).getByRole('button', { name: 'Copy' }));
    expect(writeText).toHaveBeenCalledWith(SECRET);
    expect(await within(secretDialog).findByRole('button', { name: 'Copied' })).toBeInTheDocument();

    await user.click(within(secretDialog).getByRole('button', { name: 'Done' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it('closes the secret dialog with Escape', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({
      ApiKeys: () => ({ data: { apiKeys: [] } }),
      ScopeCatalog: () => ({ data: catalog }),
      CreateApiKey: () => ({ data: { createApiKey: { secret: SECRET, apiKey: apiKey() } } }),
    });
    renderWithClient(<KeysPage />, { client, route: '/api/keys?create=1' });
    const dialog = await screen.findByRole('dialog', { name: 'Create API key' });
    await user.type(await within(dialog).findByLabelText('Name'), 'x');
    await user.click(within(dialog).getByRole('button', { name: 'Create key' }));
    await screen.findByRole('dialog', { name: 'Save your API key' });
    await user.keyboard('{Escape}');
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(document.body.textContent).not.toContain(SECRET);
  });

  it('shows server validation errors next to the field', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({
      ApiKeys: () => ({ data: { apiKeys: [] } }),
      ScopeCatalog: () => ({ data: catalog }),
      CreateApiKey: () => ({ errors: [{ message: 'name is too long', extensions: { code: 'INVALID', field: 'name' } }] }),
    });
    renderWithClient(<KeysPage />, { client, route: '/?create=1' });
    const dialog = await screen.findByRole('dialog', { name: 'Create API key' });
    await user.type(await within(dialog).findByLabelText('Name'), 'x');
    await user.click(within(dialog).getByRole('button', { name: 'Create key' }));
    const name = within(dialog).getByLabelText('Name');
    await waitFor(() => expect(name).toHaveAttribute('aria-invalid', 'true'));
    expect(within(dialog).getByText('name is too long')).toBeInTheDocument();
  });

  it('asks for confirmation before revoking', async () => {
    const user = userEvent.setup();
    const revoke = vi.fn(() => ({ data: { revokeApiKey: apiKey({ status: 'REVOKED' }) } }));
    const { client } = mockClient({
      ApiKeys: () => ({ data: { apiKeys: [apiKey()] } }),
      ScopeCatalog: () => ({ data: catalog }),
      RevokeApiKey: revoke,
    });
    renderWithClient(<KeysPage />, { client });
    await user.click(await screen.findByRole('button', { name: 'Revoke key Production server (sb_live_AbCd…wXyZ)' }));
    const confirm = await screen.findByRole('alertdialog', { name: /revoke production server/i });
    expect(confirm).toHaveTextContent('cannot be undone');
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    expect(revoke).not.toHaveBeenCalled();
    await user.click(screen.getByRole('button', { name: 'Revoke key Production server (sb_live_AbCd…wXyZ)' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Revoke key' }));
    await waitFor(() => expect(revoke).toHaveBeenCalledWith({ id: 'key_1' }, expect.anything()));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
  });

  it('names each Revoke button by its key, so keys with the same name can be told apart', async () => {
    const { client } = mockClient({
      ApiKeys: () => ({
        data: {
          apiKeys: [
            apiKey({ id: 'key_a', name: 'ci', prefix: 'sb_live_AAAA', lastFour: 'ab12' }),
            apiKey({ id: 'key_b', name: 'ci', prefix: 'sb_live_BBBB', lastFour: 'cd34' }),
          ],
        },
      }),
      ScopeCatalog: () => ({ data: catalog }),
    });
    renderWithClient(<KeysPage />, { client });
    const table = await screen.findByRole('table', { name: 'API keys' });
    const names = within(table)
      .getAllByRole('button', { name: /^revoke/i })
      .map((b) => b.getAttribute('aria-label'));
    expect(names).toEqual(['Revoke key ci (sb_live_AAAA…ab12)', 'Revoke key ci (sb_live_BBBB…cd34)']);
    // The visible word is the start of the accessible name (WCAG 2.5.3, label in name).
    for (const b of within(table).getAllByRole('button', { name: /^revoke/i })) expect(b).toHaveTextContent('Revoke');
  });

  it('confirms a revoke with a status message naming the key, which can be dismissed', async () => {
    const user = userEvent.setup();
    let status: 'ACTIVE' | 'REVOKED' = 'ACTIVE';
    const { client } = mockClient({
      ApiKeys: () => ({ data: { apiKeys: [apiKey({ name: 'ci', lastFour: 'ab12', status })] } }),
      ScopeCatalog: () => ({ data: catalog }),
      RevokeApiKey: () => {
        status = 'REVOKED';
        return { data: { revokeApiKey: apiKey({ name: 'ci', lastFour: 'ab12', status }) } };
      },
    });
    renderWithClient(<KeysPage />, { client });
    // The live region is in the page before anything happens, so the message is announced.
    const region = within(screen.getByTestId('toast')).getByRole('status');
    expect(region).toBeEmptyDOMElement();

    await user.click(await screen.findByRole('button', { name: 'Revoke key ci (sb_live_AbCd…ab12)' }));
    await user.click(within(await screen.findByRole('alertdialog')).getByRole('button', { name: 'Revoke key' }));
    await waitFor(() => expect(region).toHaveTextContent('Key ci (sb_live_AbCd…ab12) revoked.'));
    expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Dismiss message' }));
    expect(region).toBeEmptyDOMElement();
    expect(screen.queryByRole('button', { name: 'Dismiss message' })).not.toBeInTheDocument();
  });

  it('shows no confirmation when the revoke fails, and keeps the error in the dialog', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({
      ApiKeys: () => ({ data: { apiKeys: [apiKey()] } }),
      ScopeCatalog: () => ({ data: catalog }),
      RevokeApiKey: () => ({ errors: [{ message: 'key not found', extensions: { code: 'NOT_FOUND' } }] }),
    });
    renderWithClient(<KeysPage />, { client });
    await user.click(await screen.findByRole('button', { name: /^Revoke key Production server/ }));
    const confirm = await screen.findByRole('alertdialog');
    await user.click(within(confirm).getByRole('button', { name: 'Revoke key' }));
    expect(await within(confirm).findByRole('alert')).toBeInTheDocument();
    expect(screen.getByTestId('toast')).not.toHaveTextContent(/revoked/);
  });
});

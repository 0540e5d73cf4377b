import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { useState } from 'react';
import { describe, expect, it } from 'vitest';
import { catalog } from './fixtures';
import { ScopePicker } from './ScopePicker';
import { describeScopes, expiryToISO, groupScopes, maskedKey, parseOrigins, selectedScopes, type ScopeSelection } from './scopes';

function Harness({ onValue }: { onValue: (s: string[]) => void }) {
  const [value, setValue] = useState<ScopeSelection>({ mode: 'full_access', custom: [] });
  onValue(selectedScopes(catalog.scopes, value));
  return <ScopePicker catalog={catalog.scopes} value={value} onChange={setValue} />;
}

describe('ScopePicker', () => {
  it('offers every preset and custom scopes grouped by resource', async () => {
    const user = userEvent.setup();
    let scopes: string[] = [];
    render(<Harness onValue={(s) => (scopes = s)} />);
    expect(screen.getByRole('radio', { name: /full access/i })).toBeChecked();
    expect(scopes).toEqual(['*']);
    expect(screen.getByText(/every scope, including ones added later/i)).toBeInTheDocument();

    await user.click(screen.getByRole('radio', { name: /short links/i }));
    expect(scopes).toEqual(['links:read', 'links:write', 'events:read']);

    await user.click(screen.getByRole('radio', { name: /custom/i }));
    // Custom starts from the previous preset so it is easy to trim.
    expect(screen.getByRole('checkbox', { name: /links:write/ })).toBeChecked();
    await user.click(screen.getByRole('checkbox', { name: /links:write/ }));
    await user.click(screen.getByRole('checkbox', { name: /models:read/ }));
    expect(scopes).toEqual(['models:read', 'links:read', 'events:read']);
    expect(screen.getByText(/3 scopes selected/)).toBeInTheDocument();
  });
});

describe('scope helpers', () => {
  it('groups scopes by resource', () => {
    expect(groupScopes(catalog.scopes).map((g) => g.resource)).toEqual(['models', 'links', 'events']);
  });
  it('describes scope lists by preset name', () => {
    expect(describeScopes(['*'])).toBe('Full access');
    expect(describeScopes(['events:read', 'links:write', 'links:read'], catalog.scopes)).toBe('Short links');
    expect(describeScopes(['links:read'], catalog.scopes)).toBe('1 scope');
  });
  it('turns expiry choices into times', () => {
    const now = Date.UTC(2025, 0, 1);
    expect(expiryToISO('never', '', now)).toBeNull();
    expect(expiryToISO('7d', '', now)).toBe('2025-01-08T00:00:00.000Z');
    expect(() => expiryToISO('custom', '', now)).toThrow(/pick a date/i);
    expect(() => expiryToISO('custom', '2024-12-01', now)).toThrow(/future/);
    expect(expiryToISO('custom', '2025-02-01', now)).toMatch(/^2025-02-0[12]T/);
  });
  it('parses origins and masks keys', () => {
    expect(parseOrigins('https://a.example, https://b.example/\nhttps://c.example')).toEqual([
      'https://a.example',
      'https://b.example',
      'https://c.example',
    ]);
    expect(maskedKey({ prefix: 'sb_live_AbCd', lastFour: '1234' })).toBe('sb_live_AbCd…1234');
  });
});

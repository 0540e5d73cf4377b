import { act, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Time } from './Time';

describe('Time', () => {
  afterEach(() => {
    vi.useRealTimers();
  });

  it('keeps a relative time up to date while the page stays open', () => {
    vi.useFakeTimers({ now: new Date('2026-03-01T12:00:00Z') });
    render(
      <p>
        Created <Time iso="2026-03-01T12:00:00Z" relative />, expires <Time iso="2026-03-01T12:10:00Z" relative />
      </p>,
    );
    expect(screen.getByText(/^Created/)).toHaveTextContent('Created just now, expires in 10 minutes');
    act(() => {
      vi.advanceTimersByTime(3 * 60_000);
    });
    expect(screen.getByText(/^Created/)).toHaveTextContent('Created 3 minutes ago, expires in 7 minutes');
  });

  it('shows absolute times as a date', () => {
    render(<Time iso="2026-03-01T12:00:00Z" />);
    expect(screen.getByRole('time')).toHaveAttribute('dateTime', '2026-03-01T12:00:00Z');
  });
});

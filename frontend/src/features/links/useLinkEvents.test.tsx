import { act } from '@testing-library/react';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import { mockClient, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { eventLinkId, useLinkEvents } from './useLinkEvents';

function Probe({ onChange, linkId }: { onChange: () => void; linkId?: string }) {
  useLinkEvents(onChange, { linkId, throttleMs: 1000 });
  return null;
}

const clicked = (id: string, n: number) => ({
  data: { events: { __typename: 'Event', id: `evt_${n}`, type: 'link.clicked', data: { click: { id: `clk_${n}` }, link: { id } } } },
});

describe('useLinkEvents', () => {
  afterEach(() => vi.useRealTimers());

  it('reads the link id of every link event shape', () => {
    expect(eventLinkId({ id: 'lnk_1', slug: 'x' })).toBe('lnk_1');
    expect(eventLinkId({ click: {}, link: { id: 'lnk_2' } })).toBe('lnk_2');
    expect(eventLinkId(null)).toBeUndefined();
    expect(eventLinkId({ query: {}, count: 1 })).toBeUndefined();
  });

  it('coalesces a burst of clicks into one call now and one at the end of the window', () => {
    vi.useFakeTimers();
    const events = makeSubject<MockResponse>();
    const { client } = mockClient({ LinkEvents: () => events.source });
    const onChange = vi.fn();
    renderWithClient(<Probe onChange={onChange} linkId="lnk_1" />, { client });

    act(() => events.next(clicked('lnk_1', 1)));
    expect(onChange).toHaveBeenCalledTimes(1);
    act(() => {
      for (let i = 2; i < 50; i++) events.next(clicked('lnk_1', i));
      events.next(clicked('lnk_other', 99));
    });
    expect(onChange).toHaveBeenCalledTimes(1);
    act(() => vi.advanceTimersByTime(1000));
    expect(onChange).toHaveBeenCalledTimes(2);
    // Another link's clicks are not this page's business.
    act(() => vi.advanceTimersByTime(5000));
    act(() => events.next(clicked('lnk_other', 100)));
    expect(onChange).toHaveBeenCalledTimes(2);
  });
});

import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import { mockClient, type Handler, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { click, link, shortBase, stats } from './fixtures';
import LinkDetailPage from './LinkDetailPage';

const route = { route: '/api/links/lnk_1', path: '/api/links/:id' };
const svg = '<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 29 29"><rect width="29" height="29" fill="#fff"/><path d="M4 4h1v1h-1z"/></svg>';
const detail = (over: Parameters<typeof link>[0] = {}) => ({ data: { link: { ...link(over), metadata: { crm: 'A-1' } } } });

function setup(handlers: Record<string, Handler> = {}) {
  return mockClient({
    Link: () => detail(),
    LinkQr: () => ({ data: { link: { __typename: 'Link', id: 'lnk_1', slug: 'launch', qrSvg: svg } } }),
    LinkStats: () => ({ data: { linkStats: stats() } }),
    LinkClicks: () => ({ data: { linkClicks: { __typename: 'LinkClickConnection', nodes: [click()], hasMore: false, nextCursor: null } } }),
    ShortLinkBase: () => ({ data: { shortLinkBase: shortBase } }),
    LinkEvents: () => makeSubject<MockResponse>().source,
    ...handlers,
  });
}

/** Has the browser say it is in zone (as Intl.DateTimeFormat().resolvedOptions() tells). */
function inTimeZone(zone: string) {
  const real = Intl.DateTimeFormat.prototype.resolvedOptions;
  vi.spyOn(Intl.DateTimeFormat.prototype, 'resolvedOptions').mockImplementation(function (this: Intl.DateTimeFormat) {
    return { ...real.call(this), timeZone: zone };
  });
}

afterEach(() => {
  vi.restoreAllMocks();
});

describe('LinkDetailPage', () => {
  it('shows the link, its QR code with downloads, the clicks chart and the breakdowns', async () => {
    const { client } = setup({
      Link: () =>
        detail({
          clicks: 5,
          maxClicks: 100,
          passwordProtected: true,
          utm: { __typename: 'LinkUtm', source: 'news', medium: '', campaign: 'spring', term: '', content: '' },
          externalId: 'crm-1',
        }),
    });
    renderWithClient(<LinkDetailPage />, { client, ...route });
    expect(await screen.findByRole('heading', { level: 1, name: 'Launch day' })).toBeInTheDocument();
    expect(screen.getByTestId('short-url')).toHaveTextContent(`${shortBase}/launch`);
    expect(screen.getByTestId('link-clicks')).toHaveTextContent('5 clicks');

    const qr = await screen.findByRole('img', { name: 'QR code for the short link launch' });
    expect(qr.getAttribute('src')).toBe(`data:image/svg+xml;charset=utf-8,${encodeURIComponent(svg)}`);
    const svgLink = screen.getByRole('link', { name: 'Download SVG' });
    expect(svgLink).toHaveAttribute('download', 'launch-qr.svg');
    expect(svgLink.getAttribute('href')).toBe(qr.getAttribute('src'));
    expect(screen.getByRole('button', { name: 'Download PNG' })).toBeEnabled();

    const details = screen.getByRole('region', { name: 'Details' });
    expect(within(details).getByText('5 of 100 used')).toBeInTheDocument();
    expect(within(details).getByText('utm_source=news utm_campaign=spring')).toBeInTheDocument();
    expect(within(details).getByText('Password')).toBeInTheDocument();
    expect(within(details).getByText('crm-1')).toBeInTheDocument();
    expect(within(details).getByText(/"crm": "A-1"/)).toBeInTheDocument();
    expect(within(details).getByRole('link', { name: /https:\/\/example.com\/launch/ })).toHaveAttribute('target', '_blank');

    // Totals, then the chart: one accessible sentence, one bar per day with a tooltip.
    const chart = await screen.findByRole('img', { name: /^Clicks per day, last 30 days: 5 clicks, most on Jan 3 \(4 clicks\)\.$/ });
    expect(chart.querySelectorAll('rect')).toHaveLength(3);
    expect(chart.querySelectorAll('rect')[2]?.querySelector('title')).toHaveTextContent('Jan 3: 4 clicks');
    expect(screen.getByText('Unique visitors').nextElementSibling).toHaveTextContent('4');
    expect(screen.getByText('Bot visits').nextElementSibling).toHaveTextContent('2');

    const referrers = screen.getByRole('table', { name: 'Referrers' });
    expect(within(referrers).getAllByRole('row')[1]).toHaveTextContent('news.example.com4 · 80%');
    expect(within(referrers).getAllByRole('row')[2]).toHaveTextContent('Direct1 · 20%');
    const countries = screen.getByRole('table', { name: 'Countries' });
    expect(within(countries).getByText('Germany')).toBeInTheDocument();
    expect(within(countries).getByText('Unknown')).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Devices' })).getByText('Mobile')).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Browsers' })).getByText('Safari')).toBeInTheDocument();
    expect(within(screen.getByRole('table', { name: 'Operating systems' })).getAllByRole('row')[1]).toHaveTextContent('iOS5 · 100%');

    const recent = screen.getByRole('table', { name: 'Recent clicks' });
    const row = within(recent).getAllByRole('row')[1] as HTMLElement;
    expect(row).toHaveTextContent('news.example.com');
    expect(row).toHaveTextContent('Germany');
    expect(row).toHaveTextContent('Mobile');
  });

  it('changes the period and the bot filter', async () => {
    const user = userEvent.setup();
    inTimeZone('America/Los_Angeles');
    const statsQuery = vi.fn((v: Record<string, unknown>) => ({ data: { linkStats: stats({ interval: v.interval as 'DAY' | 'HOUR', clicks: 0, timeseries: [] }) } }));
    const { client } = setup({ LinkStats: statsQuery });
    renderWithClient(<LinkDetailPage />, { client, ...route });
    expect(await screen.findByRole('heading', { name: 'No clicks in the last 30 days' })).toBeInTheDocument();
    // Days and hours are the browser's time zone's.
    expect(statsQuery).toHaveBeenLastCalledWith(
      { id: 'lnk_1', from: null, interval: 'DAY', timezone: 'America/Los_Angeles', includeBots: false },
      expect.anything(),
    );

    await user.selectOptions(screen.getByLabelText('Period'), '7d');
    await waitFor(() => expect(statsQuery).toHaveBeenLastCalledWith(expect.objectContaining({ interval: 'DAY', from: expect.any(String) }), expect.anything()));
    const from = new Date(statsQuery.mock.lastCall?.[0].from as string).getTime();
    expect(Math.abs(Date.now() - 7 * 86_400_000 - from)).toBeLessThan(60_000);
    await user.selectOptions(screen.getByLabelText('Period'), '24h');
    await waitFor(() => expect(statsQuery).toHaveBeenLastCalledWith(expect.objectContaining({ interval: 'HOUR', from: null }), expect.anything()));
    expect(await screen.findByRole('heading', { name: 'No clicks in the last 24 hours' })).toBeInTheDocument();
    await user.click(screen.getByLabelText('Include bots'));
    await waitFor(() => expect(statsQuery).toHaveBeenLastCalledWith(expect.objectContaining({ includeBots: true }), expect.anything()));
    expect(statsQuery.mock.calls.every(([v]) => v.timezone === 'America/Los_Angeles')).toBe(true);
  });

  it("labels the chart with the dates and hours of the browser's time zone", async () => {
    const user = userEvent.setup();
    inTimeZone('Asia/Kolkata');
    // Kolkata's 30 March starts at 18:30 UTC on 29 March: the label is the local date.
    const days = stats({
      timezone: 'Asia/Kolkata',
      clicks: 3,
      timeseries: [
        { __typename: 'StatsBucket', start: '2025-03-28T18:30:00.000Z', localStart: '2025-03-29T00:00:00.000+05:30', clicks: 1 },
        { __typename: 'StatsBucket', start: '2025-03-29T18:30:00.000Z', localStart: '2025-03-30T00:00:00.000+05:30', clicks: 2 },
      ],
    });
    const hours = stats({
      interval: 'HOUR',
      timezone: 'Asia/Kolkata',
      clicks: 2,
      timeseries: [
        { __typename: 'StatsBucket', start: '2025-03-29T17:30:00.000Z', localStart: '2025-03-29T23:00:00.000+05:30', clicks: 0 },
        { __typename: 'StatsBucket', start: '2025-03-29T18:30:00.000Z', localStart: '2025-03-30T00:00:00.000+05:30', clicks: 2 },
      ],
    });
    const statsQuery = vi.fn((v: Record<string, unknown>) => ({ data: { linkStats: v.interval === 'HOUR' ? hours : days } }));
    const { client } = setup({ LinkStats: statsQuery });
    renderWithClient(<LinkDetailPage />, { client, ...route });

    const chart = await screen.findByRole('img', { name: /^Clicks per day, last 30 days: 3 clicks, most on Mar 30 \(2 clicks\)\.$/ });
    expect(chart.querySelectorAll('rect')[1]?.querySelector('title')).toHaveTextContent('Mar 30: 2 clicks');
    expect(screen.getByTestId('chart-timezone')).toHaveTextContent('Asia/Kolkata');
    expect(statsQuery).toHaveBeenLastCalledWith(expect.objectContaining({ interval: 'DAY', timezone: 'Asia/Kolkata' }), expect.anything());

    await user.selectOptions(screen.getByLabelText('Period'), '24h');
    const hourly = await screen.findByRole('img', { name: /^Clicks per hour, last 24 hours: 2 clicks, most on 00:00 \(2 clicks\)\.$/ });
    expect(hourly.querySelectorAll('rect')[0]?.querySelector('title')).toHaveTextContent('23:00: 0 clicks');
    expect(statsQuery).toHaveBeenLastCalledWith(expect.objectContaining({ interval: 'HOUR', timezone: 'Asia/Kolkata' }), expect.anything());
  });

  it('edits the link, sending only what changed (an emptied expiry is cleared)', async () => {
    const user = userEvent.setup();
    let current = link({ expiresAt: '2099-01-01T00:00:00.000Z', passwordProtected: true, title: 'Launch day' });
    const update = vi.fn((v: Record<string, unknown>) => {
      const input = v.input as { title?: string };
      current = { ...current, ...input, expiresAt: null, passwordProtected: false };
      return { data: { updateLink: current } };
    });
    const { client } = setup({ Link: () => ({ data: { link: { ...current, metadata: {} } } }), UpdateLink: update });
    renderWithClient(<LinkDetailPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    const dialog = await screen.findByRole('dialog', { name: 'Edit launch' });
    expect(within(dialog).getByLabelText('Destination URL')).toHaveValue('https://example.com/launch');
    // Options in use open "More options" by themselves.
    expect(within(dialog).getByRole('button', { name: /More options/ })).toHaveAttribute('aria-expanded', 'true');
    expect(within(dialog).getByLabelText(/^New password/)).toHaveAccessibleDescription('Leave it empty to keep the current password.');

    await user.clear(within(dialog).getByLabelText(/^Title/));
    await user.type(within(dialog).getByLabelText(/^Title/), 'Launch week');
    await user.clear(within(dialog).getByLabelText(/^Expires at/));
    await user.click(within(dialog).getByLabelText('Remove the password'));
    expect(within(dialog).getByLabelText(/^New password/)).toBeDisabled();
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(update).toHaveBeenCalledWith({ id: 'lnk_1', input: { title: 'Launch week', expiresAt: null, password: null } }, expect.anything());
    expect(screen.getByTestId('toast')).toHaveTextContent('Link launch saved');
  });

  it('saves a new title of an expired link; a past expiry typed in is refused, announced and focused', async () => {
    const user = userEvent.setup();
    const expired = link({ expiresAt: '2025-01-02T00:00:00.000Z' });
    const update = vi.fn((v: Record<string, unknown>) => ({ data: { updateLink: { ...expired, ...(v.input as object) } } }));
    const { client } = setup({ Link: () => ({ data: { link: { ...expired, metadata: {} } } }), UpdateLink: update });
    renderWithClient(<LinkDetailPage />, { client, ...route });

    await user.click(await screen.findByRole('button', { name: 'Edit' }));
    let dialog = await screen.findByRole('dialog', { name: 'Edit launch' });
    await user.clear(within(dialog).getByLabelText(/^Title/));
    await user.type(within(dialog).getByLabelText(/^Title/), 'Launch week');
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(screen.queryByText('Choose a time in the future.')).not.toBeInTheDocument();
    expect(update).toHaveBeenCalledWith({ id: 'lnk_1', input: { title: 'Launch week' } }, expect.anything());

    // Changing the expiry to another past time is refused before anything is sent.
    await user.click(screen.getByRole('button', { name: 'Edit' }));
    dialog = await screen.findByRole('dialog', { name: 'Edit launch' });
    const expires = within(dialog).getByLabelText(/^Expires at/);
    await user.clear(expires);
    await user.type(expires, '2025-01-03T10:00');
    await user.click(within(dialog).getByRole('button', { name: 'Save changes' }));
    const error = await within(dialog).findByText('Choose a time in the future.');
    expect(error).toHaveAttribute('role', 'alert');
    expect(expires).toHaveAttribute('aria-invalid', 'true');
    expect(expires).toHaveAccessibleDescription(/Choose a time in the future\./);
    await waitFor(() => expect(expires).toHaveFocus());
    expect(update).toHaveBeenCalledTimes(1);
  });

  it('archives after confirming, and deletes then goes back to the list', async () => {
    const user = userEvent.setup();
    const update = vi.fn(() => ({ data: { updateLink: link({ archived: true }) } }));
    const del = vi.fn(() => ({ data: { deleteLink: { __typename: 'Link', id: 'lnk_1', slug: 'launch' } } }));
    const { client } = setup({ UpdateLink: update, DeleteLink: del });
    renderWithClient(<LinkDetailPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Archive' }));
    await user.click(within(await screen.findByRole('alertdialog', { name: 'Archive launch?' })).getByRole('button', { name: 'Archive link' }));
    await waitFor(() => expect(update).toHaveBeenCalledWith({ id: 'lnk_1', input: { archived: true } }, expect.anything()));

    await user.click(screen.getByRole('button', { name: 'Delete' }));
    const confirm = await screen.findByRole('alertdialog', { name: 'Delete launch?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete link' }));
    expect(await screen.findByTestId('elsewhere')).toBeInTheDocument();
    expect(del).toHaveBeenCalledWith({ id: 'lnk_1' }, expect.anything());
  });

  it('reloads the count, stats and clicks when this link is clicked, not when another one is', async () => {
    const events = makeSubject<MockResponse>();
    let clicks = 0;
    const linkQuery = vi.fn(() => detail({ clicks }));
    const statsQuery = vi.fn(() => ({ data: { linkStats: stats() } }));
    const { client } = setup({ Link: linkQuery, LinkStats: statsQuery, LinkEvents: () => events.source });
    renderWithClient(<LinkDetailPage />, { client, ...route });
    expect(await screen.findByTestId('link-clicks')).toHaveTextContent('0 clicks');
    await screen.findByRole('table', { name: 'Referrers' });
    const loads = { link: linkQuery.mock.calls.length, stats: statsQuery.mock.calls.length };

    act(() => events.next({ data: { events: { __typename: 'Event', id: 'evt_1', type: 'link.clicked', data: { link: { id: 'lnk_other' } } } } }));
    clicks = 1;
    act(() => events.next({ data: { events: { __typename: 'Event', id: 'evt_2', type: 'link.clicked', data: { click: {}, link: { id: 'lnk_1' } } } } }));
    await waitFor(() => expect(screen.getByTestId('link-clicks')).toHaveTextContent('1 click'));
    await waitFor(() => expect(statsQuery.mock.calls.length).toBe(loads.stats + 1));
    expect(linkQuery.mock.calls.length).toBe(loads.link + 1);
  });

  it('says plainly when the link does not exist', async () => {
    const { client } = setup({ Link: () => ({ errors: [{ message: 'link not found', extensions: { code: 'NOT_FOUND' } }] }) });
    renderWithClient(<LinkDetailPage />, { client, ...route });
    expect(await screen.findByRole('alert')).toHaveTextContent('Link not found');
    expect(screen.queryByRole('button', { name: /try again/i })).not.toBeInTheDocument();
    expect(screen.getByRole('link', { name: 'Short links' })).toHaveAttribute('href', '/api/links');
  });
});

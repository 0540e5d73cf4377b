import { act, screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { Link as RouterLink, Route, Routes, useLocation, useNavigate } from 'react-router';
import { describe, expect, it, vi } from 'vitest';
import { makeSubject } from 'wonka';
import type { LinkFieldsFragment } from '../../graphql/generated';
import { mockClient, type Handler, type MockResponse } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { link, shortBase } from './fixtures';
import LinksPage from './LinksPage';

const route = { route: '/api/links', path: '/api/links' };
const noEvents = () => makeSubject<MockResponse>().source;
const toast = () => screen.getByTestId('toast');
const page = (nodes: LinkFieldsFragment[], hasMore = false, nextCursor: string | null = null) => ({
  data: { links: { __typename: 'LinkConnection', nodes, hasMore, nextCursor } },
});

function setup(handlers: Record<string, Handler>) {
  return mockClient({
    ShortLinkBase: () => ({ data: { shortLinkBase: shortBase } }),
    LinkEvents: noEvents,
    ...handlers,
  });
}

describe('LinksPage', () => {
  it('lists links with their short URL, destination, tags, state and clicks, and copies a short URL', async () => {
    const user = userEvent.setup();
    const { client } = setup({
      Links: () =>
        page([
          link({ clicks: 1234 }),
          link({ id: 'lnk_2', slug: 'old', title: '', tags: [], archived: true, passwordProtected: true, url: 'https://example.org/a/very/long/path' }),
        ]),
    });
    renderWithClient(<LinksPage />, { client, ...route });
    const table = await screen.findByRole('table', { name: 'Short links' });
    const [first, second] = within(table).getAllByRole('row').slice(1) as [HTMLElement, HTMLElement];
    expect(within(first).getByRole('link', { name: 'Launch day' })).toHaveAttribute('href', '/api/links/lnk_1');
    expect(within(first).getByText('sb.example.com/l/launch')).toBeInTheDocument();
    expect(within(first).getByText('example.com/launch')).toBeInTheDocument();
    expect(within(first).getByRole('button', { name: 'Show links tagged promo' })).toBeInTheDocument();
    expect(within(first).getByText('1,234')).toBeInTheDocument();
    // A link without a title is named by its slug; archived and password-protected show.
    expect(within(second).getByRole('link', { name: 'old' })).toBeInTheDocument();
    expect(within(second).getByText('Archived')).toBeInTheDocument();
    expect(within(second).getByText('Password')).toBeInTheDocument();
    expect(within(second).getByRole('button', { name: 'Restore old' })).toBeInTheDocument();

    await user.click(within(first).getByRole('button', { name: 'Copy short link launch' }));
    expect(await navigator.clipboard.readText()).toBe(`${shortBase}/launch`);
    expect(within(first).getByRole('button', { name: 'Copied short link launch' })).toBeInTheDocument();
  });

  it('creates a link with every option, and shows the server’s error under the field it names', async () => {
    const user = userEvent.setup();
    let links: LinkFieldsFragment[] = [];
    const create = vi.fn((v: Record<string, unknown>) => {
      const input = v.input as { slug?: string };
      if (input.slug === 'taken') {
        return { errors: [{ message: 'this slug is taken', extensions: { code: 'CONFLICT', reason: 'slug_taken', field: 'slug' } }] };
      }
      if ((input as { utm?: { source?: string } }).utm?.source === 'bad') {
        return { errors: [{ message: 'utm values are at most 200 characters', extensions: { code: 'INVALID', field: 'utm.source' } }] };
      }
      const created = link({ id: 'lnk_9', slug: input.slug ?? 'Ab3dE5f', title: 'Spring', tags: ['promo', 'q3'] });
      links = [created];
      return { data: { createLink: created } };
    });
    const { client } = setup({ Links: () => page(links), CreateLink: create });
    renderWithClient(<LinksPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'Create your first link' }));
    const dialog = await screen.findByRole('dialog', { name: 'New short link' });

    // Checked in the browser first: nothing is sent.
    await user.click(within(dialog).getByRole('button', { name: 'Create link' }));
    expect(within(dialog).getByLabelText('Destination URL')).toHaveAccessibleDescription(expect.stringContaining('Enter the URL visitors should go to'));
    await user.type(within(dialog).getByLabelText('Destination URL'), 'example.com');
    await user.click(within(dialog).getByRole('button', { name: 'Create link' }));
    expect(within(dialog).getByLabelText('Destination URL')).toHaveAccessibleDescription(expect.stringContaining('full http:// or https:// URL'));
    expect(create).not.toHaveBeenCalled();

    await user.clear(within(dialog).getByLabelText('Destination URL'));
    await user.type(within(dialog).getByLabelText('Destination URL'), 'https://example.com/spring');
    const slug = within(dialog).getByLabelText(/^Short link/);
    await user.type(slug, 'taken');
    expect(slug).toHaveAccessibleDescription(expect.stringContaining(`${shortBase}/taken`));
    await user.type(within(dialog).getByLabelText(/^Title/), 'Spring');
    await user.type(within(dialog).getByLabelText(/^Tags/), 'promo, q3, promo');

    // The advanced options are folded away until asked for.
    const more = within(dialog).getByRole('button', { name: /More options/ });
    expect(more).toHaveAttribute('aria-expanded', 'false');
    expect(within(dialog).getByLabelText(/^Expired URL/)).not.toBeVisible();
    await user.click(more);
    expect(more).toHaveAttribute('aria-expanded', 'true');
    await user.type(within(dialog).getByLabelText(/^Expires at/), '2099-12-31T23:30');
    await user.type(within(dialog).getByLabelText(/^Expired URL/), 'https://example.com/over');
    await user.type(within(dialog).getByLabelText(/^Click limit/), '500');
    await user.type(within(dialog).getByLabelText(/^Password/), 'hunter2');
    await user.selectOptions(within(dialog).getByLabelText('Redirect status'), '301');
    await user.type(within(dialog).getByLabelText(/^Source/), 'bad');
    await user.type(within(dialog).getByLabelText(/^Campaign/), 'spring');
    await user.type(within(dialog).getByLabelText(/^iOS URL/), 'https://apps.apple.com/app/x');
    await user.type(within(dialog).getByLabelText(/^Android URL/), 'https://play.google.com/store/apps/x');

    await user.click(within(dialog).getByRole('button', { name: 'Create link' }));
    await waitFor(() => expect(slug).toHaveAccessibleDescription(expect.stringContaining('this slug is taken')));
    await user.clear(slug);
    await user.type(slug, 'spring');
    await user.click(within(dialog).getByRole('button', { name: 'Create link' }));
    const source = within(dialog).getByLabelText(/^Source/);
    await waitFor(() => expect(source).toHaveAccessibleDescription('utm values are at most 200 characters'));
    expect(slug).not.toHaveAttribute('aria-invalid');
    await user.clear(source);
    await user.type(source, 'newsletter');
    await user.click(within(dialog).getByRole('button', { name: 'Create link' }));

    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument());
    expect(create).toHaveBeenLastCalledWith(
      {
        input: {
          url: 'https://example.com/spring',
          slug: 'spring',
          title: 'Spring',
          tags: ['promo', 'q3'],
          expiresAt: new Date('2099-12-31T23:30').toISOString(),
          expiredUrl: 'https://example.com/over',
          maxClicks: 500,
          password: 'hunter2',
          redirectStatus: 301,
          utm: { source: 'newsletter', campaign: 'spring' },
          iosUrl: 'https://apps.apple.com/app/x',
          androidUrl: 'https://play.google.com/store/apps/x',
        },
      },
      expect.anything(),
    );
    expect(toast()).toHaveTextContent(`Short link ${shortBase}/spring created`);
    expect(await screen.findByRole('link', { name: 'Spring' })).toBeInTheDocument();
  });

  it('sends only the URL when nothing else is filled in', async () => {
    const user = userEvent.setup();
    const create = vi.fn(() => ({ data: { createLink: link({ slug: 'Ab3dE5f' }) } }));
    const { client } = setup({ Links: () => page([link()]), CreateLink: create });
    renderWithClient(<LinksPage />, { client, ...route });
    await user.click(await screen.findByRole('button', { name: 'New link' }));
    const dialog = await screen.findByRole('dialog', { name: 'New short link' });
    expect(within(dialog).getByLabelText('Destination URL')).toHaveFocus();
    await user.keyboard('https://example.com/x{Enter}');
    await waitFor(() => expect(create).toHaveBeenCalledWith({ input: { url: 'https://example.com/x' } }, expect.anything()));
  });

  it('searches after a pause, filters by a tag and by status, and pages through the results', async () => {
    const user = userEvent.setup();
    const links = vi.fn((v: Record<string, unknown>) => {
      if (v.after === 'lnk_20') return page([link({ id: 'lnk_21', slug: 'twenty-one', title: '' })]);
      return page([link()], true, 'lnk_20');
    });
    const { client } = setup({ Links: links });
    renderWithClient(<LinksPage />, { client, ...route });
    await screen.findByRole('table', { name: 'Short links' });
    expect(links).toHaveBeenLastCalledWith(
      { search: null, tag: null, archived: false, sort: 'CREATED', first: 20, after: null },
      expect.anything(),
    );

    await user.type(screen.getByRole('searchbox', { name: 'Search' }), 'launch');
    await waitFor(() => expect(links).toHaveBeenLastCalledWith(expect.objectContaining({ search: 'launch' }), expect.anything()));
    // One query for the words typed, not one per key.
    expect(links.mock.calls.filter(([v]) => typeof v.search === 'string' && v.search !== 'launch')).toHaveLength(0);

    await user.click(screen.getByRole('button', { name: 'Show links tagged promo' }));
    await waitFor(() => expect(links).toHaveBeenLastCalledWith(expect.objectContaining({ search: 'launch', tag: 'promo' }), expect.anything()));
    expect(screen.getByRole('button', { name: 'Show links tagged promo' })).toHaveAttribute('aria-pressed', 'true');
    expect(screen.getByLabelText('Tag')).toHaveValue('promo');

    await user.selectOptions(screen.getByLabelText('Status'), 'all');
    await waitFor(() => expect(links).toHaveBeenLastCalledWith(expect.objectContaining({ archived: null }), expect.anything()));
    await user.selectOptions(screen.getByLabelText('Sort'), 'clicks');
    await waitFor(() => expect(links).toHaveBeenLastCalledWith(expect.objectContaining({ sort: 'CLICKS' }), expect.anything()));

    const pager = screen.getByRole('navigation', { name: 'Pages of links' });
    expect(within(pager).getByRole('button', { name: 'Previous' })).toBeDisabled();
    await user.click(within(pager).getByRole('button', { name: 'Next' }));
    expect(await screen.findByRole('link', { name: 'twenty-one' })).toBeInTheDocument();
    expect(links).toHaveBeenLastCalledWith(expect.objectContaining({ after: 'lnk_20', tag: 'promo', sort: 'CLICKS' }), expect.anything());
    expect(within(pager).getByText('Page 2')).toBeInTheDocument();
    await user.click(within(pager).getByRole('button', { name: 'Previous' }));
    expect(await screen.findByRole('link', { name: 'Launch day' })).toBeInTheDocument();

    await user.click(screen.getByRole('button', { name: 'Clear filters' }));
    await waitFor(() =>
      expect(links).toHaveBeenLastCalledWith({ search: null, tag: null, archived: false, sort: 'CLICKS', first: 20, after: null }, expect.anything()),
    );
    expect(screen.getByRole('searchbox', { name: 'Search' })).toHaveValue('');
  });

  it('keeps the page in the URL: a reload or Back from a link shows the same page', async () => {
    const user = userEvent.setup();
    const links = vi.fn((v: Record<string, unknown>) => {
      if (v.after === 'lnk_20') return page([link({ id: 'lnk_21', slug: 'twenty-one', title: '' })], true, 'lnk_21');
      if (v.after === 'lnk_21') return page([link({ id: 'lnk_41', slug: 'forty-one', title: '' })]);
      return page([link()], true, 'lnk_20');
    });
    const { client } = setup({ Links: links });
    function Detail() {
      const navigate = useNavigate();
      return <button onClick={() => navigate(-1)}>Back</button>;
    }
    function Address() {
      return <output data-testid="address">{useLocation().search}</output>;
    }
    renderWithClient(
      <>
        <Routes>
          <Route path="/api/links" element={<LinksPage />} />
          <Route path="/api/links/:id" element={<Detail />} />
        </Routes>
        <Address />
      </>,
      { client, route: '/api/links?tag=promo' },
    );
    const pager = await screen.findByRole('navigation', { name: 'Pages of links' });
    await user.click(within(pager).getByRole('button', { name: 'Next' }));
    expect(await screen.findByRole('link', { name: 'twenty-one' })).toBeInTheDocument();
    expect(screen.getByTestId('address')).toHaveTextContent('?tag=promo&after=lnk_20');
    await user.click(within(screen.getByRole('navigation', { name: 'Pages of links' })).getByRole('button', { name: 'Next' }));
    expect(await screen.findByRole('link', { name: 'forty-one' })).toBeInTheDocument();
    expect(screen.getByTestId('address')).toHaveTextContent('?tag=promo&after=lnk_20&after=lnk_21');

    // Open a link from page 3, then come back: still page 3.
    await user.click(screen.getByRole('link', { name: 'forty-one' }));
    await user.click(await screen.findByRole('button', { name: 'Back' }));
    expect(await screen.findByRole('link', { name: 'forty-one' })).toBeInTheDocument();
    expect(within(screen.getByRole('navigation', { name: 'Pages of links' })).getByText('Page 3')).toBeInTheDocument();
    expect(links).toHaveBeenLastCalledWith(expect.objectContaining({ tag: 'promo', after: 'lnk_21' }), expect.anything());

    await user.click(within(screen.getByRole('navigation', { name: 'Pages of links' })).getByRole('button', { name: 'Previous' }));
    expect(await screen.findByRole('link', { name: 'twenty-one' })).toBeInTheDocument();
    expect(screen.getByTestId('address')).toHaveTextContent('?tag=promo&after=lnk_20');
    // Another filter starts again from page 1.
    await user.selectOptions(screen.getByLabelText('Status'), 'all');
    expect(screen.getByTestId('address')).toHaveTextContent('?tag=promo&status=all');
  });

  it('keeps the search box in step with the URL when the URL changes', async () => {
    const user = userEvent.setup();
    const { client } = setup({ Links: () => page([link()]) });
    renderWithClient(
      <>
        <LinksPage />
        <RouterLink to="/api/links">All links</RouterLink>
      </>,
      { client, route: '/api/links?q=launch&tag=promo' },
    );
    expect(await screen.findByRole('searchbox', { name: 'Search' })).toHaveValue('launch');
    expect(screen.getByLabelText('Tag')).toHaveValue('promo');
    await user.click(screen.getByRole('link', { name: 'All links' }));
    await waitFor(() => expect(screen.getByRole('searchbox', { name: 'Search' })).toHaveValue(''));
    expect(screen.getByLabelText('Tag')).toHaveValue('');
  });

  it('says when no link matches the filters, with a way back', async () => {
    const user = userEvent.setup();
    const { client } = setup({ Links: (v) => (v.search ? page([]) : page([link()])) });
    renderWithClient(<LinksPage />, { client, route: '/api/links?q=nothing', path: '/api/links' });
    expect(await screen.findByRole('heading', { name: 'No links match' })).toBeInTheDocument();
    expect(screen.getByText(/No link matches “nothing”/)).toBeInTheDocument();
    await user.click(within(screen.getByRole('heading', { name: 'No links match' }).parentElement as HTMLElement).getByRole('button', { name: 'Clear filters' }));
    expect(await screen.findByRole('table', { name: 'Short links' })).toBeInTheDocument();
  });

  it('archives and deletes only after confirming', async () => {
    const user = userEvent.setup();
    let links = [link()];
    const update = vi.fn((v: Record<string, unknown>) => ({ data: { updateLink: link({ archived: (v.input as { archived: boolean }).archived }) } }));
    const del = vi.fn(() => {
      links = [];
      return { data: { deleteLink: { __typename: 'Link', id: 'lnk_1', slug: 'launch' } } };
    });
    const { client } = setup({ Links: () => page(links), UpdateLink: update, DeleteLink: del });
    renderWithClient(<LinksPage />, { client, ...route });

    await user.click(await screen.findByRole('button', { name: 'Archive launch' }));
    let confirm = await screen.findByRole('alertdialog', { name: 'Archive launch?' });
    expect(confirm).toHaveTextContent('keeps redirecting');
    await user.click(within(confirm).getByRole('button', { name: 'Archive link' }));
    await waitFor(() => expect(update).toHaveBeenCalledWith({ id: 'lnk_1', input: { archived: true } }, expect.anything()));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(toast()).toHaveTextContent('Link launch archived');

    await user.click(screen.getByRole('button', { name: 'Delete launch' }));
    confirm = await screen.findByRole('alertdialog', { name: 'Delete launch?' });
    expect(confirm).toHaveTextContent('stays taken for 30 days');
    await user.click(within(confirm).getByRole('button', { name: 'Cancel' }));
    await waitFor(() => expect(screen.queryByRole('alertdialog')).not.toBeInTheDocument());
    expect(del).not.toHaveBeenCalled();
    expect(screen.getByRole('table', { name: 'Short links' })).toHaveTextContent('Launch day');

    await user.click(screen.getByRole('button', { name: 'Delete launch' }));
    confirm = await screen.findByRole('alertdialog', { name: 'Delete launch?' });
    await user.click(within(confirm).getByRole('button', { name: 'Delete link' }));
    await waitFor(() => expect(del).toHaveBeenCalledWith({ id: 'lnk_1' }, expect.anything()));
    expect(toast()).toHaveTextContent('Link launch deleted');
    expect(await screen.findByRole('heading', { name: 'No short links yet' })).toBeInTheDocument();
  });

  it('shows loading, then an error with a retry that loads the links', async () => {
    const user = userEvent.setup();
    let answer: (r: MockResponse) => void = () => {};
    const links = vi.fn(() => new Promise<MockResponse>((resolve) => (answer = resolve)));
    const { client } = setup({ Links: links });
    renderWithClient(<LinksPage />, { client, ...route });
    expect(await screen.findByText('Loading short links…')).toBeInTheDocument();
    act(() => answer({ errors: [{ message: 'this key lacks the links:read scope', extensions: { code: 'FORBIDDEN' } }] }));
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('Could not load short links');
    expect(alert).toHaveTextContent('this key lacks the links:read scope');
    const loads = links.mock.calls.length;
    await user.click(within(alert).getByRole('button', { name: 'Try again' }));
    await waitFor(() => expect(links.mock.calls.length).toBeGreaterThan(loads));
    act(() => answer(page([link()])));
    expect(await screen.findByRole('table', { name: 'Short links' })).toBeInTheDocument();
    expect(screen.queryByRole('alert')).not.toBeInTheDocument();
  });

  it('shows new clicks when their event arrives, subscribed to changes and clicks only (never link.listed)', async () => {
    const events = makeSubject<MockResponse>();
    let clicks = 0;
    const links = vi.fn(() => page([link({ clicks })]));
    const subscribed = vi.fn((v: Record<string, unknown>) => {
      expect(v.types).toEqual(['link.created', 'link.updated', 'link.deleted', 'link.clicked']);
      return events.source;
    });
    const { client } = setup({ Links: links, LinkEvents: subscribed });
    renderWithClient(<LinksPage />, { client, ...route });
    const table = await screen.findByRole('table', { name: 'Short links' });
    expect(subscribed).toHaveBeenCalled();
    const clicksCell = () => within(within(table).getAllByRole('row')[1] as HTMLElement).getAllByRole('cell')[3];
    expect(clicksCell()).toHaveTextContent(/^0$/);
    clicks = 1;
    act(() => events.next({ data: { events: { __typename: 'Event', id: 'evt_1', type: 'link.clicked', data: { link: { id: 'lnk_1' } } } } }));
    await waitFor(() => expect(clicksCell()).toHaveTextContent(/^1$/));
  });
});

import { screen, waitFor, within } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { mockClient } from '../../test/mockClient';
import { renderWithClient } from '../../test/render';
import { sampleDoc } from './fixtures';
import ReferencePage, { Reference } from './ReferencePage';

const ORIGIN = 'http://127.0.0.1:8080';

function op(name: string) {
  return screen.getAllByRole('region').find((r) => r.getAttribute('data-operation') === name)!;
}

// jsdom has no scrollIntoView; tests that check scrolling put a spy there.
const originalScrollIntoView = Element.prototype.scrollIntoView;

/** Opens the page at a fragment, as a bookmark or a shared link would. */
function atHash(hash: string) {
  window.history.replaceState(null, '', `/user/api/reference${hash}`);
}

afterEach(() => {
  atHash('');
  vi.unstubAllGlobals();
  Element.prototype.scrollIntoView = originalScrollIntoView;
});

describe('Reference', () => {
  it('shows Parameters, Request body, cURL and Responses for each operation', () => {
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });
    expect(screen.getByRole('heading', { level: 2, name: 'Models' })).toBeInTheDocument();

    const models = op('GET /api/v1/models');
    expect(within(models).getByRole('heading', { name: 'Parameters' })).toBeInTheDocument();
    expect(within(models).getByText('limit')).toBeInTheDocument();
    expect(within(models).getByRole('heading', { name: 'Request body' })).toBeInTheDocument();
    expect(within(models).getByText('No request body.')).toBeInTheDocument();
    expect(within(models).getByRole('heading', { name: 'cURL' })).toBeInTheDocument();
    expect(within(models).getByLabelText(/cURL example/)).toHaveTextContent(
      `curl ${ORIGIN}/api/v1/models \\ -H "Authorization: Bearer $SWITCHBOARD_API_KEY"`,
    );
    expect(within(models).getByRole('heading', { name: 'Responses' })).toBeInTheDocument();
    expect(within(models).getByText('The models')).toBeInTheDocument();
    expect(within(models).getByText('Missing or invalid key')).toBeInTheDocument();
    // The 200 schema is expanded: properties of the list with required marks.
    expect(within(models).getByText('array of Model')).toBeInTheDocument();
  });

  it('shows a request body with its schema and example', () => {
    atHash('#updateWebhook');
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });
    const update = op('PATCH /api/v1/webhooks/{id}');
    expect(within(update).getByText('Webhook id')).toBeInTheDocument();
    expect(within(update).getAllByText('required').length).toBeGreaterThanOrEqual(2);
    expect(within(update).getByText('Where to POST events')).toBeInTheDocument();
    expect(within(update).getByLabelText(/Example request body/)).toHaveTextContent('"https://example.com/hook"');
    expect(within(update).getByLabelText(/cURL example/)).toHaveTextContent("-X PATCH");
  });

  it('puts the pasted key in cURL, keeps it in sessionStorage, and Try it calls the API with it', async () => {
    const user = userEvent.setup();
    const fetchMock = vi.fn().mockResolvedValue(
      new Response(JSON.stringify({ object: 'list', data: [] }), {
        status: 200,
        headers: { 'content-type': 'application/json', 'x-request-id': 'req_1' },
      }),
    );
    vi.stubGlobal('fetch', fetchMock);
    const { client, calls } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });

    await user.type(screen.getByLabelText('API key for cURL and Try it'), 'sb_live_pasted');
    expect(sessionStorage.getItem('switchboard.reference.apiKey')).toBe('sb_live_pasted');
    const models = op('GET /api/v1/models');
    expect(within(models).getByLabelText(/cURL example/)).toHaveTextContent('Bearer sb_live_pasted');

    await user.click(within(models).getByRole('button', { name: 'Try it' }));
    await user.click(within(models).getByRole('button', { name: 'Send request' }));
    await waitFor(() => expect(within(models).getByTestId('tryit-status')).toHaveTextContent('200'));
    expect(fetchMock).toHaveBeenCalledWith(
      `${ORIGIN}/api/v1/models`,
      expect.objectContaining({ method: 'GET', credentials: 'omit', headers: expect.objectContaining({ Authorization: 'Bearer sb_live_pasted' }) }),
    );
    expect(within(models).getByText('req_1')).toBeInTheDocument();
    expect(within(models).getByLabelText('Response body')).toHaveTextContent('"object": "list"');
    // The key never goes to GraphQL.
    expect(calls).toHaveLength(0);
  });

  it('opens Try it in view, right under its button, with focus on Send so Enter sends', async () => {
    const user = userEvent.setup();
    const scrollIntoView = vi.fn();
    Element.prototype.scrollIntoView = scrollIntoView;
    const fetchMock = vi.fn().mockResolvedValue(new Response('{"object":"list","data":[]}', { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    sessionStorage.setItem('switchboard.reference.apiKey', 'sb_live_pasted');
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });

    const models = op('GET /api/v1/models');
    const toggle = within(models).getByRole('button', { name: 'Try it' });
    await user.click(toggle);
    const panel = within(models).getByRole('region', { name: 'Try GET /api/v1/models' });
    expect(toggle).toHaveAttribute('aria-expanded', 'true');
    expect(toggle).toHaveAttribute('aria-controls', panel.id);
    // The panel comes before the documentation of the operation, not after all of it.
    const parameters = within(models).getByRole('heading', { name: 'Parameters' });
    expect(panel.compareDocumentPosition(parameters) & Node.DOCUMENT_POSITION_FOLLOWING).toBeTruthy();
    expect(scrollIntoView.mock.contexts).toContain(panel);
    expect(within(panel).getByRole('button', { name: 'Send request' })).toHaveFocus();

    await user.keyboard('{Enter}');
    await waitFor(() => expect(within(panel).getByTestId('tryit-status')).toHaveTextContent('200'));
    expect(fetchMock).toHaveBeenCalledTimes(1);

    await user.click(within(models).getByRole('button', { name: 'Hide Try it' }));
    expect(within(models).queryByRole('region', { name: /^Try / })).not.toBeInTheDocument();
    expect(within(models).getByRole('button', { name: 'Try it' })).toHaveFocus();
  });

  it('asks for the key inside Try it when none was pasted, and focuses that field', async () => {
    const user = userEvent.setup();
    Element.prototype.scrollIntoView = vi.fn();
    const fetchMock = vi.fn().mockResolvedValue(new Response('{}', { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });

    const models = op('GET /api/v1/models');
    await user.click(within(models).getByRole('button', { name: 'Try it' }));
    const panel = within(models).getByRole('region', { name: 'Try GET /api/v1/models' });
    const keyField = within(panel).getByLabelText('API key');
    expect(keyField).toHaveFocus();
    expect(within(panel).getByRole('button', { name: 'Send request' })).toBeDisabled();
    await user.keyboard('sb_live_typed');
    // The same key as the field at the top of the page, kept for this tab.
    expect(screen.getByLabelText('API key for cURL and Try it')).toHaveValue('sb_live_typed');
    expect(within(panel).getByLabelText('API key')).toBeInTheDocument();
    // Enter in the field sends.
    await user.keyboard('{Enter}');
    await waitFor(() => expect(fetchMock).toHaveBeenCalledTimes(1));
    expect(fetchMock.mock.calls[0]![1]).toMatchObject({ headers: expect.objectContaining({ Authorization: 'Bearer sb_live_typed' }) });
  });

  it('focuses the first required parameter still empty when Try it opens', async () => {
    const user = userEvent.setup();
    Element.prototype.scrollIntoView = vi.fn();
    sessionStorage.setItem('switchboard.reference.apiKey', 'sb_live_pasted');
    atHash('#updateWebhook');
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });
    const update = op('PATCH /api/v1/webhooks/{id}');
    await user.click(within(update).getByRole('button', { name: 'Try it' }));
    const panel = within(update).getByRole('region', { name: 'Try PATCH /api/v1/webhooks/{id}' });
    expect(within(panel).getByRole('textbox', { name: /^id/ })).toHaveFocus();
  });

  it('filters operations and shows an empty state', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });
    await user.type(screen.getByLabelText('Filter operations'), 'nothing-like-this');
    expect(screen.getByText('No matching operations')).toBeInTheDocument();
  });
});

describe('Reference, one group at a time', () => {
  const toc = () => screen.getByRole('navigation', { name: 'API operations' });
  const rendered = () => screen.queryAllByRole('region').map((r) => r.getAttribute('data-operation')).filter(Boolean);

  it('renders only the first group when the URL names none; the table of contents lists every operation', () => {
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });
    expect(rendered()).toEqual(['GET /api/v1/models']);
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['Models']);
    expect(screen.getByText('Models the workspace can use.')).toBeInTheDocument();
    const links = within(toc()).getAllByRole('link').map((a) => a.getAttribute('href'));
    expect(links).toEqual(['#tag-Models', '#listModels', '#tag-Webhooks', '#updateWebhook', '#tag-Meta', '#getOpenAPI']);
    expect(within(toc()).getByRole('link', { name: 'Models' })).toHaveAttribute('aria-current', 'location');
    expect(within(toc()).getByRole('link', { name: 'Webhooks' })).not.toHaveAttribute('aria-current');
    // The next group is a link away at the end of this one.
    expect(screen.getByRole('link', { name: 'Next: Webhooks' })).toHaveAttribute('href', '#tag-Webhooks');
  });

  it("selects the group of the operation named in the URL and scrolls to it", () => {
    const scrollIntoView = vi.fn();
    Element.prototype.scrollIntoView = scrollIntoView;
    atHash('#updateWebhook');
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });
    expect(rendered()).toEqual(['PATCH /api/v1/webhooks/{id}']);
    expect(screen.getByRole('heading', { level: 2, name: 'Webhooks' })).toBeInTheDocument();
    expect(within(toc()).getByRole('link', { name: 'Webhooks' })).toHaveAttribute('aria-current', 'location');
    expect(scrollIntoView.mock.contexts).toContain(op('PATCH /api/v1/webhooks/{id}'));
    // Loading the page does not move focus.
    expect(document.activeElement).toBe(document.body);
  });

  it('a link in the table of contents renders its group, scrolls to the operation and focuses its heading', async () => {
    const user = userEvent.setup();
    const scrollIntoView = vi.fn();
    Element.prototype.scrollIntoView = scrollIntoView;
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });

    await user.click(within(toc()).getByRole('link', { name: /Update a webhook/ }));
    await waitFor(() => expect(rendered()).toEqual(['PATCH /api/v1/webhooks/{id}']));
    const update = op('PATCH /api/v1/webhooks/{id}');
    expect(scrollIntoView.mock.contexts).toContain(update);
    expect(within(update).getByRole('heading', { level: 3 })).toHaveFocus();
    expect(within(toc()).getByRole('link', { name: 'Webhooks' })).toHaveAttribute('aria-current', 'location');
    expect(within(toc()).getByRole('link', { name: 'Models' })).not.toHaveAttribute('aria-current');

    // A group's own link shows the group from its header.
    await user.click(within(toc()).getByRole('link', { name: 'Meta' }));
    await waitFor(() => expect(rendered()).toEqual(['GET /api/v1/openapi.json']));
    expect(screen.getByRole('heading', { level: 2, name: 'Meta' })).toHaveFocus();

    // Back and forward change the fragment the same way.
    window.location.hash = '#listModels';
    await waitFor(() => expect(rendered()).toEqual(['GET /api/v1/models']));
    expect(within(toc()).getByRole('link', { name: 'Models' })).toHaveAttribute('aria-current', 'location');
  });

  it('a filter searches every group and clearing it returns to the selected group', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });
    const box = screen.getByLabelText('Filter operations');

    await user.type(box, 'get');
    expect(rendered()).toEqual(['GET /api/v1/models', 'GET /api/v1/openapi.json']);
    expect(screen.getAllByRole('heading', { level: 2 }).map((h) => h.textContent)).toEqual(['Models', 'Meta']);
    expect(within(toc()).queryByRole('link', { name: /Update a webhook/ })).not.toBeInTheDocument();
    expect(within(toc()).queryByRole('link', { current: 'location' })).not.toBeInTheDocument();

    await user.clear(box);
    await user.type(box, 'webhook');
    expect(rendered()).toEqual(['PATCH /api/v1/webhooks/{id}']);

    await user.clear(box);
    expect(rendered()).toEqual(['GET /api/v1/models']);
    expect(within(toc()).getAllByRole('link')).toHaveLength(6);
  });
});

describe('ReferencePage', () => {
  it('loads the document at run time and shows an error state with retry', async () => {
    const fetchMock = vi
      .fn()
      .mockResolvedValueOnce(new Response('nope', { status: 503 }))
      .mockResolvedValueOnce(new Response(JSON.stringify(sampleDoc), { status: 200 }));
    vi.stubGlobal('fetch', fetchMock);
    const { client } = mockClient({});
    renderWithClient(<ReferencePage />, { client });
    expect(screen.getByRole('status')).toHaveTextContent(/loading the api description/i);
    const alert = await screen.findByRole('alert');
    expect(alert).toHaveTextContent('HTTP 503');
    await userEvent.click(within(alert).getByRole('button', { name: /try again/i }));
    expect(await screen.findByRole('heading', { level: 2, name: 'Models' })).toBeInTheDocument();
    expect(fetchMock).toHaveBeenCalledWith('/api/v1/openapi.json', expect.anything());
  });
});

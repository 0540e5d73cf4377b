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

afterEach(() => vi.unstubAllGlobals());

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

  it('filters operations and shows an empty state', async () => {
    const user = userEvent.setup();
    const { client } = mockClient({});
    renderWithClient(<Reference doc={sampleDoc} origin={ORIGIN} />, { client });
    await user.type(screen.getByLabelText('Filter operations'), 'nothing-like-this');
    expect(screen.getByText('No matching operations')).toBeInTheDocument();
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

import { describe, expect, it } from 'vitest';
import { buildCurl, buildURL } from './curl';
import { sampleDoc } from './fixtures';
import { exampleFor, groupOperations, typeLabel } from './openapi';

describe('groupOperations', () => {
  it('groups by tag in document order, resolves $ref parameters and merges path-level ones', () => {
    const groups = groupOperations(sampleDoc);
    expect(groups.map((g) => g.name)).toEqual(['Models', 'Webhooks', 'Meta']);
    const list = groups[0]!.operations[0]!;
    expect(list).toMatchObject({ id: 'listModels', method: 'get', path: '/api/v1/models', requiresAuth: true });
    expect(list.parameters.map((p) => p.name)).toEqual(['limit']);
    expect(list.responses.map((r) => r.status)).toEqual(['200', '401']);
    expect(list.responses[1]!.response.description).toBe('Missing or invalid key');
    const update = groups[1]!.operations[0]!;
    expect(update.parameters).toEqual([expect.objectContaining({ name: 'id', in: 'path', required: true })]);
    expect(groups[2]!.operations[0]!.requiresAuth).toBe(false);
  });
});

describe('schemas', () => {
  it('labels types', () => {
    expect(typeLabel(sampleDoc, { $ref: '#/components/schemas/Model' })).toBe('Model');
    expect(typeLabel(sampleDoc, { type: 'array', items: { $ref: '#/components/schemas/Model' } })).toBe('array of Model');
    expect(typeLabel(sampleDoc, { type: ['string', 'null'] })).toBe('string | null');
    expect(typeLabel(sampleDoc, { type: 'string', format: 'uri' })).toBe('string (uri)');
  });
  it('makes examples from schemas, using given examples', () => {
    expect(exampleFor(sampleDoc, { $ref: '#/components/schemas/ModelList' })).toEqual({
      object: 'list',
      data: [{ id: 'gpt-4o-mini', object: 'model', created: 1700000000, owned_by: 'switchboard' }],
    });
  });
});

describe('cURL', () => {
  it('uses the base URL, the key and fills path and query parameters', () => {
    const values = { path: { id: 'wh_1' }, query: { limit: '5' }, headers: {}, body: '{"url":"https://x.example"}' };
    const op = { method: 'patch' as const, path: '/api/v1/webhooks/{id}', requiresAuth: true };
    expect(buildURL('http://127.0.0.1:8080', op, values)).toBe('http://127.0.0.1:8080/api/v1/webhooks/wh_1?limit=5');
    expect(buildCurl('http://127.0.0.1:8080', op, 'sb_live_key', values)).toBe(
      [
        "curl -X PATCH 'http://127.0.0.1:8080/api/v1/webhooks/wh_1?limit=5'",
        '-H "Authorization: Bearer sb_live_key"',
        '-H Content-Type:\\ application/json'.replace('Content-Type:\\ application/json', "'Content-Type: application/json'"),
        `-d '{"url":"https://x.example"}'`,
      ].join(' \\\n  '),
    );
  });
  it('leaves a shell variable for the key when none is chosen', () => {
    const curl = buildCurl('https://sb.example', { method: 'get', path: '/api/v1/models', requiresAuth: true }, '$SWITCHBOARD_API_KEY', {
      path: {},
      query: {},
      headers: {},
    });
    expect(curl).toBe('curl https://sb.example/api/v1/models \\\n  -H "Authorization: Bearer $SWITCHBOARD_API_KEY"');
  });
});

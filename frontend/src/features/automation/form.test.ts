import { CombinedError } from 'urql';
import { describe, expect, it } from 'vitest';
import { action, endpoint } from './fixtures';
import { actionOf, defaultSample, toCreateInput, toFormErrors, toUpdateInput, validateEndpoint, valuesFrom } from './form';
import { previewRows } from './preview';

const blank = valuesFrom(null);
const link = { ...blank, name: 'Orders', actionType: 'CREATE_LINK' as const, url: '{{payload.url}}' };

describe('endpoint form', () => {
  it('needs a name, a JSON Schema that is an object, and the fields its action needs', () => {
    expect(validateEndpoint({ ...blank, name: 'Orders' })).toEqual({});
    expect(validateEndpoint(blank).name).toMatch(/Enter a name/);
    expect(validateEndpoint({ ...blank, name: 'x'.repeat(201) }).name).toMatch(/200/);
    expect(validateEndpoint({ ...blank, name: 'x', schema: '{"type": "object",}' }).schema).toMatch(/not valid JSON/);
    expect(validateEndpoint({ ...blank, name: 'x', schema: '[1]' }).schema).toMatch(/is an object/);
    expect(validateEndpoint({ ...blank, name: 'x', schema: '{"type": "object"}' })).toEqual({});

    expect(validateEndpoint(link)).toEqual({});
    expect(validateEndpoint({ ...link, url: '' }).url).toMatch(/target/);
    expect(validateEndpoint({ ...link, title: '{{payload.a' }).title).toMatch(/Close every/);
    expect(validateEndpoint({ ...link, slug: '{{env.HOME}}' }).slug).toMatch(/cannot be read/);
    expect(validateEndpoint({ ...link, metadata: '{"n": 1}' }).metadata).toMatch(/object of text values/);
    expect(validateEndpoint({ ...link, metadata: '{"src": "{{nope}}"}' }).metadata).toMatch(/^src: /);

    const send = { ...blank, name: 'x', actionType: 'SEND_MESSAGE' as const };
    expect(validateEndpoint(send)).toMatchObject({ instanceId: expect.any(String), to: expect.any(String), text: expect.any(String) });
    expect(validateEndpoint({ ...send, instanceId: 'inst_1', to: '{{payload.phone}}', mediaUrl: '{{payload.img}}' })).toEqual({});

    const forward = { ...blank, name: 'x', actionType: 'FORWARD' as const };
    expect(validateEndpoint({ ...forward, targetUrl: 'ftp://example.com' }).targetUrl).toMatch(/http/);
    expect(validateEndpoint({ ...forward, targetUrl: 'https://example.com/in' })).toEqual({});
  });

  it('sends only what was set when creating, and only the action type’s fields', () => {
    expect(toCreateInput({ ...blank, name: ' Orders ' })).toEqual({ name: 'Orders' });
    expect(
      toCreateInput({
        ...link,
        verification: 'HEADER_TOKEN',
        enabled: false,
        schema: '{"type": "object"}',
        title: ' Order {{payload.id}} ',
        metadata: '{"src": "{{endpoint.name}}"}',
        to: 'left over from another type',
      }),
    ).toEqual({
      name: 'Orders',
      verification: 'HEADER_TOKEN',
      enabled: false,
      schema: { type: 'object' },
      action: { type: 'CREATE_LINK', url: '{{payload.url}}', title: 'Order {{payload.id}}', metadata: { src: '{{endpoint.name}}' } },
    });
    expect(actionOf({ ...blank, actionType: 'SEND_MESSAGE', instanceId: 'inst_1', to: '{{payload.to}}', text: ' Hi\n' })).toEqual({
      type: 'SEND_MESSAGE',
      instanceId: 'inst_1',
      to: '{{payload.to}}',
      text: ' Hi\n',
    });
  });

  it('sends only what changed when editing; an emptied schema or no action is null', () => {
    const e = endpoint({ schema: { type: 'object' }, action: action({ metadata: { src: '{{endpoint.name}}' } }) });
    const v = valuesFrom(e);
    expect(v.schema).toBe('{\n  "type": "object"\n}');
    expect(v.metadata).toBe('{\n  "src": "{{endpoint.name}}"\n}');
    expect(toUpdateInput(v, e)).toEqual({});
    expect(toUpdateInput({ ...v, schema: '{"type":"object"}' }, e)).toEqual({});
    expect(toUpdateInput({ ...v, name: 'Renamed', verification: 'STANDARD_WEBHOOKS', enabled: false }, e)).toEqual({
      name: 'Renamed',
      verification: 'STANDARD_WEBHOOKS',
      enabled: false,
    });
    expect(toUpdateInput({ ...v, schema: '', actionType: '' }, e)).toEqual({ schema: null, action: null });
    expect(toUpdateInput({ ...v, title: 'New {{payload.x}}' }, e)).toEqual({
      action: { type: 'CREATE_LINK', url: '{{payload.url}}', title: 'New {{payload.x}}', metadata: { src: '{{endpoint.name}}' } },
    });
  });

  it('puts server errors under the fields they name', () => {
    const err = (field: string) =>
      new CombinedError({ graphQLErrors: [{ message: `bad ${field}`, extensions: { code: 'INVALID', field } }] as never });
    expect(toFormErrors(err('action.url'))).toEqual({ url: 'bad action.url' });
    expect(toFormErrors(err('action.instanceId'))).toEqual({ instanceId: 'bad action.instanceId' });
    expect(toFormErrors(err('action.metadata.src'))).toEqual({ metadata: 'bad action.metadata.src' });
    expect(toFormErrors(err('schema'))).toEqual({ schema: 'bad schema' });
    expect(toFormErrors(err('somewhere.else'))).toEqual({ form: 'bad somewhere.else' });
  });

  it('previews each template field against the sample payload', () => {
    const v = { ...link, title: 'Order {{payload.order_id}} for {{payload.customer.email}}', metadata: '{"src": "{{endpoint.name}}"}' };
    const { rows, sampleError } = previewRows(v, defaultSample, { id: 'pub_1', name: 'Orders' });
    expect(sampleError).toBe('');
    expect(rows.map((r) => [r.label, r.result])).toEqual([
      ['Destination URL', { ok: true, value: 'https://example.com/orders/A-1001' }],
      ['Title', { ok: false, error: '{{payload.customer.email}}: the payload has no payload.customer.email' }],
      ['Metadata src', { ok: true, value: 'Orders' }],
    ]);
    expect(previewRows(v, '{', { id: 'pub_1', name: 'Orders' }).sampleError).toMatch(/not valid JSON/);
    expect(previewRows({ ...v, actionType: '' }, defaultSample, { id: 'pub_1', name: 'Orders' }).rows).toEqual([]);
  });
});

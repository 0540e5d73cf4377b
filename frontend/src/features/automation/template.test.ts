import { describe, expect, it } from 'vitest';
import { checkTemplate, goJSON, renderTemplate } from './template';

const scope = {
  payload: {
    order_id: 'A-1001',
    customer: { name: 'Ada', phone: '+15550100002', vip: true },
    items: [{ sku: 'SKU-1', qty: 2 }, { sku: 'SKU-2', qty: 1 }],
    total: 12.5,
    note: null,
    tags: ['a', 'b'],
  },
  endpoint: { id: 'pub_1', name: 'Orders' },
};
const render = (tpl: string) => renderTemplate(tpl, scope);

describe('templates, as the service renders them', () => {
  it('fills fields of the payload, list elements by index, and the endpoint’s id and name', () => {
    expect(render('Hi {{payload.customer.name}}, order {{payload.order_id}}')).toEqual({ ok: true, value: 'Hi Ada, order A-1001' });
    expect(render('{{payload.items.0.sku}}/{{payload.items.1.qty}}')).toEqual({ ok: true, value: 'SKU-1/1' });
    expect(render('{{endpoint.id}} {{endpoint.name}}')).toEqual({ ok: true, value: 'pub_1 Orders' });
    expect(render('{{ payload.order_id }}')).toEqual({ ok: true, value: 'A-1001' });
    expect(render('no holes')).toEqual({ ok: true, value: 'no holes' });
  });

  it('writes values that are not text as JSON, as Go does', () => {
    expect(render('{{payload.total}}')).toEqual({ ok: true, value: '12.5' });
    expect(render('{{payload.customer.vip}}')).toEqual({ ok: true, value: 'true' });
    expect(render('{{payload.tags}}')).toEqual({ ok: true, value: '["a","b"]' });
    // Keys sorted, <, > and & escaped.
    expect(render('{{payload.customer}}')).toEqual({ ok: true, value: '{"name":"Ada","phone":"+15550100002","vip":true}' });
    expect(goJSON({ b: '<a&b>', a: [1, null] })).toBe('{"a":[1,null],"b":"\\u003ca\\u0026b\\u003e"}');
  });

  it('says which field is missing rather than rendering an empty string', () => {
    expect(render('{{payload.customer.email}}')).toEqual({ ok: false, error: '{{payload.customer.email}}: the payload has no payload.customer.email' });
    expect(render('{{payload.items.5.sku}}')).toEqual({ ok: false, error: '{{payload.items.5.sku}}: the payload has no payload.items.5' });
    expect(render('{{payload.items.x}}')).toEqual({ ok: false, error: '{{payload.items.x}}: the payload has no payload.items.x' });
    expect(render('{{payload.items.-1}}')).toEqual({ ok: false, error: '{{payload.items.-1}}: the payload has no payload.items.-1' });
    expect(render('{{payload.order_id.x}}')).toEqual({ ok: false, error: '{{payload.order_id.x}}: payload.order_id is not an object or a list' });
    expect(render('{{payload.note}}')).toEqual({ ok: false, error: "{{payload.note}}: the payload's value is null" });
    expect(render('{{secrets.key}}')).toEqual({ ok: false, error: '{{secrets.key}}: templates read payload.<field> or endpoint.id / endpoint.name' });
    expect(render('Hi {{payload.customer.name')).toEqual({ ok: false, error: 'unclosed {{ in "Hi {{payload.customer.name"' });
    // A payload that is a list or a bare value.
    expect(renderTemplate('{{payload.1}}', { ...scope, payload: ['x', 'y'] })).toEqual({ ok: true, value: 'y' });
    expect(renderTemplate('{{payload.a}}', { ...scope, payload: 'text' })).toEqual({ ok: false, error: '{{payload.a}}: payload is not an object or a list' });
  });

  it('refuses, before saving, templates that could never render', () => {
    expect(checkTemplate('{{payload.a}} and {{endpoint.name}}')).toBeNull();
    expect(checkTemplate('plain')).toBeNull();
    expect(checkTemplate('{{payload.a')).toMatch(/Close every \{\{/);
    expect(checkTemplate('{{env.HOME}}')).toMatch(/\{\{env\.HOME\}\} cannot be read/);
    expect(checkTemplate('{{endpoint.token}}')).toMatch(/cannot be read/);
    expect(checkTemplate('x'.repeat(4097))).toMatch(/at most 4096 bytes/);
  });
});

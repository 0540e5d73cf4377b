import { CombinedError } from 'urql';
import { describe, expect, it } from 'vitest';
import { link } from './fixtures';
import { fromLocalInput, hasAdvanced, parseTags, toCreateInput, toFormErrors, toLocalInput, toUpdateInput, validateLink, valuesFrom } from './form';

const now = new Date('2025-06-01T12:00:00Z').getTime();

describe('link form', () => {
  it('round-trips datetime-local values through ISO times', () => {
    const local = toLocalInput('2025-07-04T18:30:00.000Z');
    expect(local).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}$/);
    expect(fromLocalInput(local)).toBe('2025-07-04T18:30:00.000Z');
    expect(toLocalInput(null)).toBe('');
    expect(fromLocalInput('')).toBeNull();
  });

  it('reads tags separated by commas', () => {
    expect(parseTags(' promo, q3,,promo , ')).toEqual(['promo', 'q3']);
  });

  it('checks URLs, slugs, click limits and expiry before sending', () => {
    const v = { ...valuesFrom(null), url: 'https://example.com' };
    expect(validateLink(v, now)).toEqual({});
    expect(validateLink({ ...v, url: '' }, now).url).toMatch(/Enter the URL/);
    expect(validateLink({ ...v, url: 'ftp://example.com' }, now).url).toMatch(/http/);
    expect(validateLink({ ...v, slug: 'a b' }, now).slug).toMatch(/letters, digits/);
    expect(validateLink({ ...v, slug: 'ab' }, now).slug).toBeDefined();
    expect(validateLink({ ...v, slug: 'Launch_2025-x' }, now).slug).toBeUndefined();
    expect(validateLink({ ...v, maxClicks: '0' }, now).maxClicks).toBeDefined();
    expect(validateLink({ ...v, maxClicks: '2.5' }, now).maxClicks).toBeDefined();
    expect(validateLink({ ...v, expiredUrl: 'nope', iosUrl: 'itms://x', androidUrl: 'https://play.google.com' }, now)).toEqual({
      expiredUrl: expect.any(String),
      iosUrl: expect.any(String),
    });
    expect(validateLink({ ...v, expiresAt: toLocalInput('2025-05-01T00:00:00Z') }, now).expiresAt).toMatch(/future/);
  });

  it('creates with only what was filled in', () => {
    expect(toCreateInput({ ...valuesFrom(null), url: ' https://example.com/x ', utmMedium: 'email' })).toEqual({
      url: 'https://example.com/x',
      utm: { medium: 'email' },
    });
  });

  it('updates only what changed; emptied fields are cleared with null', () => {
    const l = link({ expiredUrl: 'https://example.com/over', maxClicks: 10, iosUrl: 'https://apps.apple.com/x', tags: ['a', 'b'] });
    const v = valuesFrom(l);
    expect(toUpdateInput(v, l)).toEqual({});
    expect(hasAdvanced(v)).toBe(true);
    expect(hasAdvanced(valuesFrom(link()))).toBe(false);
    expect(toUpdateInput({ ...v, expiredUrl: '', maxClicks: '', iosUrl: ' ', tags: 'b, a', utmSource: 'x' }, l)).toEqual({
      expiredUrl: null,
      maxClicks: null,
      iosUrl: null,
      tags: ['b', 'a'],
      utm: { source: 'x', medium: '', campaign: '', term: '', content: '' },
    });
    expect(toUpdateInput({ ...v, password: 'new' }, l)).toEqual({ password: 'new' });
    expect(toUpdateInput({ ...v, password: 'new', removePassword: true }, l)).toEqual({ password: null });
  });

  it('puts server errors under the fields they name, the rest above the form', () => {
    const err = (extensions: Record<string, unknown>, message = 'bad') => new CombinedError({ graphQLErrors: [{ message, extensions }] });
    expect(toFormErrors(err({ code: 'INVALID', field: 'utm.campaign' }))).toEqual({ utmCampaign: 'bad' });
    expect(toFormErrors(err({ code: 'CONFLICT', field: 'slug', reason: 'slug_taken' }, 'taken'))).toEqual({ slug: 'taken' });
    expect(toFormErrors(err({ code: 'INVALID', field: 'metadata' }, 'metadata is a JSON object'))).toEqual({ form: 'metadata is a JSON object' });
    expect(toFormErrors(err({ code: 'FORBIDDEN' }, 'missing scope'))).toEqual({ form: 'missing scope' });
  });
});

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
    expect(validateLink(v, undefined, now)).toEqual({});
    expect(validateLink({ ...v, url: '' }, undefined, now).url).toMatch(/Enter the URL/);
    expect(validateLink({ ...v, url: 'ftp://example.com' }, undefined, now).url).toMatch(/http/);
    expect(validateLink({ ...v, slug: 'a b' }, undefined, now).slug).toMatch(/letters, digits/);
    expect(validateLink({ ...v, slug: 'ab' }, undefined, now).slug).toBeDefined();
    expect(validateLink({ ...v, slug: 'Launch_2025-x' }, undefined, now).slug).toBeUndefined();
    expect(validateLink({ ...v, maxClicks: '0' }, undefined, now).maxClicks).toBeDefined();
    expect(validateLink({ ...v, maxClicks: '2.5' }, undefined, now).maxClicks).toBeDefined();
    expect(validateLink({ ...v, expiredUrl: 'nope', iosUrl: 'itms://x', androidUrl: 'https://play.google.com' }, undefined, now)).toEqual({
      expiredUrl: expect.any(String),
      iosUrl: expect.any(String),
    });
    expect(validateLink({ ...v, expiresAt: toLocalInput('2025-05-01T00:00:00Z') }, undefined, now).expiresAt).toMatch(/future/);
  });

  it('refuses a past expiry only when it was set or changed in this edit', () => {
    const expired = valuesFrom(link({ expiresAt: '2025-05-01T00:00:00Z' }));
    // Saving another change of an expired link: the expiry it already had is not checked.
    expect(validateLink({ ...expired, title: 'New title' }, expired, now)).toEqual({});
    expect(validateLink({ ...expired, expiresAt: toLocalInput('2025-05-02T00:00:00Z') }, expired, now).expiresAt).toMatch(/future/);
    expect(validateLink({ ...expired, expiresAt: toLocalInput('2025-07-01T00:00:00Z') }, expired, now)).toEqual({});
    // A new link starts without an expiry: a past one typed in is refused.
    expect(validateLink({ ...expired }, valuesFrom(null), now).expiresAt).toMatch(/future/);
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
    expect(toFormErrors(err({ code: 'FORBIDDEN', field: 'password' }, 'not allowed'))).toEqual({ password: 'not allowed' });
    expect(toFormErrors(err({ code: 'INVALID', field: 'metadata' }, 'metadata is a JSON object'))).toEqual({ form: 'metadata is a JSON object' });
    expect(toFormErrors(err({ code: 'FORBIDDEN' }, 'missing scope'))).toEqual({ form: 'missing scope' });
  });
});

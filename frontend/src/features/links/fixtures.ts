import type { LinkClicksQuery, LinkFieldsFragment, LinkStatsQuery } from '../../graphql/generated';

const at = '2025-01-01T00:00:00.000Z';

export const shortBase = 'https://sb.example.com/l';

export function link(over: Partial<LinkFieldsFragment> = {}): LinkFieldsFragment {
  const slug = over.slug ?? 'launch';
  return {
    __typename: 'Link',
    id: 'lnk_1',
    slug,
    shortUrl: `${shortBase}/${slug}`,
    url: 'https://example.com/launch',
    title: 'Launch day',
    tags: ['promo'],
    expiresAt: null,
    expiredUrl: null,
    maxClicks: null,
    passwordProtected: false,
    redirectStatus: 302,
    externalId: null,
    utm: { __typename: 'LinkUtm', source: '', medium: '', campaign: '', term: '', content: '' },
    iosUrl: null,
    androidUrl: null,
    archived: false,
    clicks: 0,
    lastClickedAt: null,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

type Stats = LinkStatsQuery['linkStats'];

/** Stats of the last 3 days (short, to keep tests readable). */
export function stats(over: Partial<Stats> = {}): Stats {
  return {
    __typename: 'LinkStats',
    linkId: 'lnk_1',
    from: '2025-01-01T00:00:00.000Z',
    to: '2025-01-03T12:00:00.000Z',
    interval: 'DAY',
    timezone: 'UTC',
    includeBots: false,
    clicks: 5,
    uniques: 4,
    bots: 2,
    timeseries: [
      { __typename: 'StatsBucket', start: '2025-01-01T00:00:00.000Z', localStart: '2025-01-01T00:00:00.000Z', clicks: 1 },
      { __typename: 'StatsBucket', start: '2025-01-02T00:00:00.000Z', localStart: '2025-01-02T00:00:00.000Z', clicks: 0 },
      { __typename: 'StatsBucket', start: '2025-01-03T00:00:00.000Z', localStart: '2025-01-03T00:00:00.000Z', clicks: 4 },
    ],
    countries: [
      { __typename: 'StatsCount', value: 'DE', clicks: 3 },
      { __typename: 'StatsCount', value: 'unknown', clicks: 2 },
    ],
    devices: [{ __typename: 'StatsCount', value: 'mobile', clicks: 5 }],
    browsers: [{ __typename: 'StatsCount', value: 'Safari', clicks: 5 }],
    os: [{ __typename: 'StatsCount', value: 'iOS', clicks: 5 }],
    referrers: [
      { __typename: 'StatsCount', value: 'news.example.com', clicks: 4 },
      { __typename: 'StatsCount', value: 'direct', clicks: 1 },
    ],
    ...over,
  };
}

type Click = LinkClicksQuery['linkClicks']['nodes'][number];

export function click(over: Partial<Click> = {}): Click {
  return {
    __typename: 'LinkClick',
    id: 'clk_1',
    timestamp: '2025-01-03T10:00:00.000Z',
    referrer: 'https://news.example.com/post/1',
    referrerHost: 'news.example.com',
    browser: 'Safari',
    os: 'iOS',
    device: 'mobile',
    country: 'DE',
    bot: false,
    botReason: null,
    qr: false,
    ...over,
  };
}

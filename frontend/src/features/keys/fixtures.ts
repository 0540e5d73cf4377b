import type { ApiKeyFieldsFragment, ScopeCatalogQuery } from '../../graphql/generated';

export const catalog: ScopeCatalogQuery = {
  scopes: {
    __typename: 'ScopeCatalog',
    scopes: [
      { scope: 'models:read', description: 'List the models the workspace can use' },
      { scope: 'links:read', description: 'Read short links' },
      { scope: 'links:write', description: 'Create short links' },
      { scope: 'events:read', description: 'Read the event log' },
    ],
    presets: [
      { id: 'full_access', name: 'Full access', description: 'Every scope', scopes: ['*'] },
      { id: 'read_only', name: 'Read only', description: 'Read everything', scopes: ['models:read', 'links:read', 'events:read'] },
      { id: 'short_links', name: 'Short links', description: 'Links', scopes: ['links:read', 'links:write', 'events:read'] },
    ],
  },
};

export function apiKey(over: Partial<ApiKeyFieldsFragment> = {}): ApiKeyFieldsFragment {
  return {
    __typename: 'ApiKey',
    id: 'key_1',
    name: 'Production server',
    prefix: 'sb_live_AbCd',
    lastFour: 'wXyZ',
    scopes: ['*'],
    allowedOrigins: [],
    status: 'ACTIVE',
    createdAt: '2025-01-01T00:00:00.000Z',
    lastUsedAt: null,
    expiresAt: null,
    revokedAt: null,
    ...over,
  };
}

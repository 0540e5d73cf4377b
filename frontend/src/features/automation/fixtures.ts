import type { AutomationEndpointFieldsFragment, AutomationRunFieldsFragment } from '../../graphql/generated';

const at = '2025-01-01T00:00:00.000Z';

export const hooksBase = 'https://sb.example.com/hooks';

type Action = NonNullable<AutomationEndpointFieldsFragment['action']>;

export function action(over: Partial<Action> = {}): Action {
  return {
    __typename: 'AutomationAction',
    type: 'CREATE_LINK',
    instanceId: null,
    to: null,
    text: null,
    mediaUrl: null,
    url: '{{payload.url}}',
    slug: null,
    title: 'Order {{payload.order_id}}',
    metadata: null,
    targetUrl: null,
    ...over,
  };
}

export function endpoint(over: Partial<AutomationEndpointFieldsFragment> = {}): AutomationEndpointFieldsFragment {
  return {
    __typename: 'AutomationEndpoint',
    id: 'pub_1',
    name: 'New orders',
    url: `${hooksBase}/tok_abc123`,
    verification: 'NONE',
    schema: null,
    enabled: true,
    action: action(),
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

export function call(over: Partial<{ id: string; payload: unknown; receivedAt: string }> = {}) {
  return {
    __typename: 'AutomationCall' as const,
    id: 'evt_1',
    endpointId: 'pub_1',
    payload: { url: 'https://example.com/x', order_id: 'A-1' },
    receivedAt: at,
    ...over,
  };
}

export function run(over: Partial<AutomationRunFieldsFragment> = {}): AutomationRunFieldsFragment {
  return {
    __typename: 'AutomationRun',
    id: 'run_1',
    endpointId: 'pub_1',
    callId: 'evt_1',
    actionType: 'CREATE_LINK',
    status: 'succeeded',
    input: { url: 'https://example.com/x', title: 'Order A-1', slug: '', metadata: {} },
    output: { link_id: 'lnk_9', short_url: 'https://sb.example.com/l/Ab3dE5f' },
    error: null,
    attempts: 1,
    durationMs: 12,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

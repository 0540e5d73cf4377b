import { useMemo } from 'react';
import { useQuery } from 'urql';
import { ViewerDocument } from '../../graphql/generated';

/**
 * Whether the visitor of sign-in or sign-up is signed in already (then the page sends them on
 * to the console). Unknown (false) while the server has not said, so the form shows at once.
 */
export function useSignedIn(): boolean {
  // A signed-out visitor is what these pages expect, not an expired session to redirect.
  const context = useMemo(() => ({ authRedirect: false }), []);
  const [viewer] = useQuery({ query: ViewerDocument, requestPolicy: 'network-only', context });
  return !!viewer.data?.viewer.user;
}

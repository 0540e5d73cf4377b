import { SecretDialog } from '../../components/SecretDialog';
import type { AutomationEndpointFieldsFragment } from '../../graphql/generated';

/** A secret just made for an endpoint (by create, a new verification kind, or rotation). */
export interface ShownSecret {
  secret: string;
  endpoint: Pick<AutomationEndpointFieldsFragment, 'name' | 'url' | 'verification'>;
}

/** Shows an endpoint's verification secret once, saying how callers use it. */
export function EndpointSecretDialog({ shown, onClose }: { shown: ShownSecret | null; onClose: () => void }) {
  const header = shown?.endpoint.verification === 'HEADER_TOKEN';
  return (
    <SecretDialog
      secret={shown?.secret ?? null}
      title="Save your endpoint secret"
      label="Endpoint verification secret"
      warning={`Give this secret to the tool that calls ${shown?.endpoint.name ?? 'the endpoint'}. It will not be shown again.`}
      onClose={onClose}
    >
      {header ? (
        <p>
          Callers send it in an <code>X-Switchboard-Token</code> header with every POST to <code className="mono">{shown?.endpoint.url}</code>.
        </p>
      ) : (
        <p>
          Callers sign every POST to <code className="mono">{shown?.endpoint.url}</code> with it, as the Standard Webhooks
          libraries do (<code>webhook-id</code>, <code>webhook-timestamp</code> and <code>webhook-signature</code> headers).
        </p>
      )}
    </SecretDialog>
  );
}

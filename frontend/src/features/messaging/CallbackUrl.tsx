import { RefreshCw } from 'lucide-react';
import { useId, useState } from 'react';
import { useClient } from 'urql';
import { Button } from '../../components/Button';
import { CopyButton } from '../../components/CopyButton';
import { ConfirmDialog } from '../../components/Dialog';
import { RotateInstanceCallbackTokenDocument, type InstanceFieldsFragment } from '../../graphql/generated';
import { errorMessage } from '../../lib/errors';
import { callbackHint } from './channelConfig';
import styles from './Messaging.module.css';

const rotateConsequence: Record<string, string> = {
  telegram: 'A connected instance reconnects and registers the new URL with Telegram itself.',
  whatsapp_cloud: "Paste the new URL in Meta's webhook settings afterwards, or Meta's notifications stop arriving.",
};

/**
 * Where the instance's provider calls back: read-only, with Copy, what to do with it, and
 * Rotate URL (after a confirm) for when the old one leaked.
 */
export function CallbackUrl({ instance, onRotated }: { instance: InstanceFieldsFragment & { callbackUrl: string }; onRotated: (i: InstanceFieldsFragment) => void }) {
  const client = useClient();
  const id = useId();
  const [confirming, setConfirming] = useState(false);
  const url = instance.callbackUrl;
  return (
    <div className={styles.callback}>
      <label htmlFor={id} className={styles.callbackLabel}>
        Callback URL
      </label>
      <div className={styles.callbackRow}>
        <input id={id} className="input mono" readOnly value={url} aria-describedby={`${id}-hint`} onFocus={(e) => e.target.select()} />
        <CopyButton text={url} />
        <Button size="sm" icon={<RefreshCw size={14} aria-hidden="true" />} onClick={() => setConfirming(true)}>
          Rotate URL
        </Button>
      </div>
      <p id={`${id}-hint`} className={styles.checkHint}>
        {callbackHint(instance.channel)}
      </p>
      <ConfirmDialog
        open={confirming}
        onOpenChange={setConfirming}
        title={`Rotate the callback URL of ${instance.name}?`}
        description={`The current URL stops working at once. ${rotateConsequence[instance.channel] ?? 'Give the provider the new URL afterwards.'}`}
        confirmLabel="Rotate URL"
        onConfirm={async () => {
          const r = await client.mutation(RotateInstanceCallbackTokenDocument, { id: instance.id }).toPromise();
          if (!r.data) throw new Error(errorMessage(r.error));
          onRotated(r.data.rotateInstanceCallbackToken);
        }}
      />
    </div>
  );
}

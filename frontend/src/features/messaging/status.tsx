import { Check, CheckCheck, Clock, CircleAlert } from 'lucide-react';
import { Badge, type BadgeTone } from '../../components/Badge';
import styles from './Messaging.module.css';

const instanceTone: Record<string, BadgeTone> = {
  connected: 'green',
  connecting: 'blue',
  pairing: 'amber',
  failed: 'red',
  disconnected: 'neutral',
};

const instanceLabel: Record<string, string> = {
  connected: 'Connected',
  connecting: 'Connecting',
  pairing: 'Waiting for pairing',
  failed: 'Failed',
  disconnected: 'Disconnected',
};

/** An instance's connection status as a badge; a failure shows its reason. */
export function InstanceStatusBadge({ status, reason }: { status: string; reason?: string | null }) {
  return (
    <Badge tone={instanceTone[status] ?? 'neutral'} dot title={reason ?? undefined}>
      {instanceLabel[status] ?? status}
    </Badge>
  );
}

/**
 * The receipt of an outbound message: queued (clock), sent (one tick), delivered (two ticks),
 * read (two blue ticks), failed. The label is what a screen reader says.
 */
export function ReceiptTicks({ status, error }: { status: string; error?: string | null }) {
  const common = { size: 14, 'aria-hidden': true } as const;
  let icon = <Clock {...common} />;
  let label = 'Queued';
  let cls = styles.tick;
  switch (status) {
    case 'sent':
      icon = <Check {...common} />;
      label = 'Sent';
      break;
    case 'delivered':
      icon = <CheckCheck {...common} />;
      label = 'Delivered';
      break;
    case 'read':
      icon = <CheckCheck {...common} />;
      label = 'Read';
      cls = `${styles.tick} ${styles.read}`;
      break;
    case 'failed':
      icon = <CircleAlert {...common} />;
      label = error ? `Failed: ${error}` : 'Failed';
      cls = `${styles.tick} ${styles.failed}`;
      break;
  }
  return (
    <span className={cls} role="img" aria-label={label} title={label} data-status={status}>
      {icon}
    </span>
  );
}

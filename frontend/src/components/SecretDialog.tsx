import type { ReactNode } from 'react';
import { Button } from './Button';
import { CopyButton } from './CopyButton';
import { Dialog } from './Dialog';
import { Notice } from './States';
import styles from './SecretDialog.module.css';

/**
 * Shows a secret (an API key or a webhook signing secret) exactly once. The caller holds the
 * secret only while this dialog is open and drops it in onClose.
 */
export function SecretDialog({
  secret,
  title,
  label,
  warning,
  children,
  onClose,
}: {
  secret: string | null;
  title: string;
  label: string;
  warning: ReactNode;
  children?: ReactNode;
  onClose: () => void;
}) {
  return (
    <Dialog
      open={secret !== null}
      onOpenChange={(open) => !open && onClose()}
      title={title}
      description={warning}
      modalStrict
      wide
      footer={
        <Button variant="primary" onClick={onClose}>
          Done
        </Button>
      }
    >
      <Notice tone="warning">
        <strong>This is the only time the secret is shown.</strong> Copy it now and store it somewhere safe. If you lose
        it, create a new one.
      </Notice>
      <div className={styles.secret}>
        <output className={styles.value} aria-label={label} data-testid="secret-value">
          {secret}
        </output>
        <CopyButton text={secret ?? ''} size="md" focusOnOpen />
      </div>
      {children && <div className={styles.meta}>{children}</div>}
    </Dialog>
  );
}

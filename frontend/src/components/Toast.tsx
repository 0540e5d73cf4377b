import { CircleCheck, X } from 'lucide-react';
import styles from './Toast.module.css';

/**
 * A confirmation shown at the bottom of the screen after an action succeeds ("Key ci revoked").
 *
 * The live region (role=status) is always in the page, empty until there is a message, so
 * screen readers announce the message when it appears. It stays until dismissed or replaced:
 * nothing disappears on a timer before it could be read. Render it once per page and keep the
 * message in that page's state.
 */
export function Toast({ message, onDismiss }: { message: string; onDismiss: () => void }) {
  return (
    <div className={styles.viewport}>
      <div className={message ? styles.toast : styles.empty} data-testid="toast">
        {message && <CircleCheck size={16} aria-hidden="true" className={styles.icon} />}
        <p role="status" aria-live="polite" aria-atomic="true" className={styles.message}>
          {message}
        </p>
        {message && (
          <button type="button" className={styles.dismiss} aria-label="Dismiss message" onClick={onDismiss}>
            <X size={14} aria-hidden="true" />
          </button>
        )}
      </div>
    </div>
  );
}

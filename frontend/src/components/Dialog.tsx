import * as RadixDialog from '@radix-ui/react-dialog';
import * as RadixAlert from '@radix-ui/react-alert-dialog';
import { X } from 'lucide-react';
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Button } from './Button';
import { InlineError } from './States';
import styles from './Dialog.module.css';

export interface DialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description?: ReactNode;
  children?: ReactNode;
  footer?: ReactNode;
  wide?: boolean;
  /** Keep the dialog open when the user clicks outside it (Escape still closes). */
  modalStrict?: boolean;
  /** When set, the body and footer are wrapped in a form with this submit handler. */
  onSubmit?: (e: FormEvent<HTMLFormElement>) => void;
}

/** On open, focus [data-autofocus] or the first form field rather than the Close button. */
function focusFirstField(e: Event) {
  const content = e.currentTarget as HTMLElement | null;
  const target = content?.querySelector<HTMLElement>('[data-autofocus], input:not([type=hidden]), select, textarea');
  if (target) {
    e.preventDefault();
    target.focus();
  }
}

/** The element that last had focus outside every dialog. */
let lastFocusedOutside: HTMLElement | null = null;
if (typeof document !== 'undefined') {
  document.addEventListener(
    'focusin',
    (e) => {
      if (e.target instanceof HTMLElement && !e.target.closest('[role="dialog"], [role="alertdialog"]')) lastFocusedOutside = e.target;
    },
    true,
  );
}

/**
 * Radix gives focus back to a Dialog.Trigger only; these dialogs are opened from state, so
 * without this focus would fall to <body> on close. Remembers what had focus when the dialog
 * opened (or, for a dialog opened as another one closed, what had it before that one) and
 * focuses it again on close while it is still on the page.
 */
function useReturnFocus() {
  const opener = useRef<HTMLElement | null>(null);
  return {
    remember() {
      const active = document.activeElement;
      opener.current = active instanceof HTMLElement && active !== document.body && active.isConnected ? active : lastFocusedOutside;
    },
    restore(e: Event) {
      const target = opener.current;
      opener.current = null;
      if (target?.isConnected) {
        e.preventDefault();
        target.focus({ preventScroll: true });
      }
    },
  };
}

/** A modal dialog: traps focus, closes on Escape, returns focus to what had it before. */
export function Dialog({ open, onOpenChange, title, description, children, footer, wide, modalStrict, onSubmit }: DialogProps) {
  const returnFocus = useReturnFocus();
  const inner = (
    <>
      {children && <div className={styles.body}>{children}</div>}
      {footer && <div className={styles.footer}>{footer}</div>}
    </>
  );
  return (
    <RadixDialog.Root open={open} onOpenChange={onOpenChange}>
      <RadixDialog.Portal>
        <RadixDialog.Overlay className={styles.overlay} />
        <RadixDialog.Content
          className={`${styles.content} ${wide ? styles.wide : ''}`}
          onOpenAutoFocus={(e) => {
            returnFocus.remember();
            focusFirstField(e);
          }}
          onCloseAutoFocus={returnFocus.restore}
          onPointerDownOutside={modalStrict ? (e) => e.preventDefault() : undefined}
          onInteractOutside={modalStrict ? (e) => e.preventDefault() : undefined}
          {...(description ? {} : { 'aria-describedby': undefined })}
        >
          <div className={styles.header}>
            <div>
              <RadixDialog.Title className={styles.title}>{title}</RadixDialog.Title>
              {description && (
                <RadixDialog.Description className={styles.description}>{description}</RadixDialog.Description>
              )}
            </div>
            <RadixDialog.Close className={styles.close} aria-label="Close">
              <X size={16} aria-hidden="true" />
            </RadixDialog.Close>
          </div>
          {onSubmit ? (
            <form onSubmit={onSubmit} noValidate>
              {inner}
            </form>
          ) : (
            inner
          )}
        </RadixDialog.Content>
      </RadixDialog.Portal>
    </RadixDialog.Root>
  );
}

export interface ConfirmDialogProps {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  description: ReactNode;
  confirmLabel: string;
  danger?: boolean;
  /** Resolve to close; throw (or return an error message) to keep the dialog open and show it. */
  onConfirm: () => Promise<string | void>;
}

/** Asks before something irreversible. Focus starts on Cancel. */
export function ConfirmDialog({ open, onOpenChange, title, description, confirmLabel, danger, onConfirm }: ConfirmDialogProps) {
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState('');
  const returnFocus = useReturnFocus();
  const change = (next: boolean) => {
    if (busy) return;
    if (!next) setError('');
    onOpenChange(next);
  };
  const confirm = async () => {
    setBusy(true);
    setError('');
    try {
      const message = await onConfirm();
      if (message) {
        setError(message);
      } else {
        onOpenChange(false);
      }
    } catch (e) {
      setError(e instanceof Error ? e.message : String(e));
    } finally {
      setBusy(false);
    }
  };
  return (
    <RadixAlert.Root open={open} onOpenChange={change}>
      <RadixAlert.Portal>
        <RadixAlert.Overlay className={styles.overlay} />
        <RadixAlert.Content className={styles.content} onOpenAutoFocus={returnFocus.remember} onCloseAutoFocus={returnFocus.restore}>
          <div className={styles.header}>
            <div>
              <RadixAlert.Title className={styles.title}>{title}</RadixAlert.Title>
              <RadixAlert.Description className={styles.description}>{description}</RadixAlert.Description>
            </div>
          </div>
          {error && (
            <div className={styles.body}>
              <InlineError>{error}</InlineError>
            </div>
          )}
          <div className={styles.footer} style={{ marginTop: error ? 0 : 16 }}>
            <RadixAlert.Cancel asChild>
              <Button disabled={busy}>Cancel</Button>
            </RadixAlert.Cancel>
            <Button
              variant={danger ? 'danger' : 'primary'}
              loading={busy}
              onClick={(e) => {
                e.preventDefault();
                void confirm();
              }}
            >
              {confirmLabel}
            </Button>
          </div>
        </RadixAlert.Content>
      </RadixAlert.Portal>
    </RadixAlert.Root>
  );
}

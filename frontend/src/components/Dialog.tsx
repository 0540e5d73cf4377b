import * as RadixDialog from '@radix-ui/react-dialog';
import * as RadixAlert from '@radix-ui/react-alert-dialog';
import { X } from 'lucide-react';
import { useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Button } from './Button';
import { Form } from './Form';
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
  /**
   * When set, the body and footer are wrapped in a Form with this submit handler: after a
   * failed submit, focus moves to the first invalid field.
   */
  onSubmit?: (e: FormEvent<HTMLFormElement>) => unknown;
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
 * Where focus goes when what opened a dialog is gone (the Revoke button of a key just revoked,
 * the row of a link just deleted): the page's heading, else <main>, both focusable with
 * tabIndex=-1, so keyboard and screen-reader users stay in the page rather than on <body>.
 */
function pageFocusFallback(): HTMLElement | null {
  return document.querySelector<HTMLElement>('main h1[tabindex="-1"]') ?? document.querySelector<HTMLElement>('main[tabindex="-1"]');
}

/**
 * Focuses the opener again, or the page's heading when the opener is gone. An opener can also
 * go just after the dialog closed (the list is refetched after a delete), so until the user
 * moves focus or clicks, its removal moves focus to the heading too.
 */
function returnFocusTo(opener: HTMLElement | null) {
  if (!opener?.isConnected) {
    pageFocusFallback()?.focus();
    return;
  }
  opener.focus({ preventScroll: true });
  const observer = new MutationObserver(() => {
    if (opener.isConnected) return;
    stop();
    if (!document.activeElement || document.activeElement === document.body) pageFocusFallback()?.focus();
  });
  const onFocusIn = (e: FocusEvent) => {
    if (e.target !== opener) stop();
  };
  const stop = () => {
    observer.disconnect();
    document.removeEventListener('focusin', onFocusIn, true);
    document.removeEventListener('pointerdown', stop, true);
  };
  observer.observe(document.body, { childList: true, subtree: true });
  document.addEventListener('focusin', onFocusIn, true);
  document.addEventListener('pointerdown', stop, true);
}

/**
 * Radix gives focus back to a Dialog.Trigger only; these dialogs are opened from state, so
 * without this focus would fall to <body> on close. Remembers what had focus when the dialog
 * opened (or, for a dialog opened as another one closed, what had it before that one) and
 * focuses it again on close, or the page's heading when it is no longer on the page.
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
      e.preventDefault();
      returnFocusTo(target);
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
            <Form onSubmit={onSubmit}>{inner}</Form>
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

import { useEffect, useRef, useState, type FormEvent, type FormHTMLAttributes } from 'react';

/** What to fix first in a form: the first invalid field (aria-invalid), else the first error message (role=alert). */
function firstError(form: HTMLElement): HTMLElement | null {
  const candidates = form.querySelectorAll<HTMLElement>('[aria-invalid="true"], [role="alert"]');
  return [...candidates].find((el) => !el.closest('[hidden]')) ?? null;
}

/** Focuses firstError(form); an error message gets tabIndex -1 so it can take focus without joining the tab order. */
function focusFirstError(form: HTMLElement | null): void {
  const target = form ? firstError(form) : null;
  if (!target) return;
  if (target.getAttribute('role') === 'alert' && !target.hasAttribute('tabindex')) target.tabIndex = -1;
  // Centred, so the field's label above it and its message below it are in view too.
  target.focus({ preventScroll: true });
  target.scrollIntoView?.({ block: 'center' });
}

export type FormProps = Omit<FormHTMLAttributes<HTMLFormElement>, 'onSubmit'> & {
  /** May return a promise (a request): focus moves once it has settled. */
  onSubmit: (e: FormEvent<HTMLFormElement>) => unknown;
};

/**
 * A form (browser validation off: the console shows its own messages) that, after a submit
 * ending with errors on screen, moves focus to the first invalid field or else the form's
 * error message. Without it focus stays on the submit button, or falls to the dialog when
 * that button was disabled while the request ran, and nothing says what to fix.
 */
export function Form({ onSubmit, children, ...rest }: FormProps) {
  const ref = useRef<HTMLFormElement>(null);
  // Bumped after each submit; the effect runs once the errors it set are rendered.
  const [submits, setSubmits] = useState(0);
  useEffect(() => {
    if (submits) focusFirstError(ref.current);
  }, [submits]);

  const submit = async (e: FormEvent<HTMLFormElement>) => {
    e.preventDefault();
    try {
      await onSubmit(e);
    } finally {
      setSubmits((n) => n + 1);
    }
  };
  return (
    <form ref={ref} noValidate {...rest} onSubmit={(e) => void submit(e)}>
      {children}
    </form>
  );
}

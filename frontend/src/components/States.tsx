import type { ReactNode } from 'react';
import { AlertTriangle, CircleAlert, CircleCheck, Info, RotateCw } from 'lucide-react';
import type { CombinedError } from 'urql';
import { errorMessage } from '../lib/errors';
import { Button } from './Button';
import styles from './States.module.css';

export function Loading({ label = 'Loading…', rows }: { label?: string; rows?: number }) {
  if (rows) {
    return (
      <div className={styles.skeleton} role="status" aria-live="polite">
        <span className="visually-hidden">{label}</span>
        {Array.from({ length: rows }, (_, i) => (
          <div key={i} className={styles.bar} style={{ width: `${90 - ((i * 17) % 40)}%` }} />
        ))}
      </div>
    );
  }
  return (
    <div className={styles.loading} role="status" aria-live="polite">
      <span className={styles.spinner} aria-hidden="true" />
      {label}
    </div>
  );
}

export function EmptyState({
  icon,
  title,
  children,
  action,
  headingLevel = 2,
}: {
  icon?: ReactNode;
  title: string;
  children?: ReactNode;
  action?: ReactNode;
  headingLevel?: 2 | 3;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <div className={styles.state}>
      {icon && (
        <div className={styles.icon} aria-hidden="true">
          {icon}
        </div>
      )}
      <Heading>{title}</Heading>
      {children && <p>{children}</p>}
      {action && <div className={styles.actions}>{action}</div>}
    </div>
  );
}

export function ErrorState({
  error,
  title = 'Could not load this',
  onRetry,
  headingLevel = 2,
}: {
  error: CombinedError | Error | string;
  title?: string;
  onRetry?: () => void;
  headingLevel?: 2 | 3;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  const message = typeof error === 'string' ? error : errorMessage(error);
  return (
    <div className={styles.state} role="alert">
      <div className={`${styles.icon} ${styles.errorIcon}`} aria-hidden="true">
        <AlertTriangle size={20} />
      </div>
      <Heading>{title}</Heading>
      <p>{message}</p>
      {onRetry && (
        <div className={styles.actions}>
          <Button icon={<RotateCw size={14} />} onClick={onRetry}>
            Try again
          </Button>
        </div>
      )}
    </div>
  );
}

/** An error message; focusable (not in the tab order) so a failed submit can move focus to it. */
export function InlineError({ children, id }: { children: ReactNode; id?: string }) {
  if (!children) return null;
  return (
    <div className={styles.inlineError} role="alert" id={id} tabIndex={-1}>
      <CircleAlert size={16} aria-hidden="true" style={{ flexShrink: 0, marginTop: 2 }} />
      <div>{children}</div>
    </div>
  );
}

const noticeIcons = { info: Info, warning: AlertTriangle, success: CircleCheck };

/** A message in the flow of the page. role="status" when it confirms something that just happened. */
export function Notice({ tone = 'info', role, children }: { tone?: 'info' | 'warning' | 'success'; role?: 'status'; children: ReactNode }) {
  const Icon = noticeIcons[tone];
  return (
    <div className={`${styles.notice} ${styles[tone]}`} role={role}>
      <Icon size={16} aria-hidden="true" style={{ flexShrink: 0, marginTop: 2 }} />
      <div>{children}</div>
    </div>
  );
}

import { useEffect, type ReactNode } from 'react';
import styles from './PageHeader.module.css';

export function PageHeader({
  title,
  description,
  actions,
}: {
  title: string;
  description?: ReactNode;
  actions?: ReactNode;
}) {
  useEffect(() => {
    document.title = `${title} · Switchboard`;
  }, [title]);
  return (
    <div className={styles.header}>
      <div className={styles.heading}>
        {/* Focusable from script: where focus goes when a dialog's opener is gone. */}
        <h1 tabIndex={-1}>{title}</h1>
        {description && <p className={styles.description}>{description}</p>}
      </div>
      {actions && <div className={styles.actions}>{actions}</div>}
    </div>
  );
}

import type { ReactNode } from 'react';
import styles from './Badge.module.css';

export type BadgeTone = 'neutral' | 'green' | 'red' | 'amber' | 'blue' | 'purple';

export function Badge({
  tone = 'neutral',
  dot,
  mono,
  children,
  title,
}: {
  tone?: BadgeTone;
  dot?: boolean;
  mono?: boolean;
  children: ReactNode;
  title?: string;
}) {
  return (
    <span className={[styles.badge, styles[tone], mono ? styles.mono : ''].join(' ')} title={title}>
      {dot && <span className={styles.dot} aria-hidden="true" />}
      {children}
    </span>
  );
}

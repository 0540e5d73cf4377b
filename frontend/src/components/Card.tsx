import type { ReactNode } from 'react';
import styles from './Card.module.css';

export function Card({
  title,
  description,
  actions,
  children,
  flush,
  headingLevel = 2,
  id,
}: {
  title?: ReactNode;
  description?: ReactNode;
  actions?: ReactNode;
  children: ReactNode;
  flush?: boolean;
  headingLevel?: 2 | 3;
  id?: string;
}) {
  const Heading = headingLevel === 2 ? 'h2' : 'h3';
  return (
    <section className={styles.card} aria-labelledby={title && id ? `${id}-title` : undefined}>
      {(title || actions) && (
        <div className={styles.header}>
          <div className={styles.heading}>
            {title && <Heading id={id ? `${id}-title` : undefined}>{title}</Heading>}
            {description && <p>{description}</p>}
          </div>
          {actions && <div className={`row ${styles.actions}`}>{actions}</div>}
        </div>
      )}
      <div className={flush ? styles.flush : styles.body}>{children}</div>
    </section>
  );
}

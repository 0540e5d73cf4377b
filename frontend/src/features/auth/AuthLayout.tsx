import { useEffect, type ReactNode } from 'react';
import { Logo } from '../../components/Logo';
import styles from './AuthLayout.module.css';

export function AuthLayout({ title, subtitle, children, footer }: { title: string; subtitle: string; children: ReactNode; footer: ReactNode }) {
  useEffect(() => {
    document.title = `${title} · Switchboard`;
  }, [title]);
  return (
    <main className={styles.page}>
      <div className={styles.brand}>
        <Logo />
        <span>Switchboard</span>
      </div>
      <div className={styles.card}>
        <h1>{title}</h1>
        <p className={styles.sub}>{subtitle}</p>
        {children}
      </div>
      <p className={styles.switch}>{footer}</p>
    </main>
  );
}

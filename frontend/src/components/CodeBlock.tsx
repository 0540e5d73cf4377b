import { CopyButton } from './CopyButton';
import styles from './CodeBlock.module.css';

export function CodeBlock({ code, language, label, copy = true }: { code: string; language?: string; label?: string; copy?: boolean }) {
  return (
    <div className={styles.block}>
      {(language || copy) && (
        <div className={styles.bar}>
          <span>{language}</span>
          {copy && (
            <span className={styles.copy}>
              <CopyButton text={code} />
            </span>
          )}
        </div>
      )}
      {/* Scrollable regions must be reachable by keyboard. */}
      <pre className={styles.pre} tabIndex={0} aria-label={label ?? (language ? `${language} code` : 'code')}>
        <code>{code}</code>
      </pre>
    </div>
  );
}

import { useId } from 'react';
import { groupScopes, selectedScopes, type ScopeCatalog, type ScopeSelection } from './scopes';
import styles from './ScopePicker.module.css';

/** Choose a preset (full access, read only, messaging, short links, automation) or custom scopes. */
export function ScopePicker({
  catalog,
  value,
  onChange,
  error,
}: {
  catalog: ScopeCatalog;
  value: ScopeSelection;
  onChange: (next: ScopeSelection) => void;
  error?: string;
}) {
  const name = useId();
  const errorId = `${name}-error`;
  const chosen = selectedScopes(catalog, value);
  const toggle = (scope: string, on: boolean) => {
    const set = new Set(value.custom);
    if (on) set.add(scope);
    else set.delete(scope);
    onChange({ ...value, custom: [...set] });
  };
  return (
    <div>
      <fieldset className={styles.presets} aria-describedby={error ? errorId : undefined}>
        <legend className={styles.legend}>Permissions</legend>
        {catalog.presets.map((p) => (
          <label key={p.id} className={styles.option}>
            <input
              type="radio"
              name={name}
              value={p.id}
              checked={value.mode === p.id}
              onChange={() => onChange({ ...value, mode: p.id })}
            />
            <span>
              <span className={styles.optionName}>{p.name}</span>
              <br />
              <span className={styles.optionDesc}>{p.description}</span>
            </span>
          </label>
        ))}
        <label className={styles.option}>
          <input
            type="radio"
            name={name}
            value="custom"
            checked={value.mode === 'custom'}
            onChange={() => onChange({ mode: 'custom', custom: value.custom.length ? value.custom : [...chosen.filter((s) => s !== '*')] })}
          />
          <span>
            <span className={styles.optionName}>Custom</span>
            <br />
            <span className={styles.optionDesc}>Choose scopes one by one</span>
          </span>
        </label>
      </fieldset>
      {value.mode === 'custom' && (
        <div className={styles.custom} role="group" aria-label="Custom scopes">
          {groupScopes(catalog).map((g) => (
            <div key={g.resource} className={styles.group}>
              <div className={styles.resource}>{g.resource}</div>
              <div className={styles.scopes}>
                {g.scopes.map((s) => (
                  <label key={s.scope} className={styles.scope}>
                    <input
                      type="checkbox"
                      className="checkbox"
                      checked={value.custom.includes(s.scope)}
                      onChange={(e) => toggle(s.scope, e.target.checked)}
                    />
                    <span>
                      <code>{s.scope}</code> <span className="muted">— {s.description}</span>
                    </span>
                  </label>
                ))}
              </div>
            </div>
          ))}
        </div>
      )}
      <p className={styles.summary} aria-live="polite">
        {chosen.includes('*')
          ? 'This key can use every scope, including ones added later.'
          : `${chosen.length} scope${chosen.length === 1 ? '' : 's'} selected${chosen.length ? `: ${chosen.join(', ')}` : ''}`}
      </p>
      {error && (
        <p id={errorId} role="alert" style={{ color: 'var(--danger)', fontSize: 12.5, margin: '4px 0 0' }}>
          {error}
        </p>
      )}
    </div>
  );
}

import { Lock } from 'lucide-react';
import { useId } from 'react';
import { Field } from '../../components/Field';
import { channelLabel, channelSummary, fieldLabel, type ChannelInfo, type ConfigFieldInfo, type ConfigValues } from './channelConfig';
import styles from './Messaging.module.css';

/** The channels as radio buttons, each with its one-line summary. */
export function ChannelPicker({ channels, value, onChange }: { channels: readonly ChannelInfo[]; value: string; onChange: (name: string) => void }) {
  const id = useId();
  return (
    <fieldset className={styles.channelPicker}>
      <legend>Channel</legend>
      {channels.map((c) => (
        <label key={c.name} className={`${styles.channelOption} ${c.name === value ? styles.selected : ''}`}>
          <input
            type="radio"
            name={`${id}-channel`}
            value={c.name}
            checked={c.name === value}
            onChange={() => onChange(c.name)}
            aria-labelledby={`${id}-${c.name}-name`}
            aria-describedby={`${id}-${c.name}-summary`}
          />
          <span>
            <span id={`${id}-${c.name}-name`} className={styles.channelName}>
              {channelLabel(c.name)}
            </span>
            <span id={`${id}-${c.name}-summary`} className={styles.channelSummary}>
              {channelSummary(c)}
            </span>
          </span>
        </label>
      ))}
    </fieldset>
  );
}

function BoolField({ field, checked, onChange }: { field: ConfigFieldInfo; checked: boolean; onChange: (v: boolean) => void }) {
  const hintId = useId();
  return (
    <div>
      <label className={styles.check}>
        <input type="checkbox" className="checkbox" checked={checked} onChange={(e) => onChange(e.target.checked)} aria-describedby={hintId} />
        <span>{fieldLabel(field.name)}</span>
      </label>
      <p id={hintId} className={styles.checkHint}>
        {field.description}
      </p>
    </div>
  );
}

/**
 * A channel's config fields: text, password (write-only secrets), checkbox or number inputs,
 * each with the channel's description of it as help text.
 */
export function ConfigFields({
  fields,
  values,
  errors,
  onChange,
}: {
  fields: readonly ConfigFieldInfo[];
  values: ConfigValues;
  errors: Record<string, string>;
  onChange: (name: string, value: string | boolean) => void;
}) {
  return (
    <>
      {fields.map((f) => {
        const v = values[f.name];
        if (f.type === 'bool') return <BoolField key={f.name} field={f} checked={v === true} onChange={(next) => onChange(f.name, next)} />;
        const text = typeof v === 'string' ? v : '';
        const label = f.secret ? (
          <>
            {fieldLabel(f.name)}{' '}
            <span className={styles.writeOnly} title="Stored encrypted; never shown again, only replaced">
              <Lock size={11} aria-hidden="true" /> write-only
            </span>
          </>
        ) : (
          fieldLabel(f.name)
        );
        return (
          <Field key={f.name} label={label} hint={f.description} error={errors[f.name]} optional={!f.required}>
            {f.type === 'int' ? (
              <input className="input" type="number" inputMode="numeric" step={1} value={text} onChange={(e) => onChange(f.name, e.target.value)} />
            ) : f.secret ? (
              <input
                className="input mono"
                type="password"
                autoComplete="off"
                spellCheck={false}
                value={text}
                // A secret shown as ******** is replaced, not appended to, when typed over.
                onFocus={(e) => e.target.select()}
                onChange={(e) => onChange(f.name, e.target.value)}
              />
            ) : (
              <input className="input" type="text" autoComplete="off" spellCheck={false} value={text} onChange={(e) => onChange(f.name, e.target.value)} />
            )}
          </Field>
        );
      })}
    </>
  );
}

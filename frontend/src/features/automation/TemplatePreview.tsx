import { CircleAlert } from 'lucide-react';
import { useId } from 'react';
import { Field } from '../../components/Field';
import type { EndpointFormValues } from './form';
import { previewRows } from './preview';
import styles from './Automation.module.css';

/** The live preview under the action's fields, with the sample payload the user can edit. */
export function TemplatePreview({
  values,
  sample,
  onSampleChange,
  endpoint,
}: {
  values: EndpointFormValues;
  sample: string;
  onSampleChange: (sample: string) => void;
  endpoint: { id: string; name: string };
}) {
  const headingId = useId();
  const { rows, sampleError } = previewRows(values, sample, endpoint);
  return (
    <section className={styles.preview} aria-labelledby={headingId}>
      <h3 id={headingId} className={styles.previewTitle}>
        Preview
      </h3>
      <div className={styles.previewGrid}>
        <Field label="Sample payload" error={sampleError} hint="Edit it to match what your tool sends. It is only used here.">
          <textarea className={`textarea mono ${styles.code}`} rows={9} spellCheck={false} value={sample} onChange={(e) => onSampleChange(e.target.value)} />
        </Field>
        <div className={styles.previewOut} data-testid="template-preview">
          {values.actionType === 'FORWARD' ? (
            <p className="muted">The payload is POSTed to the URL as it came: there is nothing to render.</p>
          ) : sampleError ? (
            <p className="muted">Fix the sample payload to see the action rendered.</p>
          ) : rows.length === 0 ? (
            <p className="muted">Fill in the action’s fields to see them rendered with the sample payload.</p>
          ) : (
            <dl className={styles.previewList}>
              {rows.map((r) => (
                <div key={r.label}>
                  <dt>{r.label}</dt>
                  {r.result.ok ? (
                    <dd className="mono">{r.result.value || <span className="muted">(empty)</span>}</dd>
                  ) : (
                    <dd className={styles.previewError}>
                      <CircleAlert size={14} aria-hidden="true" />
                      <span>
                        <span className="visually-hidden">Error: </span>
                        {r.result.error}
                      </span>
                    </dd>
                  )}
                </div>
              ))}
            </dl>
          )}
        </div>
      </div>
    </section>
  );
}

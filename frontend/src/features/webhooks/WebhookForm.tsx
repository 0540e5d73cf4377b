import { useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { InlineError } from '../../components/States';
import { EventTypesDocument } from '../../graphql/generated';
import { validateWebhook, type WebhookFormErrors, type WebhookFormValues } from './form';
import styles from './Webhooks.module.css';

/** Create or edit a webhook endpoint. */
export function WebhookFormDialog({
  open,
  onOpenChange,
  title,
  submitLabel,
  initial,
  onSubmit,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  submitLabel: string;
  initial: WebhookFormValues;
  onSubmit: (values: WebhookFormValues) => Promise<WebhookFormErrors | null>;
}) {
  const [types] = useQuery({ query: EventTypesDocument, pause: !open });
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<WebhookFormErrors>({});
  const [busy, setBusy] = useState(false);
  const all = values.eventTypes.includes('*');

  const change = (next: boolean) => {
    if (busy) return;
    if (next) setValues(initial);
    setErrors({});
    onOpenChange(next);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const local = validateWebhook(values);
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    const result = await onSubmit({ ...values, url: values.url.trim(), description: values.description.trim(), instanceId: values.instanceId.trim() });
    setBusy(false);
    if (result) setErrors(result);
  };

  const toggle = (t: string, on: boolean) => {
    const set = new Set(values.eventTypes.filter((x) => x !== '*'));
    if (on) set.add(t);
    else set.delete(t);
    setValues({ ...values, eventTypes: [...set].sort() });
  };

  return (
    <Dialog
      open={open}
      onOpenChange={change}
      title={title}
      wide
      onSubmit={submit}
      footer={
        <>
          <Button onClick={() => change(false)} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" loading={busy}>
            {submitLabel}
          </Button>
        </>
      }
    >
      <div className="stack">
        <InlineError>{errors.form}</InlineError>
        <Field label="Endpoint URL" error={errors.url} hint="Switchboard POSTs signed JSON events here.">
          <input className="input" type="url" value={values.url} onChange={(e) => setValues({ ...values, url: e.target.value })} placeholder="https://example.com/webhooks/switchboard" />
        </Field>
        <Field label="Description" optional error={errors.description}>
          <input className="input" value={values.description} onChange={(e) => setValues({ ...values, description: e.target.value })} maxLength={200} />
        </Field>
        <fieldset className={styles.fieldset} aria-describedby={errors.eventTypes ? 'wh-types-error' : undefined}>
          <legend className={styles.legend}>Events to send</legend>
          <label className={styles.radio}>
            <input type="radio" name="wh-scope" checked={all} onChange={() => setValues({ ...values, eventTypes: ['*'] })} />
            All events, including types added later
          </label>
          <label className={styles.radio}>
            <input type="radio" name="wh-scope" checked={!all} onChange={() => setValues({ ...values, eventTypes: [] })} />
            Selected events
          </label>
          {!all && (
            <div className={styles.typeList} role="group" aria-label="Event types">
              {types.error && !types.data && <p className="muted">Could not load event types.</p>}
              {!types.data && !types.error && <p className="muted">Loading event types…</p>}
              {types.data?.eventTypes.map((t) => (
                <label key={t.type} className={styles.check}>
                  <input type="checkbox" className="checkbox" checked={values.eventTypes.includes(t.type)} onChange={(e) => toggle(t.type, e.target.checked)} />
                  <span>
                    <code>{t.type}</code> <span className="muted">— {t.description}</span>
                  </span>
                </label>
              ))}
            </div>
          )}
          {errors.eventTypes && (
            <p id="wh-types-error" role="alert" className={styles.error}>
              {errors.eventTypes}
            </p>
          )}
        </fieldset>
        <Field label="Instance ID" optional error={errors.instanceId} hint="Only send events of this channel instance (inst_…). Leave empty for all.">
          <input className="input mono" value={values.instanceId} onChange={(e) => setValues({ ...values, instanceId: e.target.value })} />
        </Field>
        <label className={styles.check}>
          <input type="checkbox" className="checkbox" checked={values.enabled} onChange={(e) => setValues({ ...values, enabled: e.target.checked })} />
          <span>Enabled — deliver events to this endpoint</span>
        </label>
      </div>
    </Dialog>
  );
}

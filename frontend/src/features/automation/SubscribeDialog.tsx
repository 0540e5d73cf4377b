import { useId, useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { InlineError } from '../../components/States';
import { EventTypesDocument, type CreateAutomationSubscriptionInput } from '../../graphql/generated';
import { emptySubscription, toSubscribeInput, unsubscribable, validateSubscription, type SubscribeErrors } from './subscriptionForm';
import styles from './Subscriptions.module.css';

/**
 * Subscribes a target URL to event types, as a workflow tool does through the API. Mount it
 * when it opens: it starts empty.
 */
export function SubscribeDialog({
  onOpenChange,
  onSubmit,
}: {
  onOpenChange: (open: boolean) => void;
  /** Resolves to null when subscribed (the caller closes the dialog), else the errors to show. */
  onSubmit: (input: CreateAutomationSubscriptionInput) => Promise<SubscribeErrors | null>;
}) {
  const [types, refetchTypes] = useQuery({ query: EventTypesDocument });
  const [values, setValues] = useState(emptySubscription);
  const [errors, setErrors] = useState<SubscribeErrors>({});
  const [busy, setBusy] = useState(false);
  const id = useId();
  const all = values.eventTypes.includes('*');
  const list = (types.data?.eventTypes ?? []).filter((t) => !unsubscribable.has(t.type));

  const change = (next: boolean) => {
    if (!busy) onOpenChange(next);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateSubscription(values);
    setErrors(found);
    if (Object.keys(found).length) return;
    setBusy(true);
    const result = await onSubmit(toSubscribeInput(values));
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
      open
      onOpenChange={change}
      title="Subscribe a URL to events"
      description="Switchboard POSTs each event of the chosen types to the URL, signed, and retries until it answers 2xx. A URL that answers 410 Gone is unsubscribed."
      wide
      onSubmit={submit}
      footer={
        <>
          <Button onClick={() => change(false)} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" loading={busy}>
            Subscribe
          </Button>
        </>
      }
    >
      <div className="stack">
        <InlineError>{errors.form}</InlineError>
        <Field label="Target URL" error={errors.targetUrl} hint="The webhook URL of your Zapier, n8n or Make workflow.">
          <input
            className="input"
            type="url"
            inputMode="url"
            autoComplete="off"
            spellCheck={false}
            placeholder="https://hooks.zapier.com/hooks/catch/…"
            value={values.targetUrl}
            onChange={(e) => setValues({ ...values, targetUrl: e.target.value })}
          />
        </Field>
        <fieldset className={styles.fieldset} aria-describedby={errors.eventTypes ? `${id}-types-error` : undefined}>
          <legend className={styles.legend}>Events to send</legend>
          <label className={styles.check}>
            <input type="radio" name={`${id}-scope`} checked={all} onChange={() => setValues({ ...values, eventTypes: ['*'] })} />
            All events (<code>*</code>), including types added later
          </label>
          <label className={styles.check}>
            <input type="radio" name={`${id}-scope`} checked={!all} onChange={() => setValues({ ...values, eventTypes: [] })} />
            Selected events
          </label>
          {!all && (
            <div className={styles.typeList} role="group" aria-label="Event types">
              {types.error && !types.data ? (
                <p className="muted">
                  Could not load the event types.{' '}
                  <Button size="sm" variant="ghost" onClick={() => refetchTypes({ requestPolicy: 'network-only' })}>
                    Try again
                  </Button>
                </p>
              ) : !types.data ? (
                <p className="muted" role="status">
                  Loading event types…
                </p>
              ) : (
                list.map((t) => (
                  <label key={t.type} className={styles.check}>
                    <input type="checkbox" className="checkbox" checked={values.eventTypes.includes(t.type)} onChange={(e) => toggle(t.type, e.target.checked)} />
                    <span>
                      <code>{t.type}</code> <span className="muted">— {t.description}</span>
                    </span>
                  </label>
                ))
              )}
            </div>
          )}
          {errors.eventTypes && (
            <p id={`${id}-types-error`} role="alert" className={styles.error}>
              {errors.eventTypes}
            </p>
          )}
        </fieldset>
        <Field label="Description" optional error={errors.description} hint="What the subscription is for, such as the workflow’s name.">
          <input className="input" maxLength={200} value={values.description} onChange={(e) => setValues({ ...values, description: e.target.value })} />
        </Field>
      </div>
    </Dialog>
  );
}

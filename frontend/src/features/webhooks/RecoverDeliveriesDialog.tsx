import { History } from 'lucide-react';
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { useClient } from 'urql';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { InlineError, Notice } from '../../components/States';
import { RecoverWebhookDeliveriesDocument } from '../../graphql/generated';
import { formatDateTime } from '../../lib/format';
import { customSinceInput, isWebhookDisabled, recoverErrors, recoveryMessage, RETENTION_DAYS, sinceFrom, sincePresets, type RecoverErrors, type SincePreset } from './recover';
import styles from './Webhooks.module.css';

/** What the calls made so far did, all with the same since. */
interface Recovered {
  since: string;
  queued: number;
  hasMore: boolean;
}

/**
 * "Recover failed deliveries": asks since when, sends every failed delivery of the endpoint
 * created since then again (recoverWebhookDeliveries), and says how many were queued. When
 * more are left (at most 1,000 a call), "Recover more" calls again with the same since.
 */
export function RecoverDeliveriesDialog({
  webhookId,
  open,
  onOpenChange,
  onRecovered,
  onDisabled,
}: {
  webhookId: string;
  open: boolean;
  onOpenChange: (open: boolean) => void;
  /** After each call that queued deliveries: the deliveries list is fetched again. */
  onRecovered: () => void;
  /** The endpoint turned out to be disabled: the page fetches it again. */
  onDisabled: () => void;
}) {
  const client = useClient();
  const id = useId();
  const [preset, setPreset] = useState<SincePreset>('hour');
  const [custom, setCustom] = useState('');
  const [bounds, setBounds] = useState<{ min: string; max: string } | null>(null);
  const [errors, setErrors] = useState<RecoverErrors>({});
  const [busy, setBusy] = useState(false);
  const [done, setDone] = useState<Recovered | null>(null);
  const resultRef = useRef<HTMLDivElement>(null);

  // The result replaces the form (and its submit button): focus moves to it, so it is read out.
  useEffect(() => {
    if (done) resultRef.current?.focus();
  }, [done]);

  const change = (next: boolean) => {
    if (busy) return;
    if (!next) {
      setPreset('hour');
      setCustom('');
      setBounds(null);
      setErrors({});
      setDone(null);
    }
    onOpenChange(next);
  };

  const recover = async (since: string) => {
    setBusy(true);
    setErrors({});
    const result = await client.mutation(RecoverWebhookDeliveriesDocument, { webhookId, since }).toPromise();
    setBusy(false);
    if (!result.data) {
      setErrors(recoverErrors(result.error, !done));
      if (isWebhookDisabled(result.error)) onDisabled();
      return;
    }
    const r = result.data.recoverWebhookDeliveries;
    setDone((prev) => ({ since, queued: (prev?.queued ?? 0) + r.queued, hasMore: r.hasMore }));
    onRecovered();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (busy) return;
    // Recover more: the same since, so the next call takes the failed deliveries left.
    if (done) return recover(done.since);
    const chosen = sinceFrom(preset, custom);
    if ('error' in chosen) {
      setErrors({ since: chosen.error });
      return;
    }
    return recover(chosen.since);
  };

  const choose = (p: SincePreset) => {
    setPreset(p);
    setErrors({});
    if (p === 'custom') {
      const input = customSinceInput();
      setBounds({ min: input.min, max: input.max });
      if (!custom) setCustom(input.value);
    }
  };

  const presetError = preset !== 'custom' && errors.since ? errors.since : '';

  return (
    <Dialog
      open={open}
      onOpenChange={change}
      title="Recover failed deliveries"
      description="Every failed delivery to this endpoint created since the time you choose is sent again now, oldest first, with one more attempt each."
      onSubmit={submit}
      footer={
        !done ? (
          <>
            <Button onClick={() => change(false)} disabled={busy}>
              Cancel
            </Button>
            <Button type="submit" variant="primary" icon={<History size={14} aria-hidden="true" />} loading={busy}>
              Recover deliveries
            </Button>
          </>
        ) : done.hasMore ? (
          <>
            <Button onClick={() => change(false)} disabled={busy}>
              Close
            </Button>
            <Button type="submit" variant="primary" icon={<History size={14} aria-hidden="true" />} loading={busy}>
              Recover more
            </Button>
          </>
        ) : (
          <Button variant="primary" onClick={() => change(false)}>
            Done
          </Button>
        )
      }
    >
      <div className="stack">
        <InlineError>{errors.form}</InlineError>
        {done ? (
          <div ref={resultRef} tabIndex={-1} role="status">
            <Notice tone={done.queued > 0 ? 'success' : 'info'}>
              {recoveryMessage(done.queued, done.hasMore, done.since)}
              {done.hasMore && <> More failed deliveries since {formatDateTime(done.since)} are left: recover more to send the next ones (up to 1,000 a time).</>}
            </Notice>
          </div>
        ) : (
          <fieldset className={styles.fieldset} aria-describedby={presetError ? `${id}-since-error` : undefined}>
            <legend className={styles.legend}>Failed deliveries created in</legend>
            {sincePresets.map((p) => (
              <label key={p.value} className={styles.radio}>
                <input type="radio" name={`${id}-since`} value={p.value} checked={preset === p.value} onChange={() => choose(p.value)} />
                {p.label}
              </label>
            ))}
            <label className={styles.radio}>
              <input type="radio" name={`${id}-since`} value="custom" checked={preset === 'custom'} onChange={() => choose('custom')} />
              Custom time
            </label>
            {preset === 'custom' && (
              <Field label="Since" error={errors.since} hint={`In your time zone. Deliveries are kept for ${RETENTION_DAYS} days.`}>
                <input
                  className="input"
                  type="datetime-local"
                  value={custom}
                  min={bounds?.min}
                  max={bounds?.max}
                  onChange={(e) => setCustom(e.target.value)}
                />
              </Field>
            )}
            {presetError && (
              <p id={`${id}-since-error`} role="alert" className={styles.error}>
                {presetError}
              </p>
            )}
          </fieldset>
        )}
      </div>
    </Dialog>
  );
}

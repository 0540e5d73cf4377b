import { ChevronDown, ChevronRight } from 'lucide-react';
import { useId, useState, type FormEvent } from 'react';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { InlineError } from '../../components/States';
import { advancedFields, hasAdvanced, redirectStatuses, validateLink, type LinkFormErrors, type LinkFormValues } from './form';
import styles from './Links.module.css';

/**
 * Creates a link or edits one. The common fields come first; expiry, click limit, password,
 * redirect status, UTM parameters and device targets are under "More options", which opens
 * by itself when one of them is set or has an error. Mount it when it opens: it starts from
 * initial.
 */
export function LinkFormDialog({
  open,
  onOpenChange,
  title,
  submitLabel,
  initial,
  shortBase,
  editing = false,
  hasPassword = false,
  onSubmit,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  submitLabel: string;
  initial: LinkFormValues;
  /** Where short URLs start (shortLinkBase), for the preview; empty while unknown. */
  shortBase: string;
  /** Editing a link rather than creating one. */
  editing?: boolean;
  /** Editing a link that has a password. */
  hasPassword?: boolean;
  /** Resolves to null when saved (the caller closes the dialog), else the errors to show. */
  onSubmit: (values: LinkFormValues) => Promise<LinkFormErrors | null>;
}) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<LinkFormErrors>({});
  const [busy, setBusy] = useState(false);
  const [more, setMore] = useState(() => hasAdvanced(initial));
  const moreId = useId();

  const set = <K extends keyof LinkFormValues>(k: K, v: LinkFormValues[K]) => setValues((old) => ({ ...old, [k]: v }));
  const text = (k: keyof LinkFormValues) => ({
    value: values[k] as string,
    onChange: (e: { target: { value: string } }) => set(k, e.target.value),
  });

  const change = (next: boolean) => {
    if (busy) return;
    if (!next) setErrors({});
    onOpenChange(next);
  };

  const show = (errs: LinkFormErrors) => {
    setErrors(errs);
    if (advancedFields.some((f) => errs[f])) setMore(true);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateLink(values, initial);
    if (Object.keys(found).length) {
      show(found);
      return;
    }
    setBusy(true);
    const result = await onSubmit(values);
    setBusy(false);
    if (result) show(result);
  };

  const slug = values.slug.trim();
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
        <Field label="Destination URL" error={errors.url} hint="Where visitors go.">
          <input className="input" type="url" inputMode="url" autoComplete="off" placeholder="https://example.com/launch" {...text('url')} />
        </Field>
        <Field
          label="Short link"
          optional={!editing}
          error={errors.slug}
          hint={
            <>
              {shortBase && (
                <>
                  <span className="mono">
                    {shortBase}/{slug || (editing ? '…' : 'abc1234')}
                  </span>
                  {' · '}
                </>
              )}
              {editing ? 'Changing it stops the old short URL from working.' : 'Leave it empty for a random 7-character slug.'}
            </>
          }
        >
          <input className="input mono" autoComplete="off" spellCheck={false} placeholder="launch-day" maxLength={64} {...text('slug')} />
        </Field>
        <div className={styles.formGrid}>
          <Field label="Title" optional error={errors.title}>
            <input className="input" maxLength={200} placeholder="Launch day announcement" {...text('title')} />
          </Field>
          <Field label="Tags" optional error={errors.tags} hint="Separated by commas, such as promo, q3.">
            <input className="input" autoComplete="off" {...text('tags')} />
          </Field>
        </div>

        <div>
          <button type="button" className={styles.disclosure} aria-expanded={more} aria-controls={moreId} onClick={() => setMore(!more)}>
            {more ? <ChevronDown size={16} aria-hidden="true" /> : <ChevronRight size={16} aria-hidden="true" />}
            More options
            <span className="muted">expiry, click limit, password, redirect, UTM, devices</span>
          </button>
          <div id={moreId} hidden={!more} className={`stack ${styles.more}`}>
            <fieldset className={styles.fieldset}>
              <legend className={styles.legend}>Expiry</legend>
              <div className={styles.formGrid}>
                <Field label="Expires at" optional error={errors.expiresAt} hint="In your time zone. After it the link stops redirecting.">
                  <input className="input" type="datetime-local" {...text('expiresAt')} />
                </Field>
                <Field label="Click limit" optional error={errors.maxClicks} hint="Counted clicks (bots are not counted) before the link stops.">
                  <input className="input" type="number" min={1} step={1} inputMode="numeric" {...text('maxClicks')} />
                </Field>
              </div>
              <Field label="Expired URL" optional error={errors.expiredUrl} hint="Where visitors go once the link has expired or used up its clicks; without it they see a “link expired” page.">
                <input className="input" type="url" inputMode="url" autoComplete="off" placeholder="https://example.com/offer-ended" {...text('expiredUrl')} />
              </Field>
            </fieldset>

            <fieldset className={styles.fieldset}>
              <legend className={styles.legend}>Access and redirect</legend>
              <div className={styles.formGrid}>
                <Field
                  label={hasPassword ? 'New password' : 'Password'}
                  optional
                  error={errors.password}
                  hint={hasPassword ? 'Leave it empty to keep the current password.' : 'Visitors must enter it before they are redirected.'}
                >
                  <input className="input" type="password" autoComplete="new-password" maxLength={128} disabled={values.removePassword} {...text('password')} />
                </Field>
                <Field
                  label="Redirect status"
                  error={errors.redirectStatus}
                  hint={redirectStatuses.find((s) => s.value === values.redirectStatus)?.hint}
                >
                  <select className="select" value={values.redirectStatus} onChange={(e) => set('redirectStatus', e.target.value)}>
                    {redirectStatuses.map((s) => (
                      <option key={s.value} value={s.value}>
                        {s.label}
                      </option>
                    ))}
                  </select>
                </Field>
              </div>
              {hasPassword && (
                <label className={styles.check}>
                  <input type="checkbox" className="checkbox" checked={values.removePassword} onChange={(e) => set('removePassword', e.target.checked)} />
                  <span>Remove the password</span>
                </label>
              )}
            </fieldset>

            <fieldset className={styles.fieldset}>
              <legend className={styles.legend}>UTM parameters</legend>
              <p className="muted">Added to the destination URL as utm_source, utm_medium and so on, replacing ones it already has.</p>
              <div className={styles.utmGrid}>
                <Field label="Source" optional error={errors.utmSource}>
                  <input className="input" placeholder="newsletter" {...text('utmSource')} />
                </Field>
                <Field label="Medium" optional error={errors.utmMedium}>
                  <input className="input" placeholder="email" {...text('utmMedium')} />
                </Field>
                <Field label="Campaign" optional error={errors.utmCampaign}>
                  <input className="input" placeholder="spring_launch" {...text('utmCampaign')} />
                </Field>
                <Field label="Term" optional error={errors.utmTerm}>
                  <input className="input" {...text('utmTerm')} />
                </Field>
                <Field label="Content" optional error={errors.utmContent}>
                  <input className="input" {...text('utmContent')} />
                </Field>
              </div>
            </fieldset>

            <fieldset className={styles.fieldset}>
              <legend className={styles.legend}>Device targeting</legend>
              <div className={styles.formGrid}>
                <Field label="iOS URL" optional error={errors.iosUrl} hint="Where iPhone and iPad visitors go instead.">
                  <input className="input" type="url" inputMode="url" autoComplete="off" placeholder="https://apps.apple.com/app/…" {...text('iosUrl')} />
                </Field>
                <Field label="Android URL" optional error={errors.androidUrl} hint="Where Android visitors go instead.">
                  <input className="input" type="url" inputMode="url" autoComplete="off" placeholder="https://play.google.com/store/apps/…" {...text('androidUrl')} />
                </Field>
              </div>
            </fieldset>
          </div>
        </div>
      </div>
    </Dialog>
  );
}

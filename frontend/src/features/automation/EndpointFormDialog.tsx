import { useState, type FormEvent } from 'react';
import { useQuery } from 'urql';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { InlineError } from '../../components/States';
import { AutomationInstancesDocument } from '../../graphql/generated';
import {
  actionOptions,
  defaultSample,
  validateEndpoint,
  verificationOptions,
  type EndpointFormErrors,
  type EndpointFormValues,
} from './form';
import { TemplatePreview } from './TemplatePreview';
import styles from './Automation.module.css';

const templateHint = 'A template: {{payload.field}} reads a field of the call’s payload.';

/** The instances a send_message action can use, loaded when that action is chosen. */
function InstanceSelect({ value, onChange, error }: { value: string; onChange: (v: string) => void; error?: string }) {
  const [instances] = useQuery({ query: AutomationInstancesDocument });
  const list = instances.data?.instances.nodes ?? [];
  const known = list.some((i) => i.id === value);
  return (
    <Field
      label="Instance"
      error={error ?? (instances.error && !instances.data ? 'Could not load your instances; reopen the dialog to try again.' : undefined)}
      hint={instances.data && list.length === 0 ? 'No instances yet: create one under Instances first.' : 'The instance that sends the message.'}
    >
      <select className="select" value={value} onChange={(e) => onChange(e.target.value)} disabled={instances.fetching && !instances.data}>
        <option value="">{instances.fetching && !instances.data ? 'Loading instances…' : 'Choose an instance'}</option>
        {value && !known && <option value={value}>{value}</option>}
        {list.map((i) => (
          <option key={i.id} value={i.id}>
            {i.name} ({i.channel}, {i.status})
          </option>
        ))}
      </select>
    </Field>
  );
}

/**
 * Creates an endpoint or edits one: name, verification, payload schema, and the action with
 * a live preview of its templates rendered against a sample payload. Mount it when it opens:
 * it starts from initial.
 */
export function EndpointFormDialog({
  open,
  onOpenChange,
  title,
  submitLabel,
  initial,
  endpointId,
  editing = false,
  onSubmit,
}: {
  open: boolean;
  onOpenChange: (open: boolean) => void;
  title: string;
  submitLabel: string;
  initial: EndpointFormValues;
  /** The endpoint's id (for {{endpoint.id}} in the preview); unknown until it is created. */
  endpointId?: string;
  editing?: boolean;
  /** Resolves to null when saved (the caller closes the dialog), else the errors to show. */
  onSubmit: (values: EndpointFormValues) => Promise<EndpointFormErrors | null>;
}) {
  const [values, setValues] = useState(initial);
  const [errors, setErrors] = useState<EndpointFormErrors>({});
  const [busy, setBusy] = useState(false);
  const [sample, setSample] = useState(defaultSample);

  const set = <K extends keyof EndpointFormValues>(k: K, v: EndpointFormValues[K]) => setValues((old) => ({ ...old, [k]: v }));
  const text = (k: keyof EndpointFormValues) => ({
    value: values[k] as string,
    onChange: (e: { target: { value: string } }) => set(k, e.target.value),
  });

  const change = (next: boolean) => {
    if (busy) return;
    if (!next) setErrors({});
    onOpenChange(next);
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const found = validateEndpoint(values);
    if (Object.keys(found).length) {
      setErrors(found);
      return;
    }
    setBusy(true);
    const result = await onSubmit(values);
    setBusy(false);
    if (result) setErrors(result);
  };

  const verification = verificationOptions.find((o) => o.value === values.verification);
  const type = values.actionType;
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
        <Field label="Name" error={errors.name} hint="For people: what calls this endpoint, such as Shop orders (n8n).">
          <input className="input" autoComplete="off" maxLength={200} placeholder="New orders" {...text('name')} />
        </Field>
        <div className={styles.formGrid}>
          <Field
            label="Verification"
            error={errors.verification}
            hint={
              <>
                {verification?.hint}
                {editing && ' Changing it makes a new secret, shown once.'}
              </>
            }
          >
            <select className="select" value={values.verification} onChange={(e) => set('verification', e.target.value as EndpointFormValues['verification'])}>
              {verificationOptions.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </Field>
          <div className={styles.checkField}>
            <label className={styles.check}>
              <input type="checkbox" className="checkbox" checked={values.enabled} onChange={(e) => set('enabled', e.target.checked)} />
              <span>Enabled</span>
            </label>
            <span className="muted">A disabled endpoint answers 404, like an unknown one.</span>
          </div>
        </div>
        <Field
          label="Payload schema"
          optional
          error={errors.schema}
          hint="A JSON Schema every payload must match; calls that do not match are refused (422) saying where."
        >
          <textarea className={`textarea mono ${styles.code}`} rows={4} spellCheck={false} placeholder='{"type": "object", "required": ["order_id"]}' {...text('schema')} />
        </Field>

        <fieldset className={styles.fieldset}>
          <legend className={styles.legend}>Action</legend>
          <Field label="What to do with each call" error={errors.actionType}>
            <select className="select" value={type} onChange={(e) => set('actionType', e.target.value as EndpointFormValues['actionType'])}>
              {actionOptions.map((o) => (
                <option key={o.value} value={o.value}>
                  {o.label}
                </option>
              ))}
            </select>
          </Field>
          {type === 'CREATE_LINK' && (
            <>
              <Field label="Destination URL" error={errors.url} hint={`${templateHint} Such as {{payload.url}}.`}>
                <input className="input mono" autoComplete="off" spellCheck={false} placeholder="{{payload.url}}" {...text('url')} />
              </Field>
              <div className={styles.formGrid}>
                <Field label="Slug" optional error={errors.slug} hint="A template; a random slug when empty.">
                  <input className="input mono" autoComplete="off" spellCheck={false} placeholder="order-{{payload.order_id}}" {...text('slug')} />
                </Field>
                <Field label="Title" optional error={errors.title} hint="A template.">
                  <input className="input" autoComplete="off" placeholder="Order {{payload.order_id}}" {...text('title')} />
                </Field>
              </div>
              <Field label="Metadata" optional error={errors.metadata} hint="A JSON object of templates, stored with the link.">
                <textarea className={`textarea mono ${styles.code}`} rows={3} spellCheck={false} placeholder='{"order": "{{payload.order_id}}"}' {...text('metadata')} />
              </Field>
            </>
          )}
          {type === 'SEND_MESSAGE' && (
            <>
              <InstanceSelect value={values.instanceId} onChange={(v) => set('instanceId', v)} error={errors.instanceId} />
              <Field label="Recipient" error={errors.to} hint={`${templateHint} A phone number or chat id, such as {{payload.customer.phone}}.`}>
                <input className="input mono" autoComplete="off" spellCheck={false} placeholder="{{payload.customer.phone}}" {...text('to')} />
              </Field>
              <Field label="Text" optional={!!values.mediaUrl} error={errors.text} hint="A template; the image’s caption when there is an image.">
                <textarea className="textarea" rows={3} placeholder="Thanks for your order {{payload.order_id}}!" {...text('text')} />
              </Field>
              <Field label="Image URL" optional error={errors.mediaUrl} hint="A template; sends an image by URL.">
                <input className="input mono" autoComplete="off" spellCheck={false} placeholder="{{payload.invoice_url}}" {...text('mediaUrl')} />
              </Field>
            </>
          )}
          {type === 'FORWARD' && (
            <Field label="Forward to URL" error={errors.targetUrl} hint="Each payload is POSTed there as JSON, retried when it does not answer.">
              <input className="input" type="url" inputMode="url" autoComplete="off" placeholder="https://example.com/orders" {...text('targetUrl')} />
            </Field>
          )}
        </fieldset>

        {type && (
          <TemplatePreview
            values={values}
            sample={sample}
            onSampleChange={setSample}
            endpoint={{ id: endpointId ?? '<the endpoint’s id>', name: values.name.trim() }}
          />
        )}
      </div>
    </Dialog>
  );
}

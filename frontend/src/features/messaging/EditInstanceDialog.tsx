import { useState, type FormEvent } from 'react';
import { useClient } from 'urql';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { InlineError } from '../../components/States';
import { UpdateInstanceDocument, type InstanceFieldsFragment, type UpdateInstanceInput } from '../../graphql/generated';
import { errorMessage, fieldErrors } from '../../lib/errors';
import { channelLabel, configChanges, formErrors, initialValues, validateConfig, type ChannelInfo, type ConfigValues } from './channelConfig';
import { ConfigFields } from './ConfigFields';

/**
 * Changes an instance's name and config. Secrets arrive as ********: one left so is not sent,
 * and the API keeps it; only the fields that changed are sent.
 */
export function EditInstanceDialog({
  instance,
  channel,
  onClose,
  onSaved,
}: {
  instance: InstanceFieldsFragment;
  channel: ChannelInfo;
  onClose: () => void;
  onSaved: (i: InstanceFieldsFragment) => void;
}) {
  const client = useClient();
  const fields = channel.configFields;
  const [baseline] = useState(() => initialValues(fields, instance.config));
  const [name, setName] = useState(instance.name);
  const [values, setValues] = useState<ConfigValues>(baseline);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const change = (next: boolean) => {
    if (!next && !busy) onClose();
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    const local = validateConfig(fields, values);
    if (!name.trim()) local.name = 'Enter a name, such as Support line.';
    setErrors(local);
    if (Object.keys(local).length) return;
    const input: UpdateInstanceInput = {};
    if (name.trim() !== instance.name) input.name = name.trim();
    const config = configChanges(fields, values, baseline);
    if (Object.keys(config).length) input.config = config;
    if (!Object.keys(input).length) {
      onClose();
      return;
    }
    setBusy(true);
    const result = await client.mutation(UpdateInstanceDocument, { id: instance.id, input }).toPromise();
    setBusy(false);
    if (!result.data) {
      const mapped = formErrors(fields, fieldErrors(result.error));
      setErrors(Object.keys(mapped).length ? mapped : { form: errorMessage(result.error) });
      return;
    }
    onSaved(result.data.updateInstance);
  };

  return (
    <Dialog
      open
      onOpenChange={change}
      title={`Edit ${instance.name}`}
      description={`${channelLabel(instance.channel)} settings. Write-only values show as ********: leave them so to keep them, or type a new one to replace it.`}
      onSubmit={submit}
      wide
      footer={
        <>
          <Button onClick={onClose} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" loading={busy}>
            Save changes
          </Button>
        </>
      }
    >
      <div className="stack">
        <InlineError>{errors.form}</InlineError>
        <Field label="Name" error={errors.name}>
          <input className="input" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} />
        </Field>
        <ConfigFields fields={fields} values={values} errors={errors} onChange={(k, v) => {
              setValues((cur) => ({ ...cur, [k]: v }));
              setErrors((cur) => ({ ...cur, [k]: '' }));
            }} />
      </div>
    </Dialog>
  );
}

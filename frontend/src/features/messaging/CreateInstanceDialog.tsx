import { useState, type FormEvent } from 'react';
import { useClient } from 'urql';
import { Button } from '../../components/Button';
import { Dialog } from '../../components/Dialog';
import { Field } from '../../components/Field';
import { InlineError, Loading } from '../../components/States';
import { CreateInstanceDocument, type InstanceFieldsFragment } from '../../graphql/generated';
import { errorMessage, fieldErrors } from '../../lib/errors';
import { configChanges, formErrors, initialValues, validateConfig, type ChannelInfo, type ConfigValues } from './channelConfig';
import { ChannelPicker, ConfigFields } from './ConfigFields';
import styles from './Messaging.module.css';

/** The channels as the page loaded them: a list, or why there is none yet. */
export interface ChannelsState {
  channels?: readonly ChannelInfo[];
  error?: string;
  retry: () => void;
}

const DEFAULT_CHANNEL = 'sandbox';

/**
 * Creates an instance on any channel: pick the channel, fill in its config fields (from the
 * channels query, defaults prefilled), and optionally connect at once.
 */
export function CreateInstanceDialog({
  open,
  onOpenChange,
  onCreated,
  channels: { channels, error: channelsError, retry },
}: {
  open: boolean;
  onOpenChange: (o: boolean) => void;
  onCreated: (i: InstanceFieldsFragment) => void;
  channels: ChannelsState;
}) {
  const client = useClient();
  const [name, setName] = useState('');
  const [picked, setPicked] = useState(DEFAULT_CHANNEL);
  // What the user changed; the rest of the values are the channel's defaults.
  const [edits, setEdits] = useState<ConfigValues>({});
  const [connect, setConnect] = useState(true);
  const [errors, setErrors] = useState<Record<string, string>>({});
  const [busy, setBusy] = useState(false);

  const channel = channels?.find((c) => c.name === picked) ?? channels?.[0];
  const fields = channel?.configFields ?? [];
  const defaults = initialValues(fields);
  const values = { ...defaults, ...edits };

  const reset = () => {
    setName('');
    setPicked(DEFAULT_CHANNEL);
    setEdits({});
    setConnect(true);
    setErrors({});
  };

  const change = (next: boolean) => {
    if (busy) return;
    if (!next) reset();
    onOpenChange(next);
  };

  const pick = (next: string) => {
    setPicked(next);
    setEdits({});
    setErrors({});
  };

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    if (!channel) return;
    const local = validateConfig(fields, values);
    if (!name.trim()) local.name = 'Enter a name, such as Support line.';
    setErrors(local);
    if (Object.keys(local).length) return;
    setBusy(true);
    const result = await client
      .mutation(CreateInstanceDocument, {
        input: { name: name.trim(), channel: channel.name, config: configChanges(fields, values, defaults), connect },
      })
      .toPromise();
    setBusy(false);
    if (!result.data) {
      const mapped = formErrors(fields, fieldErrors(result.error));
      setErrors(Object.keys(mapped).length ? mapped : { form: errorMessage(result.error) });
      return;
    }
    reset();
    onOpenChange(false);
    onCreated(result.data.createInstance);
  };

  return (
    <Dialog
      open={open}
      onOpenChange={change}
      title="New instance"
      description="An instance is one account on one channel: a phone number or a bot."
      onSubmit={submit}
      wide
      footer={
        <>
          <Button onClick={() => change(false)} disabled={busy}>
            Cancel
          </Button>
          <Button type="submit" variant="primary" loading={busy} disabled={!channel}>
            Create instance
          </Button>
        </>
      }
    >
      <div className="stack">
        <InlineError>{errors.form}</InlineError>
        <Field label="Name" error={errors.name}>
          <input className="input" value={name} onChange={(e) => setName(e.target.value)} maxLength={100} placeholder="Support line" />
        </Field>
        {channels ? (
          <>
            <ChannelPicker channels={channels} value={channel?.name ?? ''} onChange={pick} />
            <ConfigFields fields={fields} values={values} errors={errors} onChange={(k, v) => {
              setEdits((cur) => ({ ...cur, [k]: v }));
              setErrors((cur) => ({ ...cur, [k]: '' }));
            }} />
          </>
        ) : channelsError ? (
          <InlineError>
            Could not load the channels: {channelsError}{' '}
            <Button size="sm" onClick={retry}>
              Try again
            </Button>
          </InlineError>
        ) : (
          <Loading label="Loading the channels…" />
        )}
        <label className={styles.check}>
          <input type="checkbox" className="checkbox" checked={connect} onChange={(e) => setConnect(e.target.checked)} />
          <span>Connect now</span>
        </label>
      </div>
    </Dialog>
  );
}

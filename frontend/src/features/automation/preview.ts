import { parseJSON, parseMetadata, templateFields, type EndpointFormValues } from './form';
import { renderTemplate, type Rendered } from './template';

/** What each template field is called in the preview. */
export const templateLabels: Record<string, string> = {
  to: 'Recipient',
  text: 'Text',
  mediaUrl: 'Image URL',
  url: 'Destination URL',
  slug: 'Slug',
  title: 'Title',
};

export interface PreviewRow {
  label: string;
  template: string;
  result: Rendered;
}

/**
 * The action's template fields rendered against a sample payload, as the service would
 * render them for a call with that payload: each field's value, or the error that would fail
 * the run. No rows when the sample is not JSON (sampleError says why).
 */
export function previewRows(
  values: EndpointFormValues,
  sample: string,
  endpoint: { id: string; name: string },
): { rows: PreviewRow[]; sampleError: string } {
  const type = values.actionType;
  if (!type) return { rows: [], sampleError: '' };
  const parsed = parseJSON(sample);
  if (!parsed.ok) return { rows: [], sampleError: `The sample payload is not valid JSON: ${parsed.error}` };
  const scope = { payload: parsed.value, endpoint };
  const rows: PreviewRow[] = [];
  for (const f of templateFields[type]) {
    if (!values[f]) continue;
    rows.push({ label: templateLabels[f] ?? f, template: values[f], result: renderTemplate(values[f], scope) });
  }
  if (type === 'CREATE_LINK') {
    const meta = parseMetadata(values.metadata);
    if (meta.ok) {
      for (const [k, t] of Object.entries(meta.value)) rows.push({ label: `Metadata ${k}`, template: t, result: renderTemplate(t, scope) });
    }
  }
  return { rows, sampleError: '' };
}

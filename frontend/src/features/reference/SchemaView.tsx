import { InlineMarkdown } from '../../components/InlineMarkdown';
import { deref, flatten, typeLabel, type OpenAPIDocument, type Schema } from './openapi';
import styles from './Reference.module.css';

function Constraints({ schema }: { schema: Schema }) {
  const bits: string[] = [];
  if (schema.enum) bits.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  if (schema.default !== undefined) bits.push(`default ${JSON.stringify(schema.default)}`);
  if (schema.minimum !== undefined) bits.push(`min ${schema.minimum}`);
  if (schema.maximum !== undefined) bits.push(`max ${schema.maximum}`);
  if (schema.minLength !== undefined) bits.push(`min length ${schema.minLength}`);
  if (schema.maxLength !== undefined) bits.push(`max length ${schema.maxLength}`);
  if (schema.readOnly) bits.push('read-only');
  if (schema.writeOnly) bits.push('write-only');
  if (!bits.length) return null;
  return <div className={styles.paramDesc}>{bits.join(' · ')}</div>;
}

/** Child schema to expand under a property: the object itself, or an array's object items. */
function nestedObject(doc: OpenAPIDocument, schema: Schema | undefined): Schema | undefined {
  const s = flatten(doc, schema);
  if (!s) return undefined;
  if (s.properties && Object.keys(s.properties).length) return s;
  if (s.items) {
    const items = flatten(doc, s.items);
    if (items?.properties && Object.keys(items.properties).length) return items;
  }
  const variant = (s.oneOf ?? s.anyOf)?.map((v) => flatten(doc, v)).find((v) => v?.properties);
  return variant;
}

/** The properties of an object schema, with types, required marks and nested objects. */
export function SchemaView({ doc, schema, depth = 0, seen = [] }: { doc: OpenAPIDocument; schema: Schema | undefined; depth?: number; seen?: string[] }) {
  const s = flatten(doc, schema);
  if (!s) return <p className={styles.paramDesc}>No schema.</p>;
  const obj = nestedObject(doc, schema);
  if (!obj?.properties) {
    return (
      <div className={styles.params}>
        <div className={styles.param}>
          <span className={styles.paramType}>{typeLabel(doc, schema)}</span>
          {s.description && (
            <div className={styles.paramDesc}>
              <InlineMarkdown text={s.description} />
            </div>
          )}
          <Constraints schema={s} />
        </div>
      </div>
    );
  }
  const required = new Set(obj.required ?? []);
  return (
    <div className={styles.params}>
      {depth === 0 && obj !== s && (
        <div className={styles.param}>
          <span className={styles.paramType}>{typeLabel(doc, schema)}</span>
        </div>
      )}
      {Object.entries(obj.properties).map(([name, raw]) => {
        const prop = deref(doc, raw) ?? {};
        const ref = raw.$ref ?? (prop.items?.$ref || undefined);
        const child = depth < 4 && !(ref && seen.includes(ref)) ? nestedObject(doc, raw) : undefined;
        return (
          <div key={name} className={styles.param}>
            <div className={styles.paramHead}>
              <span className={styles.paramName}>{name}</span>
              <span className={styles.paramType}>{typeLabel(doc, raw)}</span>
              {required.has(name) ? (
                <span className={styles.required}>required</span>
              ) : (
                <span className={styles.optionalMark}>optional</span>
              )}
            </div>
            {prop.description && (
              <div className={styles.paramDesc}>
                <InlineMarkdown text={prop.description} />
              </div>
            )}
            <Constraints schema={prop} />
            {child && (
              <details>
                <summary className={styles.nestedToggle}>Show child attributes</summary>
                <div className={styles.nested}>
                  <SchemaView doc={doc} schema={child} depth={depth + 1} seen={ref ? [...seen, ref] : seen} />
                </div>
              </details>
            )}
          </div>
        );
      })}
    </div>
  );
}

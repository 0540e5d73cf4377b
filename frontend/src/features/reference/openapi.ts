/** The subset of OpenAPI 3.1 the reference renders, and helpers to walk it. */

export type JSONValue = null | boolean | number | string | JSONValue[] | { [k: string]: JSONValue };

export interface Schema {
  $ref?: string;
  type?: string | string[];
  format?: string;
  description?: string;
  title?: string;
  enum?: JSONValue[];
  const?: JSONValue;
  default?: JSONValue;
  example?: JSONValue;
  examples?: JSONValue[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  additionalProperties?: boolean | Schema;
  oneOf?: Schema[];
  anyOf?: Schema[];
  allOf?: Schema[];
  nullable?: boolean;
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  readOnly?: boolean;
  writeOnly?: boolean;
  deprecated?: boolean;
}

export interface MediaType {
  schema?: Schema;
  example?: JSONValue;
  examples?: Record<string, { summary?: string; value?: JSONValue; $ref?: string }>;
}

export interface Parameter {
  $ref?: string;
  name: string;
  in: 'path' | 'query' | 'header' | 'cookie';
  required?: boolean;
  description?: string;
  schema?: Schema;
  example?: JSONValue;
  deprecated?: boolean;
}

export interface RequestBody {
  $ref?: string;
  description?: string;
  required?: boolean;
  content?: Record<string, MediaType>;
}

export interface Response {
  $ref?: string;
  description?: string;
  headers?: Record<string, { description?: string; schema?: Schema; $ref?: string }>;
  content?: Record<string, MediaType>;
}

export interface OperationObject {
  operationId?: string;
  summary?: string;
  description?: string;
  tags?: string[];
  parameters?: Parameter[];
  requestBody?: RequestBody;
  responses?: Record<string, Response>;
  security?: Record<string, string[]>[];
  deprecated?: boolean;
}

export interface OpenAPIDocument {
  openapi: string;
  info?: { title?: string; version?: string; description?: string };
  servers?: { url: string; description?: string }[];
  tags?: { name: string; description?: string }[];
  paths?: Record<string, Record<string, unknown>>;
  components?: {
    schemas?: Record<string, Schema>;
    parameters?: Record<string, Parameter>;
    requestBodies?: Record<string, RequestBody>;
    responses?: Record<string, Response>;
    securitySchemes?: Record<string, unknown>;
  };
  security?: Record<string, string[]>[];
}

export const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'] as const;
export type Method = (typeof METHODS)[number];

export interface Operation {
  id: string;
  method: Method;
  path: string;
  summary: string;
  description?: string;
  tag: string;
  parameters: Parameter[];
  requestBody?: RequestBody;
  responses: { status: string; response: Response }[];
  requiresAuth: boolean;
  deprecated: boolean;
}

export interface TagGroup {
  name: string;
  description?: string;
  operations: Operation[];
}

/** Follows a local $ref ("#/components/schemas/Model"). Unknown refs resolve to undefined. */
export function resolveRef<T>(doc: OpenAPIDocument, ref: string): T | undefined {
  if (!ref.startsWith('#/')) return undefined;
  let node: unknown = doc;
  for (const raw of ref.slice(2).split('/')) {
    const key = raw.replace(/~1/g, '/').replace(/~0/g, '~');
    if (node && typeof node === 'object' && key in (node as Record<string, unknown>)) {
      node = (node as Record<string, unknown>)[key];
    } else {
      return undefined;
    }
  }
  return node as T;
}

export function deref<T extends { $ref?: string }>(doc: OpenAPIDocument, value: T | undefined, depth = 0): T | undefined {
  if (!value) return undefined;
  if (value.$ref && depth < 20) return deref(doc, resolveRef<T>(doc, value.$ref), depth + 1);
  return value;
}

export function refName(ref: string | undefined): string | undefined {
  return ref ? ref.split('/').pop() : undefined;
}

function statusOrder(s: string): number {
  if (s === 'default') return 1000;
  const n = Number(s.replace(/X/gi, '0'));
  return Number.isFinite(n) ? n : 999;
}

/** Operations grouped by their first tag, in the document's tag order, then path order. */
export function groupOperations(doc: OpenAPIDocument): TagGroup[] {
  const groups = new Map<string, TagGroup>();
  for (const t of doc.tags ?? []) groups.set(t.name, { name: t.name, description: t.description, operations: [] });
  for (const [path, item] of Object.entries(doc.paths ?? {})) {
    const shared = ((item.parameters as Parameter[] | undefined) ?? []).map((p) => deref(doc, p)).filter(Boolean) as Parameter[];
    for (const method of METHODS) {
      const op = item[method] as OperationObject | undefined;
      if (!op) continue;
      const tag = op.tags?.[0] ?? 'Other';
      if (!groups.has(tag)) groups.set(tag, { name: tag, operations: [] });
      const own = (op.parameters ?? []).map((p) => deref(doc, p)).filter(Boolean) as Parameter[];
      const parameters = [...shared.filter((s) => !own.some((o) => o.name === s.name && o.in === s.in)), ...own];
      // Without any security declaration, assume the API's default: a Bearer key.
      const security = op.security ?? doc.security;
      groups.get(tag)!.operations.push({
        id: op.operationId ?? `${method}-${path}`,
        method,
        path,
        summary: op.summary ?? `${method.toUpperCase()} ${path}`,
        description: op.description,
        tag,
        parameters,
        requestBody: deref(doc, op.requestBody),
        responses: Object.entries(op.responses ?? {})
          .map(([status, r]) => ({ status, response: deref(doc, r) ?? {} }))
          .sort((a, b) => statusOrder(a.status) - statusOrder(b.status)),
        requiresAuth: security === undefined || (security.length > 0 && !security.some((s) => Object.keys(s).length === 0)),
        deprecated: !!op.deprecated,
      });
    }
  }
  return [...groups.values()].filter((g) => g.operations.length > 0);
}

/** "string", "integer (int64)", "array of Model", "string | null", "Model". */
export function typeLabel(doc: OpenAPIDocument, schema: Schema | undefined): string {
  if (!schema) return 'any';
  if (schema.$ref) return refName(schema.$ref) ?? 'object';
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants) return variants.map((s) => typeLabel(doc, s)).join(' | ');
  if (schema.allOf) return schema.allOf.map((s) => typeLabel(doc, s)).join(' & ');
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  if (!types.length) {
    if (schema.properties) return 'object';
    if (schema.enum) return 'enum';
    return 'any';
  }
  const labels = types.map((t) => {
    if (t === 'array') return `array of ${typeLabel(doc, schema.items)}`;
    return schema.format && t !== 'null' ? `${t} (${schema.format})` : t;
  });
  if (schema.nullable) labels.push('null');
  return labels.join(' | ');
}

/** Merges allOf members into one object schema for display. */
export function flatten(doc: OpenAPIDocument, schema: Schema | undefined, depth = 0): Schema | undefined {
  const s = deref(doc, schema);
  if (!s || depth > 10) return s;
  if (!s.allOf) return s;
  const merged: Schema = { ...s, allOf: undefined, properties: { ...(s.properties ?? {}) }, required: [...(s.required ?? [])] };
  for (const part of s.allOf) {
    const p = flatten(doc, part, depth + 1);
    if (!p) continue;
    Object.assign(merged.properties!, p.properties ?? {});
    merged.required!.push(...(p.required ?? []));
    merged.type ??= p.type;
    merged.description ??= p.description;
  }
  return merged;
}

/** An example value for a schema: its own example, else one made up from types. */
export function exampleFor(doc: OpenAPIDocument, schema: Schema | undefined, depth = 0, seen: Set<string> = new Set()): JSONValue {
  if (!schema || depth > 8) return null;
  if (schema.$ref) {
    if (seen.has(schema.$ref)) return {};
    const next = new Set(seen).add(schema.$ref);
    return exampleFor(doc, resolveRef<Schema>(doc, schema.$ref), depth + 1, next);
  }
  if (schema.example !== undefined) return schema.example;
  if (schema.examples?.length) return schema.examples[0]!;
  if (schema.const !== undefined) return schema.const;
  if (schema.default !== undefined) return schema.default;
  if (schema.enum?.length) return schema.enum[0]!;
  const variants = schema.oneOf ?? schema.anyOf;
  if (variants?.length) return exampleFor(doc, variants[0], depth + 1, seen);
  if (schema.allOf) return exampleFor(doc, flatten(doc, schema), depth + 1, seen);
  const types = Array.isArray(schema.type) ? schema.type.filter((t) => t !== 'null') : schema.type ? [schema.type] : [];
  const type = types[0] ?? (schema.properties ? 'object' : undefined);
  switch (type) {
    case 'object': {
      const out: Record<string, JSONValue> = {};
      for (const [k, v] of Object.entries(schema.properties ?? {})) {
        if (deref(doc, v)?.readOnly && depth === 0) continue;
        out[k] = exampleFor(doc, v, depth + 1, seen);
      }
      return out;
    }
    case 'array':
      return schema.items ? [exampleFor(doc, schema.items, depth + 1, seen)] : [];
    case 'integer':
      return schema.minimum ?? 0;
    case 'number':
      return schema.minimum ?? 0;
    case 'boolean':
      return true;
    case 'string':
      if (schema.format === 'date-time') return '2025-01-01T00:00:00.000Z';
      if (schema.format === 'uri' || schema.format === 'url') return 'https://example.com';
      if (schema.format === 'email') return 'user@example.com';
      return 'string';
    default:
      return null;
  }
}

/** The example of a media type: explicit example, first named example, or one made from its schema. */
export function mediaExample(doc: OpenAPIDocument, media: MediaType | undefined, generate = true): JSONValue | undefined {
  if (!media) return undefined;
  if (media.example !== undefined) return media.example;
  const first = media.examples ? Object.values(media.examples)[0] : undefined;
  if (first) {
    const ex = first.$ref ? resolveRef<{ value?: JSONValue }>(doc, first.$ref) : first;
    if (ex?.value !== undefined) return ex.value;
  }
  return generate && media.schema ? exampleFor(doc, media.schema) : undefined;
}

export function jsonMedia(content: Record<string, MediaType> | undefined): [string, MediaType] | undefined {
  if (!content) return undefined;
  const entries = Object.entries(content);
  return entries.find(([type]) => type.includes('json')) ?? entries[0];
}

import { isObject, type JsonObject, type JsonValue, type PathSegment } from '@edict/foundation';

/**
 * A small structural schema language, enough to express Kyverno's CRD schemas (types, required
 * fields, enums, unknown fields) plus the cross-field rules Kyverno checks in code.
 */

export type Report = (path: readonly PathSegment[], message: string, severity?: 'error' | 'warning') => void;

/** Cross-field check run after the object's own fields were checked. */
export type ObjectCheck = (value: JsonObject, path: readonly PathSegment[], report: Report) => void;

/**
 * What the CRD generator reads besides the structure (see schema-openapi.ts): the field's docs for
 * `kubectl explain`, the default the API server fills in, and whether null is a value.
 */
export interface Docs {
  readonly description?: string;
  readonly default?: JsonValue;
  readonly nullable?: boolean;
}

export type Schema = Docs &
  (
    | {
        readonly type: 'string';
        readonly enum?: readonly string[];
        readonly maxLength?: number;
        readonly pattern?: RegExp;
        /** OpenAPI's format (date-time, ...): documentation, not checked, as kube checks few. */
        readonly format?: string;
      }
    | { readonly type: 'boolean' }
    | { readonly type: 'integer'; readonly min?: number; readonly max?: number; readonly format?: string }
    /** Kubernetes' IntOrString (a port, a percentage). */
    | { readonly type: 'int-or-string' }
    | { readonly type: 'any' }
    /** `minItems`: the fewest entries a present list may have (kubebuilder's MinItems). */
    | { readonly type: 'array'; readonly items: Schema; readonly minItems?: number }
    | {
        readonly type: 'object';
        readonly fields: Readonly<Record<string, Schema>>;
        readonly required?: readonly string[];
        /** Schema of every value of a map-like object (labels, annotations, ...). */
        readonly values?: Schema;
        /** Accept fields not listed (metadata, embedded third-party structures). */
        readonly open?: boolean;
        /** Exactly one of these fields is set: a `oneOf` in the CRD, a check in code (see `check`). */
        readonly oneOf?: readonly string[];
        readonly check?: ObjectCheck;
      }
    | { readonly type: 'either'; readonly array: Schema; readonly object: Schema }
    /** A recursive reference: the CRD cuts it (Kubernetes schemas cannot recurse), validation follows it. */
    | { readonly type: 'lazy'; readonly get: () => Schema }
  );

type StringOptions = Docs & { enum?: readonly string[]; maxLength?: number; pattern?: RegExp; format?: string };
export const str = (options: StringOptions = {}): Schema => ({ type: 'string', ...options });
export const bool = (options: Docs = {}): Schema => ({ type: 'boolean', ...options });
export const int = (options: Docs & { min?: number; max?: number; format?: string } = {}): Schema => ({
  type: 'integer',
  ...options,
});
export const intOrString = (options: Docs = {}): Schema => ({ type: 'int-or-string', ...options });
export const any = (options: Docs = {}): Schema => ({ type: 'any', ...options });
export const arr = (items: Schema, options: Docs & { minItems?: number } = {}): Schema => ({
  type: 'array',
  items,
  ...options,
});
export const obj = (
  fields: Record<string, Schema>,
  options: Docs & { required?: readonly string[]; open?: boolean; oneOf?: readonly string[]; check?: ObjectCheck } = {},
): Schema => ({ type: 'object', fields, ...options });
export const map = (values: Schema, options: Docs = {}): Schema => ({ type: 'object', fields: {}, values, ...options });
export const either = (array: Schema, object: Schema, options: Docs = {}): Schema => ({
  type: 'either',
  array,
  object,
  ...options,
});
export const lazy = (get: () => Schema, options: Docs = {}): Schema => ({ type: 'lazy', get, ...options });

/** `schema` with its description (docs read best next to the field name). */
export function doc<S extends Schema>(description: string, schema: S): S {
  return { ...schema, description };
}

/** Checks `value` against `schema`; null counts as absent, as it does when Kubernetes decodes. */
export function validate(schema: Schema, value: JsonValue, path: readonly PathSegment[], report: Report): void {
  if (value === null) return;
  switch (schema.type) {
    case 'any':
      return;
    case 'lazy':
      return validate(schema.get(), value, path, report);
    case 'string':
      if (typeof value !== 'string') return report(path, typeMismatch('string', value));
      if (schema.enum && !schema.enum.includes(value)) {
        return report(
          path,
          `unsupported value ${JSON.stringify(value)}: supported values: ${schema.enum.map((e) => JSON.stringify(e)).join(', ')}`,
        );
      }
      if (schema.maxLength !== undefined && value.length > schema.maxLength) {
        return report(path, `must be no more than ${schema.maxLength} characters (has ${value.length})`);
      }
      if (schema.pattern && !schema.pattern.test(value)) {
        return report(path, `invalid value ${JSON.stringify(value)}: must match ${schema.pattern.source}`);
      }
      return;
    case 'boolean':
      if (typeof value !== 'boolean') report(path, typeMismatch('boolean', value));
      return;
    case 'int-or-string':
      if (typeof value !== 'string' && !(typeof value === 'number' && Number.isInteger(value))) {
        report(path, typeMismatch('integer or string', value));
      }
      return;
    case 'integer':
      if (typeof value !== 'number' || !Number.isInteger(value)) return report(path, typeMismatch('integer', value));
      if ((schema.min !== undefined && value < schema.min) || (schema.max !== undefined && value > schema.max)) {
        report(path, `must be between ${schema.min ?? '-∞'} and ${schema.max ?? '∞'}, got ${value}`);
      }
      return;
    case 'array':
      if (!Array.isArray(value)) return report(path, typeMismatch('array', value));
      if (schema.minItems !== undefined && value.length < schema.minItems) {
        report(
          path,
          `must have at least ${schema.minItems} item${schema.minItems === 1 ? '' : 's'} (has ${value.length})`,
        );
      }
      value.forEach((item, i) => {
        // A null field is absent, but a null list entry is an entry of the wrong type (the API server refuses it).
        const expected = item === null ? typeName(schema.items) : undefined;
        if (expected) report([...path, i], typeMismatch(expected, item));
        else validate(schema.items, item, [...path, i], report);
      });
      return;
    case 'either':
      if (Array.isArray(value)) return validate(schema.array, value, path, report);
      if (isObject(value)) return validate(schema.object, value, path, report);
      return report(path, typeMismatch('object or array', value));
    case 'object':
      return validateObject(schema, value, path, report);
  }
}

function validateObject(
  schema: Extract<Schema, { type: 'object' }>,
  value: JsonValue,
  path: readonly PathSegment[],
  report: Report,
): void {
  if (!isObject(value)) return report(path, typeMismatch('object', value));
  for (const key of schema.required ?? []) {
    if (value[key] === undefined || value[key] === null) report([...path, key], 'required field is missing');
  }
  for (const [key, item] of Object.entries(value)) {
    const field = Object.prototype.hasOwnProperty.call(schema.fields, key) ? schema.fields[key] : schema.values;
    if (field) validate(field, item, [...path, key], report);
    else if (!schema.open) report([...path, key], `unknown field ${JSON.stringify(key)}`);
  }
  schema.check?.(value, path, report);
}

function typeMismatch(expected: string, value: JsonValue): string {
  return `expected ${expected}, got ${describe(value)}`;
}

/** Whether a reported message is a wrong type (as opposed to a missing, unknown or out-of-range value). */
export function isTypeMismatch(message: string): boolean {
  return /^expected [a-z ]+, got /.test(message);
}

/** What a schema expects, for a type mismatch message; undefined when anything goes. */
function typeName(schema: Schema): string | undefined {
  switch (schema.type) {
    case 'any':
      return undefined;
    case 'lazy':
      return typeName(schema.get());
    case 'either':
      return 'object or array';
    case 'int-or-string':
      return 'integer or string';
    default:
      return schema.type;
  }
}

export function describe(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (isObject(value)) return 'object';
  if (typeof value === 'string')
    return `string ${JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value)}`;
  return `${typeof value} ${String(value)}`;
}

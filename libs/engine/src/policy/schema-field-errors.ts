import { isObject, type JsonObject, type JsonValue, formatPath, parsePath, type PathSegment } from '@edict/foundation';
import type { Schema } from './schema-dsl';

/** One refusal, worded as kube-apiserver words it for a custom resource. */
export interface CrdFieldError {
  /** `spec.rules[0].match`; empty for an unknown field (its message names it), `<nil>` for a oneOf, as kube does. */
  readonly field: string;
  readonly message: string;
}

/**
 * What the API server refuses when `value` is written against the CRD generated from `schema`
 * (toOpenApiSchema), in its words: wrong types, enums, required fields, lengths, patterns, bounds,
 * and, as with `fieldValidation=Strict` (kubectl's default), fields the schema does not declare.
 * Stops where the CRD does (free-form fields, a recursion); cross-field checks are not the CRD's.
 * Null is absent, as kube prunes a null it was not told to keep before validating.
 */
export function crdFieldErrors(schema: Schema, value: JsonValue, path: readonly PathSegment[] = []): CrdFieldError[] {
  const errors: CrdFieldError[] = [];
  walk(schema, value, path, errors);
  return errors;
}

function walk(schema: Schema, value: JsonValue, path: readonly PathSegment[], errors: CrdFieldError[]): void {
  if (value === null) return;
  const at = formatPath(path);
  const wrongType = (expected: string): void => {
    errors.push({
      field: at,
      message: invalid(kind(value), `${at} in body must be of type ${expected}: "${kind(value)}"`),
    });
  };
  switch (schema.type) {
    case 'any':
    case 'either':
    case 'lazy':
      return;
    case 'int-or-string':
      if (typeof value !== 'string' && kind(value) !== 'integer') wrongType('integer,string');
      return;
    case 'boolean':
      if (typeof value !== 'boolean') wrongType('boolean');
      return;
    case 'integer':
      if (kind(value) !== 'integer') return wrongType('integer');
      if (schema.min !== undefined && (value as number) < schema.min) {
        errors.push({
          field: at,
          message: invalid(value, `${at} in body should be greater than or equal to ${schema.min}`),
        });
      }
      if (schema.max !== undefined && (value as number) > schema.max) {
        errors.push({
          field: at,
          message: invalid(value, `${at} in body should be less than or equal to ${schema.max}`),
        });
      }
      return;
    case 'string':
      if (typeof value !== 'string') return wrongType('string');
      if (schema.maxLength !== undefined && [...value].length > schema.maxLength) {
        const unit = schema.maxLength === 1 ? 'byte' : 'bytes';
        errors.push({ field: at, message: `Too long: may not be more than ${schema.maxLength} ${unit}` });
      }
      if (schema.pattern && !schema.pattern.test(value)) {
        errors.push({ field: at, message: invalid(value, `${at} in body should match '${schema.pattern.source}'`) });
      }
      if (schema.enum && !schema.enum.includes(value)) {
        const supported = schema.enum.map((e) => JSON.stringify(e)).join(', ');
        errors.push({
          field: at,
          message: `Unsupported value: ${JSON.stringify(value)}: supported values: ${supported}`,
        });
      }
      return;
    case 'array':
      if (!Array.isArray(value)) return wrongType('array');
      if (schema.minItems !== undefined && value.length < schema.minItems) {
        errors.push({
          field: at,
          message: invalid(value.length, `${at} in body should have at least ${schema.minItems} items`),
        });
      }
      // A null entry is not pruned: it is an entry of the wrong type.
      value.forEach((item, i) => {
        if (item === null && !schema.items.nullable && !freeForm(schema.items)) {
          const entry = formatPath([...path, i]);
          errors.push({
            field: entry,
            message: invalid(null, `${entry} in body must be of type ${expectedType(schema.items)}: "null"`),
          });
        } else walk(schema.items, item, [...path, i], errors);
      });
      return;
    case 'object': {
      if (!isObject(value)) return wrongType('object');
      for (const name of schema.required ?? []) {
        if (value[name] === undefined || value[name] === null)
          errors.push({ field: formatPath([...path, name]), message: 'Required value' });
      }
      if (schema.oneOf) oneOf(schema.oneOf, value, at, errors);
      const listed = Object.keys(schema.fields);
      const keyed = schema.values && listed.length === 0;
      for (const [name, item] of Object.entries(value)) {
        const field = Object.prototype.hasOwnProperty.call(schema.fields, name) ? schema.fields[name] : undefined;
        if (field) walk(field, item, [...path, name], errors);
        else if (keyed) walk(schema.values!, item, [...path, name], errors);
        else if (!schema.open && !schema.values) {
          errors.push({ field: '', message: `unknown field ${JSON.stringify(formatPath([...path, name]))}` });
        }
      }
      return;
    }
  }
}

/** kube's junctor error names no field; when none is set, the first alternative's missing field follows. */
function oneOf(names: readonly string[], value: JsonObject, at: string, errors: CrdFieldError[]): void {
  const set = names.filter((name) => value[name] !== undefined && value[name] !== null);
  if (set.length === 1) return;
  const found = set.length === 0 ? 'Found none valid' : `Found ${set.length} valid alternatives`;
  errors.push({
    field: '<nil>',
    message: `Invalid value: "": "${at}" must validate one and only one schema (oneOf). ${found}`,
  });
  if (set.length === 0) errors.push({ field: formatPath([...parsePath(at), names[0]!]), message: 'Required value' });
}

function freeForm(schema: Schema): boolean {
  return schema.type === 'any' || schema.type === 'either' || schema.type === 'lazy';
}

function expectedType(schema: Schema): string {
  return schema.type === 'int-or-string' ? 'integer,string' : schema.type;
}

/** kube's type names: integral numbers are integers. */
function kind(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function invalid(value: JsonValue, detail: string): string {
  return `Invalid value: ${goValue(value)}: ${detail}`;
}

/** A value as kube's field errors print it: strings quoted, numbers and booleans bare. */
function goValue(value: JsonValue): string {
  if (value === null) return '"null"';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

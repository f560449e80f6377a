/**
 * A custom resource checked against its version's `openAPIV3Schema`, as kube-apiserver's
 * apiextensions validator does (kube-openapi's validator, its errors turned into field errors):
 * types (with `nullable` and `x-kubernetes-int-or-string`), enum, required, string lengths and
 * patterns (Go's regexp), number bounds, item counts, property counts, `additionalProperties`,
 * `x-kubernetes-list-type` set/map uniqueness and the `allOf`/`anyOf`/`oneOf`/`not` junctors.
 * `format` and `x-kubernetes-validations` (CEL) are not checked.
 *
 * Messages are kube's: `spec.replicas: Invalid value: "string": spec.replicas in body must be of
 * type integer: "string"`, `spec.kind: Required value`; a junctor's failure names no field
 * (`<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid`),
 * followed by the errors of the alternative that came closest.
 */
import { deepEqual, goRegexpMatch, isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { StatusCause } from '../status';

/** Where a junctor's error points: kube reports these without a field. */
const NO_FIELD = '<nil>';

interface Outcome {
  readonly causes: StatusCause[];
  /** Checks passed: among failing alternatives, the one with most passes is reported (as kube-openapi does). */
  passed: number;
}

/** Every cause of `object` not fitting `schema`; metadata is left to kube's object-meta checks. */
export function validateBySchema(object: JsonObject, schema: JsonObject): StatusCause[] {
  const root: JsonObject = { ...schema };
  if (isObject(schema.properties)) {
    const { metadata: _ignored, ...properties } = schema.properties;
    root.properties = properties;
  }
  const { metadata: _metadata, ...rest } = object;
  return dedupe(check(rest, root, '').causes);
}

function check(value: JsonValue, schema: JsonObject, path: string): Outcome {
  const outcome: Outcome = { causes: [], passed: 0 };
  if (value === null && schema.nullable === true) return outcome;
  if (!typeFits(value, schema, path, outcome)) return outcome;
  checkJunctors(value, schema, path, outcome);
  if (typeof value === 'string') checkString(value, schema, path, outcome);
  if (typeof value === 'number') checkNumber(value, schema, path, outcome);
  if (Array.isArray(value)) checkArray(value, schema, path, outcome);
  if (Array.isArray(schema.enum)) {
    if (schema.enum.some((allowed) => deepEqual(allowed, value))) outcome.passed++;
    else outcome.causes.push(notSupported(path, value, schema.enum));
  }
  if (isObject(value)) checkObject(value, schema, path, outcome);
  return outcome;
}

function typeName(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function typeFits(value: JsonValue, schema: JsonObject, path: string, outcome: Outcome): boolean {
  const actual = typeName(value);
  let expected: string | undefined;
  if (schema['x-kubernetes-int-or-string'] === true) {
    if (actual !== 'integer' && actual !== 'string') expected = 'integer,string';
  } else if (typeof schema.type === 'string') {
    const fits = schema.type === actual || (schema.type === 'number' && actual === 'integer');
    if (!fits) expected = schema.type;
  }
  if (expected === undefined) {
    outcome.passed++;
    return true;
  }
  outcome.causes.push(invalidValue(path, actual, `${path} in body must be of type ${expected}: "${actual}"`));
  return false;
}

function checkJunctors(value: JsonValue, schema: JsonObject, path: string, outcome: Outcome): void {
  const alternatives = (key: string): JsonObject[] =>
    Array.isArray(schema[key]) ? (schema[key] as JsonValue[]).filter(isObject) : [];
  const allOf = alternatives('allOf');
  if (allOf.length > 0) {
    const results = allOf.map((sub) => check(value, sub, path));
    const valid = results.filter((r) => r.causes.length === 0).length;
    for (const result of results) merge(outcome, result);
    if (valid !== allOf.length) {
      const none = valid === 0 ? '. None validated' : '';
      outcome.causes.push(junctorFailure(`"${path}" must validate all the schemas (allOf)${none}`));
    }
  }
  const anyOf = alternatives('anyOf');
  if (anyOf.length > 0) {
    const results = anyOf.map((sub) => check(value, sub, path));
    const valid = results.find((r) => r.causes.length === 0);
    if (valid) merge(outcome, valid);
    else {
      outcome.causes.push(junctorFailure(`"${path}" must validate at least one schema (anyOf)`));
      merge(outcome, closest(results));
    }
  }
  const oneOf = alternatives('oneOf');
  if (oneOf.length > 0) {
    const results = oneOf.map((sub) => check(value, sub, path));
    const valid = results.filter((r) => r.causes.length === 0);
    if (valid.length === 1) merge(outcome, valid[0]!);
    else {
      const found = valid.length === 0 ? 'Found none valid' : `Found ${valid.length} valid alternatives`;
      outcome.causes.push(junctorFailure(`"${path}" must validate one and only one schema (oneOf). ${found}`));
      if (valid.length === 0) merge(outcome, closest(results));
    }
  }
  if (isObject(schema.not)) {
    if (check(value, schema.not, path).causes.length === 0) {
      outcome.causes.push(junctorFailure(`"${path}" must not validate the schema (not)`));
    } else outcome.passed++;
  }
}

/** The failing alternative with the most checks passed; the first one on a tie. */
function closest(results: readonly Outcome[]): Outcome {
  return results.reduce((best, result) => (result.passed > best.passed ? result : best));
}

function checkString(value: string, schema: JsonObject, path: string, outcome: Outcome): void {
  const length = [...value].length;
  if (typeof schema.maxLength === 'number' && length > schema.maxLength) {
    const unit = schema.maxLength === 1 ? 'byte' : 'bytes';
    outcome.causes.push(cause('FieldValueTooLong', path, `Too long: may not be more than ${schema.maxLength} ${unit}`));
  } else outcome.passed++;
  if (typeof schema.minLength === 'number' && length < schema.minLength) {
    outcome.causes.push(invalidValue(path, value, `${path} in body should be at least ${schema.minLength} chars long`));
  } else outcome.passed++;
  if (typeof schema.pattern === 'string') {
    let matches: boolean;
    try {
      matches = goRegexpMatch(schema.pattern, value);
    } catch {
      matches = false; // kube refuses such a CRD; nothing can match a pattern that does not compile
    }
    if (!matches) outcome.causes.push(invalidValue(path, value, `${path} in body should match '${schema.pattern}'`));
    else outcome.passed++;
  }
}

function checkNumber(value: number, schema: JsonObject, path: string, outcome: Outcome): void {
  const bound = (limit: JsonValue | undefined, exclusive: JsonValue | undefined, below: boolean): void => {
    if (typeof limit !== 'number') return;
    const strict = exclusive === true;
    const fails = below ? (strict ? value <= limit : value < limit) : strict ? value >= limit : value > limit;
    if (!fails) {
      outcome.passed++;
      return;
    }
    const relation = below
      ? strict
        ? 'greater than'
        : 'greater than or equal to'
      : strict
        ? 'less than'
        : 'less than or equal to';
    outcome.causes.push(invalidValue(path, value, `${path} in body should be ${relation} ${limit}`));
  };
  bound(schema.minimum, schema.exclusiveMinimum, true);
  bound(schema.maximum, schema.exclusiveMaximum, false);
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0) {
    const quotient = value / schema.multipleOf;
    if (Math.abs(quotient - Math.round(quotient)) > 1e-9) {
      outcome.causes.push(invalidValue(path, value, `${path} in body should be a multiple of ${schema.multipleOf}`));
    } else outcome.passed++;
  }
}

function checkArray(value: JsonValue[], schema: JsonObject, path: string, outcome: Outcome): void {
  if (typeof schema.maxItems === 'number' && value.length > schema.maxItems) {
    const unit = schema.maxItems === 1 ? 'item' : 'items';
    outcome.causes.push(
      cause('FieldValueTooMany', path, `Too many: ${value.length}: must have at most ${schema.maxItems} ${unit}`),
    );
  }
  if (typeof schema.minItems === 'number' && value.length < schema.minItems) {
    outcome.causes.push(
      invalidValue(path, value.length, `${path} in body should have at least ${schema.minItems} items`),
    );
  }
  if (isObject(schema.items)) {
    const items = schema.items;
    value.forEach((item, index) => merge(outcome, check(item, items, `${path}[${index}]`)));
  }
  checkListType(value, schema, path, outcome);
}

/** `x-kubernetes-list-type: set` items, and `map` items by their `x-kubernetes-list-map-keys`, are unique. */
function checkListType(value: JsonValue[], schema: JsonObject, path: string, outcome: Outcome): void {
  const listType = schema['x-kubernetes-list-type'];
  if (listType !== 'set' && listType !== 'map') return;
  const keys = Array.isArray(schema['x-kubernetes-list-map-keys'])
    ? schema['x-kubernetes-list-map-keys'].filter((k): k is string => typeof k === 'string')
    : [];
  const seen: JsonValue[] = [];
  value.forEach((item, index) => {
    const identity: JsonValue =
      listType === 'set' ? item : isObject(item) ? Object.fromEntries(keys.map((k) => [k, item[k] ?? null])) : item;
    if (seen.some((earlier) => deepEqual(earlier, identity))) {
      outcome.causes.push(cause('FieldValueDuplicate', `${path}[${index}]`, `Duplicate value: ${goValue(identity)}`));
    } else seen.push(identity);
  });
}

function checkObject(value: JsonObject, schema: JsonObject, path: string, outcome: Outcome): void {
  const count = Object.keys(value).length;
  if (typeof schema.maxProperties === 'number' && count > schema.maxProperties) {
    outcome.causes.push(
      invalidValue(path, count, `${path} in body should have at most ${schema.maxProperties} properties`),
    );
  }
  if (typeof schema.minProperties === 'number' && count < schema.minProperties) {
    outcome.causes.push(
      invalidValue(path, count, `${path} in body should have at least ${schema.minProperties} properties`),
    );
  }
  const required = Array.isArray(schema.required) ? schema.required : [];
  for (const name of required) {
    if (typeof name !== 'string') continue;
    if (name in value) outcome.passed++;
    else outcome.causes.push(cause('FieldValueRequired', child(path, name), 'Required value'));
  }
  const properties = isObject(schema.properties) ? schema.properties : {};
  for (const [name, propertySchema] of Object.entries(properties)) {
    if (name in value && isObject(propertySchema))
      merge(outcome, check(value[name]!, propertySchema, child(path, name)));
  }
  const additional = schema.additionalProperties;
  if (isObject(additional)) {
    for (const [name, item] of Object.entries(value)) {
      if (!(name in properties)) merge(outcome, check(item, additional, child(path, name)));
    }
  } else if (additional === false) {
    for (const name of Object.keys(value)) {
      if (name in properties) continue;
      const at = child(path, name);
      outcome.causes.push(cause('FieldValueForbidden', at, `Forbidden: ${at} in body is a forbidden property`));
    }
  }
}

function child(path: string, name: string): string {
  return path === '' ? name : `${path}.${name}`;
}

function merge(into: Outcome, from: Outcome): void {
  into.causes.push(...from.causes);
  into.passed += from.passed;
}

/** kube aggregates field errors without repeats. */
function dedupe(causes: readonly StatusCause[]): StatusCause[] {
  const seen = new Set<string>();
  return causes.filter((c) => {
    const key = `${c.field}: ${c.message}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

function cause(reason: string, field: string, message: string): StatusCause {
  return { reason, field, message };
}

function invalidValue(path: string, value: JsonValue, detail: string): StatusCause {
  return cause('FieldValueInvalid', path, `Invalid value: ${goValue(value)}: ${detail}`);
}

function junctorFailure(detail: string): StatusCause {
  return cause('FieldValueInvalid', NO_FIELD, `Invalid value: "": ${detail}`);
}

function notSupported(path: string, value: JsonValue, allowed: readonly JsonValue[]): StatusCause {
  const quoted = allowed.map((v) => JSON.stringify(typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  return cause('FieldValueNotSupported', path, `Unsupported value: ${goValue(value)}: supported values: ${quoted}`);
}

/** A value as kube's field errors print it: strings quoted, numbers and booleans bare, null as "null". */
function goValue(value: JsonValue): string {
  if (value === null) return '"null"';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  return JSON.stringify(value);
}

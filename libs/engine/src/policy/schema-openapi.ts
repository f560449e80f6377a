import type { JsonObject } from '@edict/foundation';
import type { Schema } from './schema-dsl';

/**
 * A schema of the DSL as the structural OpenAPI v3 schema a CRD carries. What Kubernetes cannot
 * express structurally becomes `x-kubernetes-preserve-unknown-fields` (kept as written, checked by
 * the DSL in code), as Kyverno's own CRDs do for free-form JSON:
 *  - `any`, and the fields an `open` object does not list;
 *  - `either` (a list or an object, e.g. kyverno.io/v1 preconditions);
 *  - `lazy`: Kubernetes schemas cannot recurse, so the recursion is cut at its first step (a nested
 *    `foreach` is free-form, as in Kyverno's CRDs).
 * Cross-field `check`s are left out: they are code, as in Kyverno.
 */
export function toOpenApiSchema(schema: Schema): JsonObject {
  const out = body(schema);
  if (schema.description !== undefined) out.description = schema.description;
  if (schema.default !== undefined) out.default = schema.default;
  if (schema.nullable) out.nullable = true;
  return order(out);
}

function body(schema: Schema): JsonObject {
  switch (schema.type) {
    case 'string': {
      const out: JsonObject = { type: 'string' };
      if (schema.enum) out.enum = [...schema.enum];
      if (schema.maxLength !== undefined) out.maxLength = schema.maxLength;
      if (schema.pattern) out.pattern = schema.pattern.source;
      if (schema.format) out.format = schema.format;
      return out;
    }
    case 'boolean':
      return { type: 'boolean' };
    case 'integer': {
      const out: JsonObject = { type: 'integer' };
      if (schema.min !== undefined) out.minimum = schema.min;
      if (schema.max !== undefined) out.maximum = schema.max;
      if (schema.format) out.format = schema.format;
      return out;
    }
    case 'int-or-string':
      return { 'x-kubernetes-int-or-string': true };
    case 'any':
    case 'either':
    case 'lazy':
      return { 'x-kubernetes-preserve-unknown-fields': true };
    case 'array': {
      const out: JsonObject = { type: 'array', items: toOpenApiSchema(schema.items) };
      if (schema.minItems !== undefined) out.minItems = schema.minItems;
      return out;
    }
    case 'object': {
      const out: JsonObject = { type: 'object' };
      const names = Object.keys(schema.fields);
      if (names.length > 0) {
        out.properties = Object.fromEntries(names.map((name) => [name, toOpenApiSchema(schema.fields[name]!)]));
      }
      // Kubernetes forbids `additionalProperties` beside `properties`: a map with listed keys stays open.
      if (schema.values && names.length === 0) out.additionalProperties = toOpenApiSchema(schema.values);
      else if (schema.values || schema.open) out['x-kubernetes-preserve-unknown-fields'] = true;
      if (schema.required && schema.required.length > 0) out.required = [...schema.required].sort();
      if (schema.oneOf) out.oneOf = schema.oneOf.map((name) => ({ required: [name] }));
      return out;
    }
  }
}

/** Keys in controller-gen's order (alphabetical), so the generated YAML reads like Kyverno's. */
function order(node: JsonObject): JsonObject {
  return Object.fromEntries(
    Object.keys(node)
      .sort()
      .map((key) => [key, node[key]!]),
  );
}

/**
 * Structural pruning of a custom resource, as kube-apiserver's apiextensions pruning does: a field
 * its version's `openAPIV3Schema` does not specify is dropped, unless the schema around it says
 * `x-kubernetes-preserve-unknown-fields: true`; `additionalProperties` values are pruned by their
 * schema, list items by `items`. `apiVersion`, `kind` and `metadata` of the object (and of every
 * `x-kubernetes-embedded-resource`) are kept, metadata down to ObjectMeta's fields. Junctors
 * (`allOf`...) only validate: structural schemas cannot specify fields in them.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import { pruneObjectMeta } from './prune-builtin';
import { child, item, ROOT, type FieldPath, type Pruned } from './unknown-fields';

export function pruneBySchema(object: JsonObject, schema: JsonObject): Pruned<JsonObject> {
  const unknown: FieldPath[] = [];
  const value = pruneResource(object, schema, ROOT, unknown);
  return { value, unknown };
}

/** An object with its type meta (the root, or an embedded resource). */
function pruneResource(object: JsonObject, schema: JsonObject, path: FieldPath, unknown: FieldPath[]): JsonObject {
  const { apiVersion, kind, metadata, ...rest } = object;
  const pruned = pruneObject(rest, schema, path, unknown);
  const out: JsonObject = {};
  if (apiVersion !== undefined) out.apiVersion = apiVersion;
  if (kind !== undefined) out.kind = kind;
  if (metadata !== undefined) {
    out.metadata = isObject(metadata) ? pruneObjectMeta(metadata, child(path, 'metadata'), unknown) : metadata;
  }
  return { ...out, ...pruned };
}

function prune(value: JsonValue, schema: JsonObject, path: FieldPath, unknown: FieldPath[]): JsonValue {
  if (Array.isArray(value)) {
    const items = schema.items;
    if (!isObject(items)) return value;
    const keys = schema['x-kubernetes-list-type'] === 'map' ? strings(schema['x-kubernetes-list-map-keys']) : [];
    return value.map((entry, index) => prune(entry, items, item(path, index, entry, keys), unknown));
  }
  if (!isObject(value)) return value;
  if (schema['x-kubernetes-embedded-resource'] === true) return pruneResource(value, schema, path, unknown);
  return pruneObject(value, schema, path, unknown);
}

function pruneObject(object: JsonObject, schema: JsonObject, path: FieldPath, unknown: FieldPath[]): JsonObject {
  const properties = isObject(schema.properties) ? schema.properties : undefined;
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  const preserve = schema['x-kubernetes-preserve-unknown-fields'] === true || schema.additionalProperties === true;
  const out: JsonObject = {};
  for (const [name, value] of Object.entries(object)) {
    const property = properties && Object.hasOwn(properties, name) ? properties[name] : undefined;
    const fieldSchema = isObject(property) ? property : additional;
    if (fieldSchema) out[name] = prune(value, fieldSchema, child(path, name), unknown);
    else if (preserve) out[name] = value;
    else unknown.push(child(path, name));
  }
  return out;
}

function strings(value: JsonValue | undefined): string[] {
  return Array.isArray(value) ? value.filter((entry): entry is string => typeof entry === 'string') : [];
}

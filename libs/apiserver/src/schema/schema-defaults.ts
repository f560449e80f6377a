/**
 * A custom resource with its schema's `default`s filled in, as kube-apiserver's structural
 * defaulting does: a property that is missing (or null where the schema does not allow null) gets
 * a copy of its default, then defaulting goes on into properties, `additionalProperties` values
 * and array items. The input is not changed.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';

export function withDefaults<T extends JsonValue>(value: T, schema: JsonObject): T {
  if (Array.isArray(value)) {
    const items = schema.items;
    return (isObject(items) ? value.map((item) => withDefaults(item, items)) : value) as T;
  }
  if (!isObject(value)) return value;
  const properties = isObject(schema.properties) ? schema.properties : {};
  const out: JsonObject = { ...value };
  for (const [name, property] of Object.entries(properties)) {
    if (!isObject(property) || property.default === undefined || property.default === null) continue;
    const current = out[name];
    if (current === undefined || (current === null && property.nullable !== true)) {
      out[name] = structuredClone(property.default);
    }
  }
  const additional = isObject(schema.additionalProperties) ? schema.additionalProperties : undefined;
  for (const [name, item] of Object.entries(out)) {
    const property = properties[name];
    const itemSchema = isObject(property) ? property : name in properties ? undefined : additional;
    if (itemSchema) out[name] = withDefaults(item, itemSchema);
  }
  return out as T;
}

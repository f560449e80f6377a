/**
 * CEL types of OpenAPI schemas, as Kubernetes declares them for type checking (apiserver's
 * SchemaDeclType): integer is int, number double, boolean bool, string string (bytes, timestamp or
 * duration by its format), array a list of its items, an object with properties an object type
 * whose fields are those properties, an object with only additionalProperties a map. Int-or-string,
 * preserve-unknown-fields and untyped schemas are dyn: nothing is known of them, so nothing is
 * reported. `$ref`s name definitions, looked up lazily (a schema may refer to itself).
 */
import { isObject, type JsonObject } from '@edict/foundation';

export type CelPrimitive = 'int' | 'uint' | 'double' | 'string' | 'bool' | 'bytes' | 'null' | 'timestamp' | 'duration';

export type CelCheckedType =
  | { readonly kind: 'dyn' }
  | { readonly kind: 'primitive'; readonly name: CelPrimitive }
  | { readonly kind: 'list'; readonly element: CelCheckedType }
  | { readonly kind: 'map'; readonly value: CelCheckedType }
  | { readonly kind: 'object'; readonly field: (name: string) => CelCheckedType | undefined };

export const DYN: CelCheckedType = { kind: 'dyn' };

export const primitive = (name: CelPrimitive): CelCheckedType => ({ kind: 'primitive', name });

/** Definitions by the name a `$ref` gives (`#/components/schemas/` and `#/definitions/` prefixes are dropped). */
export type SchemaDefinitions = (name: string) => JsonObject | undefined;

const EMBEDDED_FIELDS = new Set(['apiVersion', 'kind', 'metadata']);

/** How many `$ref`s one schema may follow in a row (a cycle of refs without fields is dyn). */
const MAX_REF_HOPS = 16;

/** The CEL type of `schema`. */
export function schemaType(schema: JsonObject, definitions: SchemaDefinitions): CelCheckedType {
  let current: JsonObject | undefined = schema;
  for (let hops = 0; current && typeof current.$ref === 'string'; hops++) {
    if (hops === MAX_REF_HOPS) return DYN;
    current = definitions(current.$ref.replace(/^#\/(components\/schemas|definitions)\//, ''));
  }
  if (!current) return DYN;
  if (current['x-kubernetes-int-or-string'] === true || current['x-kubernetes-preserve-unknown-fields'] === true) {
    return DYN;
  }
  const node = current;
  switch (node.type) {
    case 'integer':
      return primitive('int');
    case 'number':
      return primitive('double');
    case 'boolean':
      return primitive('bool');
    case 'string':
      if (node.format === 'byte') return primitive('bytes');
      if (node.format === 'date-time' || node.format === 'date') return primitive('timestamp');
      if (node.format === 'duration') return primitive('duration');
      return primitive('string');
    case 'array':
      return { kind: 'list', element: isObject(node.items) ? schemaType(node.items, definitions) : DYN };
    case 'object': {
      if (isObject(node.properties)) {
        const properties = node.properties;
        // An embedded resource also has apiVersion, kind and metadata, declared or not.
        const embedded = node['x-kubernetes-embedded-resource'] === true;
        return {
          kind: 'object',
          field: (name) => {
            const property = Object.hasOwn(properties, name) ? properties[name] : undefined;
            if (isObject(property)) return schemaType(property, definitions);
            return embedded && EMBEDDED_FIELDS.has(name) ? DYN : undefined;
          },
        };
      }
      if (isObject(node.additionalProperties)) {
        return { kind: 'map', value: schemaType(node.additionalProperties, definitions) };
      }
      return DYN;
    }
    default:
      return DYN;
  }
}

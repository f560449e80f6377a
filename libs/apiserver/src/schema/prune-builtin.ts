/**
 * Typed decoding of a built-in object, as kube-apiserver's JSON decoder into Go structs does: a
 * field the type does not have is dropped. The fields of each type come from Kubernetes' protobuf
 * descriptors (`protobuf-schema.json`, generated from kubectl by `scripts/generate-protobuf-schema.mjs`),
 * which name the JSON field of every struct field. Types the file does not describe (the
 * apiextensions group) are kept whole.
 */
import { isObject, type JsonObject, type JsonValue, mergeKeyFor } from '@edict/foundation';
import SCHEMA_JSON from '../http/protobuf-schema.json';
import { isInlineField } from './inline-fields';
import { child, item, ROOT, type FieldPath, type Pruned } from './unknown-fields';

/** `[jsonName, type, flags]`: flags hold `r` repeated, `m` map (type is the entry message), `z` (zero kept). */
type FieldSchema = readonly [string, string, string?];
type MessageSchema = Readonly<Record<string, FieldSchema>>;
const SCHEMA = SCHEMA_JSON as unknown as Readonly<Record<string, MessageSchema>>;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const OBJECT_META = `${META}.ObjectMeta`;
/** Messages whose JSON form is not their protobuf fields (times, quantities, raw JSON...): kept as they are. */
const OPAQUE = new Set([
  `${META}.Time`,
  `${META}.MicroTime`,
  `${META}.Duration`,
  `${META}.FieldsV1`,
  'k8s.io.apimachinery.pkg.api.resource.Quantity',
  'k8s.io.apimachinery.pkg.util.intstr.IntOrString',
  'k8s.io.apimachinery.pkg.runtime.RawExtension',
]);

/** JSON field name → field schema, per message, inline structs spread (computed once per message). */
const byJsonName = new Map<string, ReadonlyMap<string, FieldSchema>>();

function fieldsOf(message: string): ReadonlyMap<string, FieldSchema> | undefined {
  const schema = SCHEMA[message];
  if (!schema || OPAQUE.has(message)) return undefined;
  let fields = byJsonName.get(message);
  if (!fields) {
    const entries: Array<[string, FieldSchema]> = [];
    for (const field of Object.values(schema)) {
      if (isInlineField(field[0], field[1])) entries.push(...(fieldsOf(field[1]) ?? []));
      else entries.push([field[0], field]);
    }
    fields = new Map(entries);
    byJsonName.set(message, fields);
  }
  return fields;
}

/** The protobuf message of a built-in kind (`apps/v1` `Deployment` → `k8s.io.api.apps.v1.Deployment`). */
export function builtinMessage(apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const name = `k8s.io.api.${packageOf(group)}.${version}.${kind}`;
  return fieldsOf(name) ? name : undefined;
}

function packageOf(group: string): string {
  if (group === '') return 'core';
  if (group === 'flowcontrol.apiserver.k8s.io') return 'flowcontrol';
  if (group === 'internal.apiserver.k8s.io') return 'apiserverinternal';
  return group.split('.')[0]!;
}

/** Whether the built-in kind's fields are known (otherwise nothing is pruned). */
export function hasBuiltinFields(apiVersion: string, kind: string): boolean {
  return builtinMessage(apiVersion, kind) !== undefined;
}

export function pruneBuiltin(apiVersion: string, kind: string, object: JsonObject): Pruned<JsonObject> {
  const message = builtinMessage(apiVersion, kind);
  if (!message) return { value: object, unknown: [] };
  const unknown: FieldPath[] = [];
  const { apiVersion: version, kind: objectKind, ...rest } = object;
  const walker = new Walker(apiVersion, kind, unknown);
  const pruned = walker.message(rest, message, ROOT, []);
  const value: JsonObject = {};
  if (version !== undefined) value.apiVersion = version;
  if (objectKind !== undefined) value.kind = objectKind;
  return { value: { ...value, ...pruned }, unknown };
}

/** ObjectMeta pruned to its fields (custom resources' metadata, as kube coerces it). */
export function pruneObjectMeta(metadata: JsonObject, path: FieldPath, unknown: FieldPath[]): JsonObject {
  return new Walker('', '', unknown).message(metadata, OBJECT_META, path, ['metadata']);
}

/** Merge keys by list path: every write walks the same lists, the engine's lookup starts from the root each time. */
const mergeKeys = new Map<string, string | undefined>();

function cachedMergeKey(apiVersion: string, kind: string, names: readonly string[]): string | undefined {
  const key = `${apiVersion}/${kind}/${names.join('.')}`;
  if (!mergeKeys.has(key)) mergeKeys.set(key, mergeKeyFor(apiVersion, kind, names));
  return mergeKeys.get(key);
}

class Walker {
  constructor(
    private readonly apiVersion: string,
    private readonly kind: string,
    private readonly unknown: FieldPath[],
  ) {}

  message(object: JsonObject, message: string, path: FieldPath, names: readonly string[]): JsonObject {
    const fields = fieldsOf(message);
    if (!fields) return object;
    const out: JsonObject = {};
    for (const [name, value] of Object.entries(object)) {
      const field = fields.get(name);
      if (!field) {
        this.unknown.push(child(path, name));
        continue;
      }
      out[name] = this.field(value, field, child(path, name), [...names, name]);
    }
    return out;
  }

  private field(value: JsonValue, [, type, flags]: FieldSchema, path: FieldPath, names: readonly string[]): JsonValue {
    if (flags?.includes('m')) {
      // A map: the entry message's field 2 is the value.
      const valueType = SCHEMA[type]?.['2']?.[1];
      if (!isObject(value) || !valueType || !fieldsOf(valueType)) return value;
      const out: JsonObject = {};
      for (const [key, entry] of Object.entries(value)) {
        out[key] = isObject(entry) ? this.message(entry, valueType, child(path, key), [...names, key]) : entry;
      }
      return out;
    }
    if (flags?.includes('r') && Array.isArray(value)) {
      if (!fieldsOf(type)) return value;
      const mergeKey = this.kind ? cachedMergeKey(this.apiVersion, this.kind, names) : undefined;
      return value.map((entry, index) =>
        isObject(entry)
          ? this.message(entry, type, item(path, index, entry, mergeKey ? [mergeKey] : []), names)
          : entry,
      );
    }
    return isObject(value) && fieldsOf(type) ? this.message(value, type, path, names) : value;
  }
}

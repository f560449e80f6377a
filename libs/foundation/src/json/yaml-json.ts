import { parseAllDocuments, type Tags } from 'yaml';
import type { JsonValue } from './types';

/** YAML text that does not read as one JSON-representable document. */
export class YamlJsonError extends Error {
  override readonly name = 'YamlJsonError';
}

/**
 * YAML 1.1 as Kyverno reads it (go-yaml v2 via sigs.k8s.io/yaml): yes/no/on/off booleans, 0777
 * octals and merge keys, but timestamps and base-60 numbers stay strings; only the first document
 * counts; map keys become strings; the result must be representable as JSON.
 */
const YAML_OPTIONS = {
  version: '1.1' as const,
  merge: true,
  customTags: (tags: Tags) =>
    tags.filter((t) =>
      typeof t === 'string'
        ? !['timestamp', 'intTime', 'floatTime'].includes(t)
        : !t.tag.endsWith(':timestamp') && t.format !== 'TIME',
    ),
};

/** The first YAML document of `text` as JSON, the way Kyverno reads YAML into values (parse_yaml, yaml.parse). */
export function yamlToJson(text: string): JsonValue {
  const documents = parseAllDocuments(text, YAML_OPTIONS);
  const first = Array.isArray(documents) ? documents[0] : undefined;
  if (!first) return null;
  const error = first.errors[0];
  if (error) throw new YamlJsonError(`yaml: ${error.message.split('\n')[0]}`);
  return toJson(first.toJS({ maxAliasCount: 1000 }));
}

function toJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new YamlJsonError(`json: unsupported value: ${value > 0 ? '+Inf' : Number.isNaN(value) ? 'NaN' : '-Inf'}`);
    return value;
  }
  if (typeof value === 'string' || typeof value === 'boolean') return value;
  if (typeof value === 'bigint') return Number(value);
  if (value instanceof Uint8Array) return Buffer.from(value).toString('utf8');
  if (value instanceof Map) {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of value) out[String(k)] = toJson(v);
    return out;
  }
  if (value instanceof Set) return [...value].map(toJson);
  if (Array.isArray(value)) return value.map(toJson);
  if (typeof value === 'object') {
    const out: Record<string, JsonValue> = {};
    for (const [k, v] of Object.entries(value)) out[k] = toJson(v);
    return out;
  }
  return String(value);
}

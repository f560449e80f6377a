import { parseAllDocuments, type Tags } from 'yaml';
import type { JsonValue } from '@edict/foundation';
import { JmesPathError } from '../errors';
import type { FunctionDefinition } from '../runtime';
import { str } from './signatures';

/** Go's json.Unmarshal message for the commonest failure; otherwise the parser's own text. */
function parseJson(args: JsonValue[]): JsonValue {
  const text = args[0] as string;
  if (text.trim() === '') throw new JmesPathError('unexpected end of JSON input');
  try {
    return JSON.parse(text) as JsonValue;
  } catch (error) {
    throw new JmesPathError(`invalid JSON: ${(error as Error).message}`);
  }
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

function parseYaml(args: JsonValue[]): JsonValue {
  const documents = parseAllDocuments(args[0] as string, YAML_OPTIONS);
  const first = Array.isArray(documents) ? documents[0] : undefined;
  if (!first) return null;
  const error = first.errors[0];
  if (error) throw new JmesPathError(`yaml: ${error.message.split('\n')[0]}`);
  return toJson(first.toJS({ maxAliasCount: 1000 }));
}

function toJson(value: unknown): JsonValue {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number') {
    if (!Number.isFinite(value))
      throw new JmesPathError(`json: unsupported value: ${value > 0 ? '+Inf' : Number.isNaN(value) ? 'NaN' : '-Inf'}`);
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

export const parseFunctions: FunctionDefinition[] = [
  { name: 'parse_json', signature: [str], fn: parseJson },
  { name: 'parse_yaml', signature: [str], fn: parseYaml },
];

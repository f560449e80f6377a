/**
 * Reading `patchesJson6902` as Kyverno does: a string starting with `[` is JSON, anything else is
 * YAML converted to JSON; then each operation is checked the way evanphx/json-patch's DecodePatch
 * checks it, with its messages. Decoded strings are cached (bounded).
 */
import { isObject, type JsonObject, type JsonValue, isError, parseDocuments, BoundedCache } from '@edict/foundation';

export type OpKind = 'add' | 'remove' | 'replace' | 'move' | 'copy' | 'test';

export interface Operation {
  readonly op: OpKind;
  readonly path: string;
  /** `move` and `copy` only. */
  readonly from?: string;
  /** Absent for `remove`, `move`, `copy`; a `test` without `value` tests for null. */
  readonly value?: JsonValue;
}

export class DecodeError extends Error {}

const MISSING = 'missing value';

// Patches are policy text, often a few KiB: longer keys than the default are worth keeping.
const cache = new BoundedCache<readonly Operation[] | DecodeError>(500, 64 * 1024);

/** The operations of a patch, or a DecodeError carrying Kyverno's message. */
export function decodePatches(patches: string | JsonValue): readonly Operation[] {
  if (typeof patches !== 'string') return decodeValue(patches);
  const decoded = cache.getOrCreate(patches, () => {
    try {
      return decodeValue(parseText(patches));
    } catch (error) {
      if (!(error instanceof DecodeError)) throw error;
      return error;
    }
  });
  if (decoded instanceof DecodeError) throw decoded;
  return decoded;
}

function parseText(text: string): JsonValue {
  if (text.startsWith('[')) {
    try {
      return JSON.parse(text) as JsonValue;
    } catch {
      throw new DecodeError('failed to decode patches: invalid state detected');
    }
  }
  const parsed = parseDocuments(text, 'patchesJson6902');
  const problem = parsed.errors.find(isError);
  if (problem) throw new DecodeError(`failed to convert patchesJSON6902 to JSON: ${problem.message}`);
  return parsed.documents[0]?.value ?? null;
}

function goType(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'boolean') return 'bool';
  return typeof value;
}

function decodeValue(value: JsonValue): readonly Operation[] {
  if (value === null) return [];
  if (!Array.isArray(value)) {
    throw new DecodeError(
      `failed to decode patches: json: cannot unmarshal ${goType(value)} into Go value of type jsonpatch.Patch`,
    );
  }
  return value.map((raw) => {
    if (raw !== null && !isObject(raw)) {
      throw new DecodeError(
        `failed to decode patches: json: cannot unmarshal ${goType(raw)} into Go value of type jsonpatch.Operation`,
      );
    }
    const op = raw ?? {};
    const problem = validate(op);
    if (problem) throw new DecodeError(`failed to decode patches: invalid operation ${canonicalJson(raw)}: ${problem}`);
    return toOperation(op);
  });
}

/** A field that decodes as a string: JSON null counts as missing. */
function stringField(op: JsonObject, name: string, missing: string): { value?: string; error?: string } {
  const raw = op[name];
  if (raw === undefined || raw === null) return { error: missing };
  if (typeof raw !== 'string') return { error: `json: cannot unmarshal ${goType(raw)} into Go value of type string` };
  return { value: raw };
}

function kindOf(op: JsonObject): string {
  return typeof op.op === 'string' ? op.op : 'unknown';
}

function validate(op: JsonObject): string | undefined {
  switch (kindOf(op)) {
    case 'add':
    case 'replace':
      if (!Object.hasOwn(op, 'value')) return `failed to decode 'value': operation, missing value field: ${MISSING}`;
      break;
    case 'move':
    case 'copy': {
      const from = stringField(op, 'from', `operation, missing from field: ${MISSING}`);
      if (from.error) return `failed to decode 'from': ${from.error}`;
      break;
    }
    case 'remove':
    case 'test':
      break;
    default:
      return 'unsupported operation';
  }
  const path = stringField(op, 'path', `operation missing path field: ${MISSING}`);
  if (path.error) return `failed to decode 'path': ${path.error}`;
  return undefined;
}

function toOperation(op: JsonObject): Operation {
  const kind = kindOf(op) as OpKind;
  return {
    op: kind,
    path: op.path as string,
    ...(kind === 'move' || kind === 'copy' ? { from: op.from as string } : {}),
    ...(Object.hasOwn(op, 'value') ? { value: op.value } : {}),
  };
}

/** Go's encoding of the operation map: sorted keys, compact. */
function canonicalJson(value: JsonValue): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (isObject(value)) {
    return `{${Object.keys(value)
      .sort()
      .map((key) => `${JSON.stringify(key)}:${canonicalJson(value[key]!)}`)
      .join(',')}}`;
  }
  return JSON.stringify(value);
}

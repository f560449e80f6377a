/**
 * Kubernetes' protobuf request encoding, read generically for every built-in type: kubectl's typed
 * clients (`kubectl create deployment|job|role|...`, `auth can-i`, `create token`) send
 * `application/vnd.kubernetes.protobuf` and client-go never falls back to JSON for it (its 415
 * fallback covers CBOR only), so a server must read it. The wire schema (`protobuf-schema.json`) is
 * generated from Kubernetes' own descriptors by `scripts/generate-protobuf-schema.mjs`.
 *
 * Custom resources have no protobuf form: as kube-apiserver, an unknown type answers 415.
 */
import { isObject, type JsonObject, type JsonValue, errorMessage } from '@edict/foundation';
import { isInlineField } from '../schema/inline-fields';
import { ApiError } from '../status';
import SCHEMA_JSON from './protobuf-schema.json';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = [0x6b, 0x38, 0x73, 0x00];
/** Nesting bound: the deepest built-in type is far shallower; a body past it is malformed. */
const MAX_DEPTH = 64;

/** `[jsonName, type, flags]`: flags `r` repeated, `m` map (type is the entry), `z` zero value kept. */
type FieldSchema = readonly [string, string, string?];
const SCHEMA = SCHEMA_JSON as unknown as Readonly<Record<string, Readonly<Record<string, FieldSchema>>>>;

const META = 'k8s.io.apimachinery.pkg.apis.meta.v1';
const TIME = `${META}.Time`;
const MICRO_TIME = `${META}.MicroTime`;
const DURATION = `${META}.Duration`;
const FIELDS_V1 = `${META}.FieldsV1`;
const QUANTITY = 'k8s.io.apimachinery.pkg.api.resource.Quantity';
const INT_OR_STRING = 'k8s.io.apimachinery.pkg.util.intstr.IntOrString';
const RAW_EXTENSION = 'k8s.io.apimachinery.pkg.runtime.RawExtension';

interface Field {
  readonly number: number;
  readonly wire: number;
  readonly varint?: bigint;
  readonly bytes?: Buffer;
}

function readVarint(buffer: Buffer, offset: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (let i = 0; i < 10; i++) {
    if (offset >= buffer.length) throw new Error('truncated varint');
    const byte = buffer[offset++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, offset];
    shift += 7n;
  }
  throw new Error('varint longer than 10 bytes');
}

function readFields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const [tag, next] = readVarint(buffer, offset);
    offset = next;
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const [value, after] = readVarint(buffer, offset);
      out.push({ number, wire, varint: value });
      offset = after;
    } else if (wire === 2 || wire === 1 || wire === 5) {
      let length = wire === 1 ? 8 : 4;
      if (wire === 2) {
        const [declared, after] = readVarint(buffer, offset);
        offset = after;
        length = Number(declared);
      }
      if (offset + length > buffer.length) throw new Error(`field ${number} runs past the end of its message`);
      out.push({ number, wire, bytes: buffer.subarray(offset, offset + length) });
      offset += length;
    } else throw new Error(`unsupported wire type ${wire} (field ${number})`);
  }
  return out;
}

const toInt64 = (value: bigint): number => Number(BigInt.asIntN(64, value));

function rfc3339(seconds: bigint, nanos: number, fractionDigits: number): string {
  const iso = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  if (fractionDigits === 0) return `${iso}Z`;
  return `${iso}.${String(Math.floor(nanos / 10 ** (9 - fractionDigits))).padStart(fractionDigits, '0')}Z`;
}

/** Go's `time.Duration.String()` for a count of nanoseconds. */
function goDuration(nanoseconds: bigint): string {
  if (nanoseconds === 0n) return '0s';
  const sign = nanoseconds < 0n ? '-' : '';
  let rest = nanoseconds < 0n ? -nanoseconds : nanoseconds;
  if (rest < 1_000_000_000n) {
    const [unit, size] = rest < 1000n ? ['ns', 1n] : rest < 1_000_000n ? ['µs', 1000n] : ['ms', 1_000_000n];
    return `${sign}${trimFraction(rest, size)}${unit}`;
  }
  const hours = rest / 3_600_000_000_000n;
  rest %= 3_600_000_000_000n;
  const minutes = rest / 60_000_000_000n;
  rest %= 60_000_000_000n;
  const seconds = `${trimFraction(rest, 1_000_000_000n)}s`;
  if (hours > 0n) return `${sign}${hours}h${minutes}m${seconds}`;
  if (minutes > 0n) return `${sign}${minutes}m${seconds}`;
  return `${sign}${seconds}`;
}

function trimFraction(value: bigint, unit: bigint): string {
  const whole = value / unit;
  const fraction = value % unit;
  if (fraction === 0n) return String(whole);
  const digits = String(unit).length - 1;
  return `${whole}.${String(fraction).padStart(digits, '0').replace(/0+$/, '')}`;
}

class Decoder {
  decodeMessage(type: string, bytes: Buffer, depth: number): JsonValue {
    if (depth > MAX_DEPTH) throw new Error(`nesting deeper than ${MAX_DEPTH} levels`);
    const fields = readFields(bytes);
    const special = this.special(type, fields);
    if (special !== undefined) return special;
    const schema = SCHEMA[type];
    if (!schema) throw new Error(`no schema for ${type}`);
    const entries = Object.values(schema);
    // Go slices of strings (`ExtraValue`, `Verbs`) travel as a message with one repeated field.
    if (entries.length === 1 && entries[0]![0] === 'items' && entries[0]![1] === 'string') {
      return fields.map((field) => this.scalar('string', field));
    }
    const out: JsonObject = {};
    for (const field of fields) {
      const spec = schema[field.number];
      if (!spec) throw new Error(`${type} has no field ${field.number}`);
      const [name, fieldType, flags = ''] = spec;
      if (flags.includes('m')) {
        const entry = this.mapEntry(fieldType, field, depth);
        const map = (out[name] ??= {}) as JsonObject;
        map[entry[0]] = entry[1];
      } else if (flags.includes('r')) {
        const list = (out[name] ??= []) as JsonValue[];
        if (field.wire === 2 && SCALAR_TYPES.has(fieldType) && fieldType !== 'string' && fieldType !== 'bytes') {
          list.push(...this.packed(fieldType, field.bytes!));
        } else list.push(this.value(fieldType, field, depth));
      } else {
        const value = this.value(fieldType, field, depth);
        if (value === null) continue;
        if (isInlineField(name, fieldType) && isObject(value)) {
          Object.assign(out, value);
          continue;
        }
        if (!flags.includes('z') && (value === '' || value === 0 || value === false)) continue;
        out[name] = value;
      }
    }
    return out;
  }

  private value(type: string, field: Field, depth: number): JsonValue {
    if (SCALAR_TYPES.has(type)) return this.scalar(type, field);
    if (field.wire !== 2) throw new Error(`${type} sent with wire type ${field.wire}`);
    return this.decodeMessage(type, field.bytes!, depth + 1);
  }

  private mapEntry(type: string, field: Field, depth: number): [string, JsonValue] {
    const schema = SCHEMA[type];
    if (!schema || field.wire !== 2) throw new Error(`${type} is not a map entry`);
    let key = '';
    const valueType = schema[2]?.[1];
    let value: JsonValue = valueType === 'string' || valueType === 'bytes' ? '' : null;
    for (const part of readFields(field.bytes!)) {
      const spec = schema[part.number];
      if (!spec) throw new Error(`${type} has no field ${part.number}`);
      if (part.number === 1) key = String(this.scalar(spec[1], part));
      else value = this.value(spec[1], part, depth);
    }
    return [key, value];
  }

  private scalar(type: string, field: Field): JsonValue {
    const expected = type === 'double' ? 1 : type === 'float' ? 5 : type === 'string' || type === 'bytes' ? 2 : 0;
    if (field.wire !== expected) throw new Error(`field ${field.number} (${type}) sent with wire type ${field.wire}`);
    switch (type) {
      case 'string':
        return field.bytes!.toString('utf8');
      case 'bytes':
        return field.bytes!.toString('base64');
      case 'bool':
        return field.varint !== 0n;
      case 'int32':
      case 'int64':
        return toInt64(field.varint!);
      case 'uint32':
      case 'uint64':
        return Number(field.varint!);
      case 'double':
        return field.bytes!.readDoubleLE(0);
      case 'float':
        return field.bytes!.readFloatLE(0);
      default:
        throw new Error(`unknown scalar type ${type}`);
    }
  }

  private packed(type: string, bytes: Buffer): JsonValue[] {
    const out: JsonValue[] = [];
    let offset = 0;
    while (offset < bytes.length) {
      if (type === 'double' || type === 'float') {
        out.push(type === 'double' ? bytes.readDoubleLE(offset) : bytes.readFloatLE(offset));
        offset += type === 'double' ? 8 : 4;
        continue;
      }
      const [value, next] = readVarint(bytes, offset);
      out.push(this.scalar(type, { number: 0, wire: 0, varint: value }));
      offset = next;
    }
    return out;
  }

  /** Types whose JSON form is not their protobuf message shape. */
  private special(type: string, fields: Field[]): JsonValue | undefined {
    const varint = (n: number): bigint => fields.find((f) => f.number === n)?.varint ?? 0n;
    const bytes = (n: number): Buffer | undefined => fields.find((f) => f.number === n)?.bytes;
    switch (type) {
      case TIME:
      case MICRO_TIME: {
        const seconds = BigInt.asIntN(64, varint(1));
        const nanos = Number(varint(2));
        // Go's zero time marshals as JSON null (an unset timestamp).
        if (seconds === -62135596800n || (seconds === 0n && nanos === 0 && fields.length === 0)) return null;
        return rfc3339(seconds, nanos, type === MICRO_TIME ? 6 : 0);
      }
      case DURATION:
        return goDuration(BigInt.asIntN(64, varint(1)));
      case QUANTITY:
        return bytes(1)?.toString('utf8') ?? '0';
      case INT_OR_STRING:
        return varint(1) === 1n ? (bytes(3)?.toString('utf8') ?? '') : toInt64(varint(2));
      case RAW_EXTENSION:
      case FIELDS_V1: {
        const raw = bytes(1);
        if (!raw || raw.length === 0) return null;
        return JSON.parse(raw.toString('utf8')) as JsonValue;
      }
      default:
        return undefined;
    }
  }
}

const SCALAR_TYPES = new Set(['string', 'bytes', 'bool', 'int32', 'int64', 'uint32', 'uint64', 'double', 'float']);

/** The protobuf package holding an API group's types (`apps` → `k8s.io.api.apps.v1`). */
function messageType(apiVersion: string, kind: string): string | undefined {
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const version = slash < 0 ? apiVersion : apiVersion.slice(slash + 1);
  const candidates =
    group === 'meta.k8s.io'
      ? [`${META}.${kind}`]
      : [`k8s.io.api.${packageOf(group)}.${version}.${kind}`, ...(group === '' ? [`${META}.${kind}`] : [])];
  return candidates.find((name) => SCHEMA[name] !== undefined);
}

function packageOf(group: string): string {
  if (group === '') return 'core';
  if (group === 'flowcontrol.apiserver.k8s.io') return 'flowcontrol';
  if (group === 'internal.apiserver.k8s.io') return 'apiserverinternal';
  return group.split('.')[0]!;
}

const unsupported = (): ApiError =>
  new ApiError(
    415,
    'UnsupportedMediaType',
    'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml',
  );

export function decodeProtobuf(body: Buffer): JsonObject {
  if (!MAGIC.every((byte, i) => body[i] === byte)) {
    throw new ApiError(
      400,
      'BadRequest',
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  }
  try {
    // runtime.Unknown: typeMeta (1: apiVersion, 2: kind), raw (2).
    const envelope = readFields(body.subarray(4));
    const typeMeta = readFields(envelope.find((f) => f.number === 1)?.bytes ?? Buffer.alloc(0));
    const apiVersion = typeMeta.find((f) => f.number === 1)?.bytes?.toString('utf8') ?? '';
    const kind = typeMeta.find((f) => f.number === 2)?.bytes?.toString('utf8') ?? '';
    const type = messageType(apiVersion, kind);
    if (!type) throw unsupported();
    const raw = envelope.find((f) => f.number === 2)?.bytes ?? Buffer.alloc(0);
    const object = new Decoder().decodeMessage(type, raw, 0) as JsonObject;
    return { apiVersion, kind, ...object };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(400, 'BadRequest', `the protobuf body could not be decoded: ${errorMessage(error)}`);
  }
}

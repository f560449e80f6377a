/**
 * Just enough of Kubernetes' protobuf encoding to accept the bodies kubectl's typed clients send
 * (`kubectl create namespace|configmap|secret|serviceaccount`): the `k8s\0` envelope, ObjectMeta's
 * common fields, and those types' own fields. Other kinds answer 415 so the gap is visible.
 */
import type { JsonObject } from '@edict/engine';
import { ApiError } from '../status';

export const PROTOBUF_MEDIA_TYPE = 'application/vnd.kubernetes.protobuf';
const MAGIC = [0x6b, 0x38, 0x73, 0x00];

interface Field {
  readonly number: number;
  readonly varint?: bigint;
  readonly bytes?: Buffer;
}

function readVarint(buffer: Buffer, offset: number): [bigint, number] {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    if (offset >= buffer.length) throw new Error('truncated varint');
    const byte = buffer[offset++]!;
    result |= BigInt(byte & 0x7f) << shift;
    if ((byte & 0x80) === 0) return [result, offset];
    shift += 7n;
  }
}

function fields(buffer: Buffer): Field[] {
  const out: Field[] = [];
  let offset = 0;
  while (offset < buffer.length) {
    const [tag, next] = readVarint(buffer, offset);
    offset = next;
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const [value, after] = readVarint(buffer, offset);
      out.push({ number, varint: value });
      offset = after;
    } else if (wire === 2) {
      const [length, after] = readVarint(buffer, offset);
      out.push({ number, bytes: buffer.subarray(after, after + Number(length)) });
      offset = after + Number(length);
    } else if (wire === 1) offset += 8;
    else if (wire === 5) offset += 4;
    else throw new Error(`unsupported wire type ${wire}`);
  }
  return out;
}

const str = (field: Field): string => field.bytes!.toString('utf8');

function mapEntries(
  list: Field[],
  number: number,
  value: (bytes: Buffer) => string,
): Record<string, string> | undefined {
  const entries = list.filter((f) => f.number === number);
  if (entries.length === 0) return undefined;
  const map: Record<string, string> = {};
  for (const entry of entries) {
    const parts = fields(entry.bytes!);
    const key = parts.find((p) => p.number === 1);
    const val = parts.find((p) => p.number === 2);
    map[key ? str(key) : ''] = val?.bytes ? value(val.bytes) : '';
  }
  return map;
}

function objectMeta(bytes: Buffer): JsonObject {
  const list = fields(bytes);
  const meta: JsonObject = {};
  const strings: Array<[number, string]> = [
    [1, 'name'],
    [2, 'generateName'],
    [3, 'namespace'],
    [5, 'uid'],
    [6, 'resourceVersion'],
  ];
  for (const [number, name] of strings) {
    const field = list.find((f) => f.number === number);
    if (field?.bytes && field.bytes.length > 0) meta[name] = str(field);
  }
  const labels = mapEntries(list, 11, (b) => b.toString('utf8'));
  const annotations = mapEntries(list, 12, (b) => b.toString('utf8'));
  if (labels) meta.labels = labels;
  if (annotations) meta.annotations = annotations;
  const finalizers = list.filter((f) => f.number === 14).map(str);
  if (finalizers.length > 0) meta.finalizers = finalizers;
  return meta;
}

type Decoder = (list: Field[]) => JsonObject;

const utf8 = (b: Buffer): string => b.toString('utf8');
const base64 = (b: Buffer): string => b.toString('base64');

const DECODERS: Readonly<Record<string, Decoder>> = {
  'v1/Namespace': () => ({}),
  'v1/ConfigMap': (list) => {
    const data = mapEntries(list, 2, utf8);
    const binaryData = mapEntries(list, 3, base64);
    const immutable = list.find((f) => f.number === 4);
    return {
      ...(data ? { data } : {}),
      ...(binaryData ? { binaryData } : {}),
      ...(immutable ? { immutable: immutable.varint === 1n } : {}),
    };
  },
  'v1/Secret': (list) => {
    const data = mapEntries(list, 2, base64);
    const type = list.find((f) => f.number === 3);
    const stringData = mapEntries(list, 4, utf8);
    return { ...(data ? { data } : {}), ...(type ? { type: str(type) } : {}), ...(stringData ? { stringData } : {}) };
  },
  'v1/ServiceAccount': () => ({}),
};

export function decodeProtobuf(body: Buffer): JsonObject {
  if (!MAGIC.every((byte, i) => body[i] === byte)) {
    throw new ApiError(
      400,
      'BadRequest',
      'provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]',
    );
  }
  try {
    const envelope = fields(body.subarray(4));
    const typeMeta = fields(envelope.find((f) => f.number === 1)?.bytes ?? Buffer.alloc(0));
    const apiVersion = str(typeMeta.find((f) => f.number === 1) ?? { number: 1, bytes: Buffer.alloc(0) });
    const kind = str(typeMeta.find((f) => f.number === 2) ?? { number: 2, bytes: Buffer.alloc(0) });
    const decoder = DECODERS[`${apiVersion}/${kind}`];
    if (!decoder) {
      throw new ApiError(
        415,
        'UnsupportedMediaType',
        `the body of the request was in an unknown format - accepted media types include: application/json, application/yaml (protobuf is only understood for ${Object.keys(DECODERS).join(', ')})`,
      );
    }
    const raw = fields(envelope.find((f) => f.number === 2)?.bytes ?? Buffer.alloc(0));
    const metadata = objectMeta(raw.find((f) => f.number === 1)?.bytes ?? Buffer.alloc(0));
    return { apiVersion, kind, metadata, ...decoder(raw) };
  } catch (error) {
    if (error instanceof ApiError) throw error;
    throw new ApiError(
      400,
      'BadRequest',
      `the protobuf body could not be decoded: ${error instanceof Error ? error.message : String(error)}`,
    );
  }
}

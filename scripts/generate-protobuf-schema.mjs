// Writes libs/apiserver/src/http/protobuf-schema.json: the protobuf wire schema of Kubernetes'
// built-in types (field number → JSON name, type, repeated, whether a zero value is kept), which
// the in-memory API server needs to read the protobuf bodies kubectl's typed clients send.
//
// Source: a kubectl binary (Go, Apache-2.0), which carries
//  - the gzipped FileDescriptorProtos of k8s.io/api and k8s.io/apimachinery (field numbers, types);
//  - Go's type metadata for the same structs (struct tags and field kinds). A scalar field that is a
//    Go pointer, or whose JSON tag lacks `omitempty`, keeps its zero value when re-encoded as JSON;
//    any other zero scalar is what Go's protobuf marshaller writes for an unset field, and is dropped.
//
// Usage: node scripts/generate-protobuf-schema.mjs [/path/to/kubectl]
import { Buffer } from 'node:buffer';
import { readFileSync, realpathSync, writeFileSync } from 'node:fs';
import { gunzipSync } from 'node:zlib';

const binaryPath = realpathSync(process.argv[2] ?? '/usr/bin/kubectl');
const data = readFileSync(binaryPath);
const OUTPUT = new URL('../libs/apiserver/src/http/protobuf-schema.json', import.meta.url);

// --- protobuf wire reading (descriptors) ---
function varint(buffer, offset) {
  let result = 0n;
  let shift = 0n;
  for (;;) {
    const byte = buffer[offset++];
    result |= BigInt(byte & 0x7f) << shift;
    if (byte < 0x80) return [result, offset];
    shift += 7n;
  }
}
function wireFields(buffer) {
  const out = [];
  let offset = 0;
  while (offset < buffer.length) {
    const [tag, next] = varint(buffer, offset);
    offset = next;
    const number = Number(tag >> 3n);
    const wire = Number(tag & 7n);
    if (wire === 0) {
      const [value, after] = varint(buffer, offset);
      out.push([number, value]);
      offset = after;
    } else if (wire === 2) {
      const [length, after] = varint(buffer, offset);
      out.push([number, buffer.subarray(after, after + Number(length))]);
      offset = after + Number(length);
    } else if (wire === 1) offset += 8;
    else if (wire === 5) offset += 4;
    else throw new Error(`wire type ${wire}`);
  }
  return out;
}
const first = (list, number) => list.find(([n]) => n === number)?.[1];

// FieldDescriptorProto.Type
const SCALARS = {
  1: 'double',
  2: 'float',
  3: 'int64',
  4: 'uint64',
  5: 'int32',
  8: 'bool',
  9: 'string',
  12: 'bytes',
  13: 'uint32',
};
const messages = new Map(); // full name (no leading dot) → { fields: [{number, name, type, repeated}], mapEntry }

function readMessage(prefix, bytes) {
  const list = wireFields(bytes);
  const name = `${prefix}.${first(list, 1).toString()}`;
  const options = first(list, 7);
  const mapEntry = options ? first(wireFields(options), 7) === 1n : false;
  const fields = [];
  for (const [number, value] of list) {
    if (number === 3) readMessage(name, value);
    if (number !== 2) continue;
    const field = wireFields(value);
    const type = Number(first(field, 5));
    fields.push({
      number: Number(first(field, 3)),
      name: first(field, 1).toString(),
      type: type === 11 ? first(field, 6).toString().replace(/^\./, '') : SCALARS[type],
      repeated: first(field, 4) === 3n,
    });
    if (type !== 11 && !SCALARS[type]) throw new Error(`${name}: field type ${type}`);
  }
  messages.set(name, { fields, mapEntry });
}

const GZIP = Buffer.from([0x1f, 0x8b, 0x08, 0x00, 0x00, 0x00, 0x00, 0x00]);
for (let at = data.indexOf(GZIP); at >= 0; at = data.indexOf(GZIP, at + 1)) {
  let file;
  try {
    file = gunzipSync(data.subarray(at, at + 400_000), { finishFlush: 2 });
  } catch {
    continue;
  }
  // A FileDescriptorProto opens with its file name (field 1).
  if (file[0] !== 0x0a || !/^k8s\.io\//.test(file.subarray(2, 2 + file[1]).toString('latin1'))) continue;
  const list = wireFields(file);
  const fileName = first(list, 1)?.toString() ?? '';
  if (!/^k8s\.io\/(api|apimachinery)\/.*generated\.proto$/.test(fileName)) continue;
  const pkg = first(list, 2).toString();
  for (const [number, value] of list) if (number === 4) readMessage(pkg, value);
}
if (messages.size < 500) throw new Error(`only ${messages.size} messages found in ${binaryPath}`);

// --- Go type metadata: struct fields with protobuf tags, and their kinds ---
const phoff = Number(data.readBigUInt64LE(0x20));
const phentsize = data.readUInt16LE(0x36);
const phnum = data.readUInt16LE(0x38);
const segments = [];
for (let i = 0; i < phnum; i++) {
  const base = phoff + i * phentsize;
  if (data.readUInt32LE(base) !== 1) continue; // PT_LOAD
  segments.push({
    offset: Number(data.readBigUInt64LE(base + 8)),
    vaddr: Number(data.readBigUInt64LE(base + 16)),
    size: Number(data.readBigUInt64LE(base + 32)),
  });
}
const toAddress = (offset) => {
  const s = segments.find((x) => offset >= x.offset && offset < x.offset + x.size);
  return s ? s.vaddr + offset - s.offset : undefined;
};
const toOffset = (address) => {
  const s = segments.find((x) => address >= x.vaddr && address < x.vaddr + x.size);
  return s ? s.offset + address - s.vaddr : undefined;
};

// abi.Name: flags byte (bit 1: has tag), varint name length, name, varint tag length, tag.
const names = new Map(); // address → { tag }
const text = data.toString('latin1');
const TAG = /[a-zA-Z]+:"[^"]*"(?: [a-zA-Z]+:"[^"]*")*/y;
for (const start of text.matchAll(/(?:json|protobuf):"/g)) {
  TAG.lastIndex = start.index;
  const tag = TAG.exec(text)?.[0];
  if (!tag || !tag.includes('protobuf:"')) continue;
  let lengthStart;
  if (tag.length < 0x80 && data[start.index - 1] === tag.length) lengthStart = start.index - 1;
  else if (data[start.index - 2] === ((tag.length & 0x7f) | 0x80) && data[start.index - 1] === tag.length >> 7)
    lengthStart = start.index - 2;
  else continue;
  for (let nameLength = 1; nameLength < 80; nameLength++) {
    const nameStart = lengthStart - nameLength;
    if (data[nameStart - 1] === nameLength && (data[nameStart - 2] & 2) !== 0) {
      if (!/^[A-Za-z_]\w*$/.test(text.slice(nameStart, lengthStart))) break;
      names.set(toAddress(nameStart - 2), { tag });
      break;
    }
  }
}

// abi.StructField: { name *byte, typ *abi.Type, offset uintptr }; consecutive ones form a struct.
const hits = [];
for (const segment of segments.slice(1)) {
  const end = segment.offset + segment.size - 24;
  for (let at = segment.offset; at < end; at += 8) {
    const address = Number(data.readBigUInt64LE(at));
    const name = names.get(address);
    if (!name) continue;
    const typeOffset = toOffset(Number(data.readBigUInt64LE(at + 8)));
    if (typeOffset === undefined) continue;
    hits.push({ at, tag: name.tag, kind: data[typeOffset + 23] & 0x1f });
  }
}
const structs = [];
for (const hit of hits) {
  const last = structs.at(-1);
  if (last && last.at(-1).at + 24 === hit.at) last.push(hit);
  else structs.push([hit]);
}
const protobufTag = (tag) => {
  const match = /protobuf:"\w+,(\d+),[^"]*?name=(\w+)/.exec(tag);
  return match ? { number: Number(match[1]), name: match[2] } : undefined;
};
const jsonTag = (tag) => /json:"([^",]*)((?:,[^"]*)?)"/.exec(tag);
const GO_POINTER = 22;
const goField = new Map(); // `${message}#${number}` → { pointer, omitempty, json }
for (const struct of structs) {
  const tags = struct.map((hit) => ({ hit, pb: protobufTag(hit.tag) })).filter((x) => x.pb);
  const key = (x) => `${x.number}:${x.name}`;
  const wanted = new Set(tags.map((x) => key(x.pb)));
  for (const [message, { fields }] of messages) {
    if (fields.length !== wanted.size || !fields.every((f) => wanted.has(`${f.number}:${f.name}`))) continue;
    for (const { hit, pb } of tags) {
      const json = jsonTag(hit.tag);
      goField.set(`${message}#${pb.number}`, {
        pointer: hit.kind === GO_POINTER,
        omitempty: json ? json[2].includes('omitempty') : true,
        json: json?.[1] || undefined,
      });
    }
  }
}

// --- output: { message: { number: [jsonName, type, flags] } } with flags r (repeated), z (keep zero), m (map) ---
const schema = {};
let unknownGo = 0;
for (const [message, { fields, mapEntry }] of [...messages].sort(([a], [b]) => a.localeCompare(b))) {
  const entry = {};
  for (const field of fields) {
    const go = goField.get(`${message}#${field.number}`);
    if (!go && !mapEntry) unknownGo++;
    const isMap = field.repeated && messages.get(field.type)?.mapEntry;
    const keepZero = go ? go.pointer || !go.omitempty : false;
    const flags = `${field.repeated && !isMap ? 'r' : ''}${isMap ? 'm' : ''}${keepZero ? 'z' : ''}`;
    const json = go?.json && go.json !== '-' ? go.json : field.name;
    entry[field.number] = flags ? [json, field.type, flags] : [json, field.type];
  }
  schema[message] = entry;
}
writeFileSync(OUTPUT, `${JSON.stringify(schema)}\n`);
console.log(
  `${messages.size} messages, ${unknownGo} fields without Go metadata (zero values dropped) → ${OUTPUT.pathname}`,
);

/**
 * An OpenAPI v2 document in the protobuf form client-go asks for
 * (`application/com.github.proto-openapi.spec.v2@v1.0+protobuf`): gnostic's `openapi.v2.Document`
 * (github.com/google/gnostic-models, `openapiv2/OpenAPIv2.proto`). Only what this server publishes
 * is encoded: info, paths with their operations' query parameters and extensions, definitions.
 * Extensions and other free values travel as YAML text (JSON is YAML).
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';

class Writer {
  private readonly parts: Buffer[] = [];

  private varint(value: number): void {
    const bytes: number[] = [];
    let rest = BigInt.asUintN(64, BigInt(Math.trunc(value)));
    while (rest >= 0x80n) {
      bytes.push(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    bytes.push(Number(rest));
    this.parts.push(Buffer.from(bytes));
  }

  private tag(field: number, wire: number): void {
    this.varint(field * 8 + wire);
  }

  bytes(field: number, value: Buffer): void {
    this.tag(field, 2);
    this.varint(value.length);
    this.parts.push(value);
  }

  string(field: number, value: JsonValue | undefined): void {
    if (typeof value === 'string' && value !== '') this.bytes(field, Buffer.from(value, 'utf8'));
  }

  bool(field: number, value: JsonValue | undefined): void {
    if (value === true) {
      this.tag(field, 0);
      this.varint(1);
    }
  }

  /** A bool that is encoded even when false (a oneof member: its presence is the value). */
  present(field: number, value: boolean): void {
    this.tag(field, 0);
    this.varint(value ? 1 : 0);
  }

  int(field: number, value: JsonValue | undefined): void {
    if (typeof value === 'number') {
      this.tag(field, 0);
      this.varint(value);
    }
  }

  double(field: number, value: JsonValue | undefined): void {
    if (typeof value !== 'number') return;
    this.tag(field, 1);
    const buffer = Buffer.alloc(8);
    buffer.writeDoubleLE(value);
    this.parts.push(buffer);
  }

  message(field: number, encode: (writer: Writer) => void): void {
    const inner = new Writer();
    encode(inner);
    this.bytes(field, inner.finish());
  }

  finish(): Buffer {
    return Buffer.concat(this.parts);
  }
}

/** `Any { string yaml = 2; }`. */
function any(writer: Writer, field: number, value: JsonValue): void {
  writer.message(field, (w) => w.string(2, JSON.stringify(value)));
}

/** `NamedAny { name = 1; Any value = 2; }` for every `x-` key. */
function extensions(writer: Writer, field: number, object: JsonObject): void {
  for (const [name, value] of Object.entries(object)) {
    if (!name.startsWith('x-')) continue;
    writer.message(field, (w) => {
      w.string(1, name);
      any(w, 2, value);
    });
  }
}

function schema(w: Writer, s: JsonObject): void {
  w.string(1, s.$ref);
  w.string(2, s.format);
  w.string(3, s.title);
  w.string(4, s.description);
  if (s.default !== undefined) any(w, 5, s.default);
  w.double(6, s.multipleOf);
  w.double(7, s.maximum);
  w.bool(8, s.exclusiveMaximum);
  w.double(9, s.minimum);
  w.bool(10, s.exclusiveMinimum);
  w.int(11, s.maxLength);
  w.int(12, s.minLength);
  w.string(13, s.pattern);
  w.int(14, s.maxItems);
  w.int(15, s.minItems);
  w.bool(16, s.uniqueItems);
  w.int(17, s.maxProperties);
  w.int(18, s.minProperties);
  if (Array.isArray(s.required)) for (const name of s.required) w.string(19, name);
  if (Array.isArray(s.enum)) for (const value of s.enum) any(w, 20, value);
  if (isObject(s.additionalProperties)) {
    const additional = s.additionalProperties;
    w.message(21, (a) => a.message(1, (inner) => schema(inner, additional)));
  } else if (typeof s.additionalProperties === 'boolean') {
    const allowed = s.additionalProperties;
    w.message(21, (a) => a.present(2, allowed));
  }
  if (typeof s.type === 'string') w.message(22, (t) => t.string(1, s.type));
  if (isObject(s.items)) {
    const items = s.items;
    w.message(23, (i) => i.message(1, (inner) => schema(inner, items)));
  }
  if (Array.isArray(s.allOf))
    for (const part of s.allOf.filter(isObject)) w.message(24, (inner) => schema(inner, part));
  if (isObject(s.properties)) {
    const properties = s.properties;
    w.message(25, (p) => {
      for (const [name, property] of Object.entries(properties)) {
        if (!isObject(property)) continue;
        p.message(1, (named) => {
          named.string(1, name);
          named.message(2, (inner) => schema(inner, property));
        });
      }
    });
  }
  w.bool(27, s.readOnly);
  if (s.example !== undefined) any(w, 30, s.example);
  extensions(w, 31, s);
}

function operation(w: Writer, op: JsonObject): void {
  w.string(5, op.operationId);
  const parameters = Array.isArray(op.parameters) ? op.parameters.filter(isObject) : [];
  for (const parameter of parameters) {
    // ParametersItem.parameter → Parameter.non_body_parameter → NonBodyParameter.query_parameter_sub_schema
    w.message(8, (item) =>
      item.message(1, (p) =>
        p.message(2, (nonBody) =>
          nonBody.message(3, (query) => {
            query.bool(1, parameter.required);
            query.string(2, parameter.in);
            query.string(3, parameter.description);
            query.string(4, parameter.name);
            query.string(6, parameter.type);
            query.bool(20, parameter.uniqueItems);
          }),
        ),
      ),
    );
  }
  const responses = isObject(op.responses) ? op.responses : {};
  w.message(9, (r) => {
    for (const [code, response] of Object.entries(responses)) {
      r.message(1, (named) => {
        named.string(1, code);
        named.message(2, (value) =>
          value.message(1, (inner) => inner.string(1, isObject(response) ? response.description : '')),
        );
      });
    }
  });
  extensions(w, 13, op);
}

const OPERATIONS: ReadonlyArray<[string, number]> = [
  ['get', 2],
  ['put', 3],
  ['post', 4],
  ['delete', 5],
  ['patch', 8],
];

export function encodeOpenApiV2(document: JsonObject): Buffer {
  const w = new Writer();
  w.string(1, document.swagger);
  const info = isObject(document.info) ? document.info : {};
  w.message(2, (i) => {
    i.string(1, info.title);
    i.string(2, info.version);
  });
  const paths = isObject(document.paths) ? document.paths : {};
  w.message(8, (p) => {
    for (const [path, item] of Object.entries(paths)) {
      if (!isObject(item)) continue;
      p.message(2, (named) => {
        named.string(1, path);
        named.message(2, (pathItem) => {
          for (const [verb, field] of OPERATIONS) {
            const op = item[verb];
            if (isObject(op)) pathItem.message(field, (inner) => operation(inner, op));
          }
        });
      });
    }
  });
  const definitions = isObject(document.definitions) ? document.definitions : {};
  w.message(9, (d) => {
    for (const [name, definition] of Object.entries(definitions)) {
      if (!isObject(definition)) continue;
      d.message(1, (named) => {
        named.string(1, name);
        named.message(2, (inner) => schema(inner, definition));
      });
    }
  });
  return w.finish();
}

/**
 * The part of CBOR (RFC 8949) that COSE_Sign1 envelopes use, bounded: a decoder that refuses
 * indefinite lengths, floats, deep nesting and lengths past the input, and an encoder for the
 * `Sig_structure` a COSE signature is computed over (and for the test signer).
 */

export type CborValue =
  number | bigint | string | Uint8Array | boolean | null | undefined | CborValue[] | CborMap | CborTag;

/** A CBOR map: keys are integers or text, in the order they were written. */
export class CborMap {
  constructor(readonly entries: Array<[number | string, CborValue]> = []) {}

  get(key: number | string): CborValue {
    return this.entries.find(([k]) => k === key)?.[1];
  }

  has(key: number | string): boolean {
    return this.entries.some(([k]) => k === key);
  }
}

export class CborTag {
  constructor(
    readonly tag: number,
    readonly value: CborValue,
  ) {}
}

export class CborError extends Error {
  override readonly name = 'CborError';
}

const MAX_DEPTH = 16;
const MAX_ITEMS = 10_000;

/** Decodes exactly one CBOR item filling `bytes`. */
export function decodeCbor(bytes: Uint8Array): CborValue {
  const reader = new Reader(bytes);
  const value = reader.item(0);
  if (reader.offset !== bytes.length) throw new CborError(`${bytes.length - reader.offset} bytes after the CBOR item`);
  return value;
}

class Reader {
  offset = 0;
  private items = 0;
  private readonly view: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  item(depth: number): CborValue {
    if (depth > MAX_DEPTH) throw new CborError(`CBOR nesting deeper than ${MAX_DEPTH}`);
    if (++this.items > MAX_ITEMS) throw new CborError(`more than ${MAX_ITEMS} CBOR items`);
    const initial = this.byte();
    const major = initial >> 5;
    const info = initial & 0x1f;
    if (major === 7) return this.simple(info);
    const argument = this.argument(info);
    switch (major) {
      case 0:
        return argument;
      case 1:
        return typeof argument === 'bigint' ? -1n - argument : -1 - argument;
      case 2:
        return this.take(this.length(argument));
      case 3:
        return new TextDecoder('utf-8', { fatal: true }).decode(this.take(this.length(argument)));
      case 4: {
        const length = this.length(argument);
        const out: CborValue[] = [];
        for (let i = 0; i < length; i++) out.push(this.item(depth + 1));
        return out;
      }
      case 5: {
        const length = this.length(argument);
        const map = new CborMap();
        for (let i = 0; i < length; i++) {
          const key = this.item(depth + 1);
          if (typeof key !== 'number' && typeof key !== 'string')
            throw new CborError('CBOR map key is not an integer or text');
          if (map.has(key)) throw new CborError(`duplicate CBOR map key ${JSON.stringify(key)}`);
          map.entries.push([key, this.item(depth + 1)]);
        }
        return map;
      }
      default:
        return new CborTag(Number(argument), this.item(depth + 1));
    }
  }

  private simple(info: number): CborValue {
    if (info === 20) return false;
    if (info === 21) return true;
    if (info === 22) return null;
    if (info === 23) return undefined;
    throw new CborError(
      info === 31 ? 'indefinite-length CBOR is not accepted' : `unsupported CBOR simple value or float (${info})`,
    );
  }

  private argument(info: number): number | bigint {
    if (info < 24) return info;
    if (info === 24) return this.byte();
    if (info === 25) return this.fixed(2, () => this.view.getUint16(this.offset));
    if (info === 26) return this.fixed(4, () => this.view.getUint32(this.offset));
    if (info === 27) {
      const value = this.fixed(8, () => this.view.getBigUint64(this.offset));
      return value <= BigInt(Number.MAX_SAFE_INTEGER) ? Number(value) : value;
    }
    throw new CborError(
      info === 31 ? 'indefinite-length CBOR is not accepted' : `invalid CBOR additional information ${info}`,
    );
  }

  private length(argument: number | bigint): number {
    if (typeof argument === 'bigint' || argument > this.bytes.length - this.offset) {
      throw new CborError('CBOR length runs past the end of the input');
    }
    return argument;
  }

  private fixed<T>(size: number, read: () => T): T {
    if (this.offset + size > this.bytes.length) throw new CborError('CBOR input ends early');
    const value = read();
    this.offset += size;
    return value;
  }

  private byte(): number {
    if (this.offset >= this.bytes.length) throw new CborError('CBOR input ends early');
    return this.bytes[this.offset++];
  }

  private take(length: number): Uint8Array {
    const out = this.bytes.subarray(this.offset, this.offset + length);
    this.offset += length;
    return out;
  }
}

/** Encodes integers, text, bytes, arrays, maps (in their order) and tags, in preferred (shortest) form. */
export function encodeCbor(value: CborValue): Uint8Array {
  const parts: Uint8Array[] = [];
  write(value, parts);
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let offset = 0;
  for (const part of parts) {
    out.set(part, offset);
    offset += part.length;
  }
  return out;
}

function write(value: CborValue, parts: Uint8Array[]): void {
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isInteger(value)) throw new CborError('floats are not encoded');
    const big = BigInt(value);
    parts.push(big >= 0n ? head(0, big) : head(1, -1n - big));
  } else if (typeof value === 'string') {
    const bytes = new TextEncoder().encode(value);
    parts.push(head(3, BigInt(bytes.length)), bytes);
  } else if (value instanceof Uint8Array) {
    parts.push(head(2, BigInt(value.length)), value);
  } else if (Array.isArray(value)) {
    parts.push(head(4, BigInt(value.length)));
    for (const item of value) write(item, parts);
  } else if (value instanceof CborMap) {
    parts.push(head(5, BigInt(value.entries.length)));
    for (const [key, item] of value.entries) {
      write(key, parts);
      write(item, parts);
    }
  } else if (value instanceof CborTag) {
    parts.push(head(6, BigInt(value.tag)));
    write(value.value, parts);
  } else if (value === false) parts.push(Uint8Array.of(0xf4));
  else if (value === true) parts.push(Uint8Array.of(0xf5));
  else if (value === null) parts.push(Uint8Array.of(0xf6));
  else parts.push(Uint8Array.of(0xf7));
}

function head(major: number, argument: bigint): Uint8Array {
  const type = major << 5;
  if (argument < 24n) return Uint8Array.of(type | Number(argument));
  if (argument < 0x100n) return Uint8Array.of(type | 24, Number(argument));
  if (argument < 0x10000n) return Uint8Array.of(type | 25, Number(argument >> 8n), Number(argument & 0xffn));
  const size = argument < 0x100000000n ? 4 : 8;
  const out = new Uint8Array(1 + size);
  out[0] = type | (size === 4 ? 26 : 27);
  for (let i = 0; i < size; i++) out[size - i] = Number((argument >> BigInt(8 * i)) & 0xffn);
  return out;
}

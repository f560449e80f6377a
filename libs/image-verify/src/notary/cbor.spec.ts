import { describe, expect, it } from 'vitest';
import { CborError, CborMap, CborTag, decodeCbor, encodeCbor } from './cbor';

describe('bounded CBOR codec (COSE_Sign1)', () => {
  it('round-trips the items COSE uses, keeping map order', () => {
    const value = new CborTag(18, [
      Uint8Array.of(1, 2, 3),
      new CborMap([
        [33, [Uint8Array.of(9)]],
        ['io.cncf.notary.signingAgent', 'x'],
        [-7, -1_000_000],
      ]),
      'text',
      [0, 23, 24, 255, 256, 65_535, 65_536, 2 ** 32, true, false, null],
    ]);
    const decoded = decodeCbor(encodeCbor(value));
    expect(decoded).toEqual(value);
    expect((((decoded as CborTag).value as unknown[])[1] as CborMap).entries.map(([k]) => k)).toEqual([
      33,
      'io.cncf.notary.signingAgent',
      -7,
    ]);
  });

  it('encodes in preferred form (RFC 8949 examples)', () => {
    expect(Buffer.from(encodeCbor(1_000_000)).toString('hex')).toBe('1a000f4240');
    expect(Buffer.from(encodeCbor(-100)).toString('hex')).toBe('3863');
    expect(Buffer.from(encodeCbor(['Signature1'])).toString('hex')).toBe('816a5369676e617475726531');
  });

  it('refuses indefinite lengths, floats, trailing bytes, lengths past the input, duplicate keys and deep nesting', () => {
    expect(() => decodeCbor(Uint8Array.of(0x9f, 0xff))).toThrow(/indefinite-length/);
    expect(() => decodeCbor(Uint8Array.of(0xfb, 0, 0, 0, 0, 0, 0, 0, 0))).toThrow(CborError);
    expect(() => decodeCbor(Uint8Array.of(0x01, 0x02))).toThrow(/after the CBOR item/);
    expect(() => decodeCbor(Uint8Array.of(0x5a, 0xff, 0xff, 0xff, 0xff))).toThrow(/past the end/);
    expect(() => decodeCbor(Uint8Array.of(0x9b, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff))).toThrow(
      /past the end/,
    );
    expect(() => decodeCbor(Uint8Array.of(0xa2, 0x01, 0x01, 0x01, 0x02))).toThrow(/duplicate CBOR map key/);
    expect(() => decodeCbor(new Uint8Array(40).fill(0x81))).toThrow(/nesting deeper/);
    expect(() => decodeCbor(Uint8Array.of(0x19, 0x01))).toThrow(/ends early/);
  });
});

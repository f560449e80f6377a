import { describe, expect, it } from 'vitest';
import { CborMap, CborTag, encodeCbor } from './cbor';
import { EnvelopeError, parseEnvelope } from './envelope';

const b64url = (value: unknown) =>
  Buffer.from(typeof value === 'string' ? value : JSON.stringify(value)).toString('base64url');
const headers = {
  alg: 'ES256',
  cty: 'application/vnd.cncf.notary.payload.v1+json',
  crit: ['io.cncf.notary.signingScheme'],
  'io.cncf.notary.signingScheme': 'notary.x509',
  'io.cncf.notary.signingTime': '2026-01-02T03:04:05Z',
};
const jws = (protectedHeaders: unknown, extra: Record<string, unknown> = {}) =>
  new TextEncoder().encode(
    JSON.stringify({
      payload: b64url({ targetArtifact: {} }),
      protected: b64url(protectedHeaders),
      header: { x5c: ['AAAA'] },
      signature: b64url('sig'),
      ...extra,
    }),
  );

describe('notation envelope parsing', () => {
  it('reads a JWS envelope: algorithm, scheme, times, chain and the signing input', () => {
    const envelope = parseEnvelope('application/jose+json', jws(headers));
    expect(envelope).toMatchObject({ format: 'jws', algorithm: 'ES256', signingScheme: 'notary.x509' });
    expect(envelope.signingTime.toISOString()).toBe('2026-01-02T03:04:05.000Z');
    expect(new TextDecoder().decode(envelope.signingInput)).toBe(
      `${b64url(headers)}.${b64url({ targetArtifact: {} })}`,
    );
  });

  it('names what is wrong in a JWS envelope', () => {
    const cases: Array<[unknown, RegExp, Record<string, unknown>?]> = [
      [{ ...headers, alg: 'none' }, /alg "none" is not one of/],
      [{ ...headers, alg: 'HS256' }, /alg "HS256"/],
      [{ ...headers, cty: 'text/plain' }, /content type "text\/plain"/],
      [{ ...headers, crit: [] }, /crit\) is missing/],
      [
        { ...headers, crit: ['io.cncf.notary.signingScheme', 'io.cncf.notary.expiry'] },
        /listed in crit but not present/,
      ],
      [{ ...headers, 'io.cncf.notary.expiry': '2027-01-01T00:00:00Z' }, /expiry must be a critical header/],
      [
        { ...headers, 'io.cncf.notary.signingScheme': 'notary.other' },
        /signing scheme "notary.other" is not supported/,
      ],
      [{ ...headers, 'io.cncf.notary.signingTime': 'yesterday' }, /not an RFC 3339 time/],
      [{ ...headers, 'io.cncf.notary.signingTime': undefined }, /signingTime is required/],
      [headers, /field "signatures" is not allowed/, { signatures: [] }],
      [headers, /x5c \(the certificate chain\) is missing/, { header: {} }],
    ];
    for (const [protectedHeaders, message, extra] of cases) {
      expect(() => parseEnvelope('application/jose+json', jws(protectedHeaders, extra)), String(message)).toThrow(
        message,
      );
    }
    expect(() => parseEnvelope('application/jose+json', new TextEncoder().encode('{'))).toThrow(EnvelopeError);
    expect(() => parseEnvelope('application/octet-stream', new Uint8Array())).toThrow(
      /media type "application\/octet-stream" is not supported/,
    );
  });

  it('reads a COSE_Sign1_Tagged envelope and its Sig_structure', () => {
    const protectedMap = new CborMap([
      [1, -7],
      [2, ['io.cncf.notary.signingScheme']],
      [3, 'application/vnd.cncf.notary.payload.v1+json'],
      ['io.cncf.notary.signingScheme', 'notary.x509'],
      ['io.cncf.notary.signingTime', new CborTag(1, 1_700_000_000)],
    ]);
    const protectedBytes = encodeCbor(protectedMap);
    const payload = new TextEncoder().encode('{}');
    const bytes = encodeCbor(
      new CborTag(18, [protectedBytes, new CborMap([[33, [Uint8Array.of(1)]]]), payload, Uint8Array.of(2)]),
    );
    const envelope = parseEnvelope('application/cose', bytes);
    expect(envelope).toMatchObject({ format: 'cose', algorithm: 'ES256' });
    expect(envelope.signingTime.getTime()).toBe(1_700_000_000_000);
    expect(envelope.signingInput).toEqual(encodeCbor(['Signature1', protectedBytes, new Uint8Array(0), payload]));
    expect(() => parseEnvelope('application/cose', encodeCbor(new CborTag(98, [])))).toThrow(/COSE_Sign1_Tagged/);
    const untagged = encodeCbor(new CborTag(18, [protectedBytes, new CborMap(), null, Uint8Array.of(2)]));
    expect(() => parseEnvelope('application/cose', untagged)).toThrow(/detached payloads are not supported/);
  });
});

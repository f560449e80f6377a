import { generateKeyPairSync } from 'node:crypto';
import { RFC3161Timestamp } from '@sigstore/core';
import { initializeTSA } from '@sigstore/mock';
import { describe, expect, it } from 'vitest';
import { parseGeneralizedTime, withSigningTime } from './rfc3161-time';

describe('parseGeneralizedTime', () => {
  it.each([
    ['20261129131500Z', '2026-11-29T13:15:00.000Z'],
    ['20261129131500.5Z', '2026-11-29T13:15:00.500Z'],
    ['20261129131500.12Z', '2026-11-29T13:15:00.120Z'],
    ['20261129131500.123Z', '2026-11-29T13:15:00.123Z'],
    ['20261129131500.123456789Z', '2026-11-29T13:15:00.123Z'],
  ])('reads %s', (text, iso) => {
    expect(parseGeneralizedTime(text).toISOString()).toBe(iso);
  });

  it.each([
    '20261329131500Z',
    '20260230131500Z',
    '20261129131500',
    '20261129131500.Z',
    '2026112913150Z',
    '20261129241500Z',
    'nope',
  ])('refuses %s', (text) => {
    expect(() => parseGeneralizedTime(text)).toThrow(/invalid GeneralizedTime/);
  });
});

describe('withSigningTime', () => {
  // The mock TSA writes its clock's milliseconds without trailing zeros, as DER requires.
  async function timestampAt(clock: Date): Promise<RFC3161Timestamp> {
    const tsa = await initializeTSA(generateKeyPairSync('ec', { namedCurve: 'prime256v1' }), clock);
    const response = await tsa.timestamp({
      artifactHash: Buffer.alloc(32, 1),
      hashAlgorithmOID: '2.16.840.1.101.3.4.2.1',
      nonce: 7,
      policyOID: '1.2.3.4',
      certReq: true,
    });
    return RFC3161Timestamp.parse(response as Buffer<ArrayBuffer>);
  }

  it('reads a genTime with a two-digit fraction, which @sigstore/core alone calls invalid', async () => {
    const timestamp = await timestampAt(new Date('2026-11-29T13:15:00.120Z'));
    expect(() => timestamp.signingTime).toThrow('invalid time');
    expect(withSigningTime(timestamp).signingTime.toISOString()).toBe('2026-11-29T13:15:00.120Z');
  });

  it('keeps the milliseconds of a three-digit fraction, which @sigstore/core drops', async () => {
    const timestamp = await timestampAt(new Date('2026-11-29T13:15:00.123Z'));
    expect(timestamp.signingTime.toISOString()).toBe('2026-11-29T13:15:00.000Z');
    expect(withSigningTime(timestamp).signingTime.toISOString()).toBe('2026-11-29T13:15:00.123Z');
  });
});

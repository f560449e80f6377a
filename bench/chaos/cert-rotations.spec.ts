import { X509Certificate } from 'node:crypto';
import { Logger } from '@nestjs/common';
import { describe, expect, it } from 'vitest';
import { CertRenewer, resolveCertOptions } from '@edict/cert';
import { ManualClock, MemorySecretStore, TestLeaderGate } from '@edict/cert/testing';
import {
  CERT_SCENARIO_TIMING,
  certTimingEnvironment,
  rotationFigures,
  rotationsComplete,
  servingTally,
  timeToValid,
  type CaWrite,
  type LeafWrite,
  type ServedSample,
} from './cert-rotations';

Logger.overrideLogger(false);

const START = Date.parse('2030-01-01T00:00:00Z');
const sample = (at: number, replica: string, serial: string | undefined, bad: Partial<ServedSample> = {}) => ({
  at: START + at,
  replica,
  serial,
  expired: false,
  trusted: true,
  ...bad,
});

describe('the certs scenario timing', () => {
  it('is a configuration the controllers accept, as variables', () => {
    expect(certTimingEnvironment(CERT_SCENARIO_TIMING)).toEqual({
      EDICT_CA_VALIDITY_MS: '90000',
      EDICT_TLS_VALIDITY_MS: '36000',
      EDICT_RENEW_BEFORE_MS: '18000',
      EDICT_CA_PROPAGATION_MS: '6000',
      EDICT_CERT_CHECK_INTERVAL_MS: '1000',
    });
  });

  it('makes the renewer rotate leaves every 18 s and the CA at 72 s, the leaf moving to it 6 s later', async () => {
    const clock = new ManualClock(START);
    const store = new MemorySecretStore();
    const options = resolveCertOptions({
      serviceName: 'edict-svc',
      namespace: 'edict',
      caValidityMs: CERT_SCENARIO_TIMING.caValidityMs,
      leafValidityMs: CERT_SCENARIO_TIMING.tlsValidityMs,
      renewBeforeMs: CERT_SCENARIO_TIMING.renewBeforeMs,
      caPropagationMs: CERT_SCENARIO_TIMING.caPropagationMs,
    });
    const renewer = new CertRenewer(options, store, new TestLeaderGate(true), clock);
    const events: string[] = [];
    // CAs numbered in the order they were created (the bundle drops expired ones).
    const caSerials: string[] = [];
    // The leader's check every second, for 100 s.
    for (let second = 0; second <= 100; second++) {
      const result = await renewer.reconcile();
      if (result.ca !== 'unchanged') events.push(`${second} s: CA ${result.ca}`);
      if (result.leaf === 'issued') {
        const pem = (await store.read(options.pairSecretName))!.data['tls.crt']!;
        const caPem = (await store.read(options.caSecretName))!.data['tls.crt']!;
        const cas = caPem.split(/(?<=-----END CERTIFICATE-----\n?)/).filter((block) => block.includes('BEGIN'));
        for (const block of cas) {
          const serial = new X509Certificate(block).serialNumber;
          if (!caSerials.includes(serial)) caSerials.push(serial);
        }
        const signer = cas.find((block) => new X509Certificate(pem).checkIssued(new X509Certificate(block)));
        events.push(
          `${second} s: leaf issued by CA ${caSerials.indexOf(new X509Certificate(signer!).serialNumber) + 1}`,
        );
      }
      clock.advance(CERT_SCENARIO_TIMING.certCheckIntervalMs);
    }
    expect(events).toEqual([
      '0 s: CA created',
      '0 s: leaf issued by CA 1',
      '18 s: leaf issued by CA 1',
      '36 s: leaf issued by CA 1',
      '54 s: leaf issued by CA 1',
      '72 s: CA rotated',
      '78 s: leaf issued by CA 2',
      '90 s: CA pruned',
      '96 s: leaf issued by CA 2',
    ]);
  });
});

describe('rotationFigures', () => {
  const leaves: LeafWrite[] = [
    { at: START + 1_000, serial: 'l1', caSerial: 'c1', notAfter: START + 37_000 },
    { at: START + 19_000, serial: 'l2', caSerial: 'c1', notAfter: START + 55_000 },
    { at: START + 79_000, serial: 'l3', caSerial: 'c2', notAfter: START + 115_000 },
  ];
  const cas: CaWrite[] = [
    { at: START + 1_000, serial: 'c1', notAfter: START + 91_000 },
    { at: START + 73_000, serial: 'c2', notAfter: START + 163_000 },
  ];

  it('classifies each write and times when each replica first served it', () => {
    const samples = [
      sample(1_200, 'a', 'l1'),
      sample(1_300, 'b', 'l1'),
      sample(19_250, 'a', 'l2'),
      sample(19_400, 'b', 'l1'),
      sample(19_900, 'b', 'l2'),
      // Seen before the watch reported the write: counted as served at once.
      sample(78_950, 'a', 'l3'),
      sample(80_000, 'b', 'l3'),
    ];
    expect(rotationFigures(START, leaves, cas, samples, ['a', 'b'])).toEqual([
      { kind: 'first', serial: 'l1', writtenAtMs: 1_000, servedAfterMs: { a: 200, b: 300 } },
      { kind: 'leaf', serial: 'l2', writtenAtMs: 19_000, servedAfterMs: { a: 250, b: 900 } },
      { kind: 'leaf to new CA', serial: 'l3', writtenAtMs: 79_000, caAgeMs: 6_000, servedAfterMs: { a: 0, b: 1_000 } },
    ]);
  });

  it('is complete only once a leaf renewal and a move to a new CA were each served by every replica', () => {
    const served = [sample(19_500, 'a', 'l2'), sample(19_500, 'b', 'l2'), sample(79_500, 'a', 'l3')];
    expect(rotationsComplete(rotationFigures(START, leaves, cas, served, ['a', 'b']))).toBe(false);
    const all = [...served, sample(81_000, 'b', 'l3')];
    expect(rotationsComplete(rotationFigures(START, leaves, cas, all, ['a', 'b']))).toBe(true);
    expect(rotationsComplete(rotationFigures(START, leaves.slice(0, 2), cas, all, ['a', 'b']))).toBe(false);
  });
});

describe('servingTally and timeToValid', () => {
  const samples = [
    sample(1_000, 'a', undefined),
    sample(2_000, 'a', 'l1'),
    sample(3_000, 'b', 'l1', { trusted: false, untrustedBecause: 'CA c9 missing from cfg' }),
    sample(4_000, 'a', 'l1', { expired: true }),
    sample(5_000, 'b', 'l2'),
    sample(6_000, 'a', 'l2'),
  ];

  it('counts failed handshakes, expired and untrusted certificates in a window', () => {
    expect(servingTally(START, samples, START, START + 10_000)).toEqual({
      samples: 6,
      unanswered: 1,
      expired: 1,
      untrusted: 1,
      firstBad: { atMs: 3_000, replica: 'b', why: 'CA c9 missing from cfg' },
    });
    expect(servingTally(START, samples, START + 3_500, START + 10_000).firstBad).toEqual({
      atMs: 4_000,
      replica: 'a',
      why: 'expired',
    });
    expect(servingTally(START, samples, START + 4_500, START + 10_000)).toEqual({
      samples: 2,
      unanswered: 0,
      expired: 0,
      untrusted: 0,
    });
  });

  it('times the first valid certificate served after a moment, by any replica and by all', () => {
    expect(timeToValid(samples, START + 2_500, ['a', 'b'])).toEqual({ first: 2_500, all: 3_500 });
    expect(timeToValid(samples, START + 5_500, ['a', 'b'])).toEqual({ first: 500 });
    expect(timeToValid(samples, START + 7_000, ['a'])).toEqual({});
  });
});

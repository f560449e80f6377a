import { createPrivateKey, X509Certificate } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { issueCa, issueLeaf, randomSerial } from './issue';
import { importSigningKey, KEY_ALGORITHMS, keyAlgorithmOf } from './key-algorithm';
import { joinCertificates, parseCertificates } from './pem';

const now = new Date('2030-01-01T00:00:00Z');
const hour = 3_600_000;

async function caAndLeaf(algorithm: (typeof KEY_ALGORITHMS)[number], leafValidityMs = 10 * hour) {
  const ca = await issueCa({ commonName: 'svc.ns.svc', algorithm, now, validityMs: 24 * hour, clockSkewMs: hour });
  const signer = await importSigningKey(ca.privateKeyPem);
  const leaf = await issueLeaf({
    commonName: 'svc.ns.svc',
    algorithm,
    now,
    validityMs: leafValidityMs,
    clockSkewMs: hour,
    dnsNames: ['svc', 'svc.ns.svc'],
    ipAddresses: ['127.0.0.1'],
    issuer: ca.certificate,
    issuerKey: signer.key,
    issuerAlgorithm: signer.algorithm,
  });
  return { ca, leaf, signer };
}

describe('issueCa / issueLeaf', () => {
  it.each(KEY_ALGORITHMS)('%s: a CA and a leaf it signs, with the configured names and times', async (algorithm) => {
    const { ca, leaf, signer } = await caAndLeaf(algorithm);
    expect(signer.algorithm).toBe(algorithm);
    expect(ca.certificate.ca).toBe(true);
    expect(ca.certificate.checkIssued(ca.certificate)).toBe(true);
    expect(new Date(ca.certificate.validFrom)).toEqual(new Date(now.getTime() - hour));
    expect(new Date(ca.certificate.validTo)).toEqual(new Date(now.getTime() + 24 * hour));
    expect(ca.privateKeyPem).toMatch(/^-----BEGIN PRIVATE KEY-----\n/);
    expect(keyAlgorithmOf(createPrivateKey(leaf.privateKeyPem))).toBe(algorithm);

    expect(leaf.certificate.ca).toBe(false);
    expect(leaf.certificate.checkIssued(ca.certificate)).toBe(true);
    expect(leaf.certificate.verify(ca.certificate.publicKey)).toBe(true);
    expect(leaf.certificate.checkPrivateKey(createPrivateKey(leaf.privateKeyPem))).toBe(true);
    expect(leaf.certificate.subject).toBe('CN=svc.ns.svc');
    expect(leaf.certificate.subjectAltName).toBe('DNS:svc, DNS:svc.ns.svc, IP Address:127.0.0.1');
    expect(leaf.certificate.keyUsage).toEqual(['1.3.6.1.5.5.7.3.1']);
    expect(new Date(leaf.certificate.validTo)).toEqual(new Date(now.getTime() + 10 * hour));
  });

  it('never lets a leaf outlive its CA', async () => {
    const { ca, leaf } = await caAndLeaf('ECDSA-P256', 48 * hour);
    expect(leaf.certificate.validTo).toBe(ca.certificate.validTo);
  });

  it('gives each CA its own subject and random positive serials', async () => {
    const first = await issueCa({ commonName: 'x', algorithm: 'ECDSA-P256', now, validityMs: hour, clockSkewMs: 0 });
    const second = await issueCa({ commonName: 'x', algorithm: 'ECDSA-P256', now, validityMs: hour, clockSkewMs: 0 });
    expect(first.certificate.subject).not.toBe(second.certificate.subject);
    expect(first.certificate.serialNumber).not.toBe(second.certificate.serialNumber);
    const serials = new Set(Array.from({ length: 50 }, () => randomSerial()));
    expect(serials.size).toBe(50);
    for (const serial of serials) {
      expect(serial).toMatch(/^[0-9a-f]{32}$/);
      expect(parseInt(serial[0]!, 16)).toBeLessThan(8);
    }
  });

  it('reads legacy SEC1 keys and rejects key types it cannot sign with', async () => {
    const { ca } = await caAndLeaf('ECDSA-P256');
    const sec1 = createPrivateKey(ca.privateKeyPem).export({ type: 'sec1', format: 'pem' }).toString();
    expect((await importSigningKey(sec1)).algorithm).toBe('ECDSA-P256');
    const { generateKeyPairSync } = await import('node:crypto');
    const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).privateKey.export({ type: 'pkcs8', format: 'pem' });
    await expect(importSigningKey(p384.toString())).rejects.toThrow('unsupported CA key type ec');
  });
});

describe('PEM lists', () => {
  it('round-trips a bundle and skips corrupt blocks', async () => {
    const { ca, leaf } = await caAndLeaf('ECDSA-P256');
    const joined = joinCertificates([ca.certificate, leaf.certificate]);
    const corrupt = '-----BEGIN CERTIFICATE-----\nAAAA\n-----END CERTIFICATE-----\n';
    const parsed = parseCertificates(corrupt + joined + 'trailing text');
    expect(parsed.map((c: X509Certificate) => c.serialNumber)).toEqual([
      ca.certificate.serialNumber,
      leaf.certificate.serialNumber,
    ]);
    expect(parseCertificates(undefined)).toEqual([]);
  });
});

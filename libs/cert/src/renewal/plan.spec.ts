import { describe, expect, it } from 'vitest';
import { resolveCertOptions } from '../cert.options';
import { issueCa, issueLeaf } from '../crypto/issue';
import { importSigningKey } from '../crypto/key-algorithm';
import { namesMatch, planLeaf } from './plan';
import type { CaState, LeafState } from './cert-state';

const HOUR = 3_600_000;
const now = new Date('2030-01-01T00:00:00Z');

async function pair(dnsNames: string[], ipAddresses: string[], leafHours = 10) {
  const ca = await issueCa({ commonName: 'c', algorithm: 'ECDSA-P256', now, validityMs: 100 * HOUR, clockSkewMs: 0 });
  const signer = await importSigningKey(ca.privateKeyPem);
  const leaf = await issueLeaf({
    commonName: 'c',
    algorithm: 'ECDSA-P256',
    now,
    validityMs: leafHours * HOUR,
    clockSkewMs: 0,
    dnsNames,
    ipAddresses,
    issuer: ca.certificate,
    issuerKey: signer.key,
    issuerAlgorithm: 'ECDSA-P256',
  });
  return { ca, leaf };
}

describe('namesMatch', () => {
  it('wants exactly the configured DNS names and IPs (IPv6 in any spelling)', async () => {
    const { leaf } = await pair(['a', 'b'], ['127.0.0.1', '::1']);
    const base = { keyAlgorithm: 'ECDSA-P256' as const };
    expect(
      namesMatch(leaf.certificate, { ...base, dnsNames: ['b', 'a'], ipAddresses: ['0:0:0:0:0:0:0:1', '127.0.0.1'] }),
    ).toBe(true);
    expect(namesMatch(leaf.certificate, { ...base, dnsNames: ['a'], ipAddresses: ['127.0.0.1', '::1'] })).toBe(false);
    expect(
      namesMatch(leaf.certificate, { ...base, dnsNames: ['a', 'b', 'c'], ipAddresses: ['127.0.0.1', '::1'] }),
    ).toBe(false);
    expect(namesMatch(leaf.certificate, { ...base, dnsNames: ['a', 'b'], ipAddresses: ['127.0.0.1'] })).toBe(false);
  });
});

describe('planLeaf', () => {
  it('does not wait for a new CA to propagate when the served certificate would lapse first', async () => {
    const old = await pair(['c'], [], 2);
    const fresh = await issueCa({
      commonName: 'c',
      algorithm: 'ECDSA-P256',
      now,
      validityMs: 100 * HOUR,
      clockSkewMs: 0,
    });
    const options = { ...resolveCertOptions({ serviceName: 'c', namespace: 'n' }), dnsNames: ['c'], ipAddresses: [] };
    const ca: CaState = {
      managed: true,
      secret: { name: 'ca', resourceVersion: '1', labels: {}, annotations: {}, data: {} },
      bundle: [old.ca.certificate, fresh.certificate],
      signer: fresh.certificate,
      signerKeyPem: fresh.privateKeyPem,
      signerAddedAt: now,
    };
    const leaf: LeafState = {
      managed: true,
      secret: { name: 'pair', resourceVersion: '2', labels: {}, annotations: {}, data: {} },
      certificate: old.leaf.certificate,
      keyMatches: true,
      keyAlgorithm: 'ECDSA-P256',
    };
    // Propagation (5 min) ends before the leaf's 2 h: wait.
    expect(planLeaf(leaf, ca, now, options)).toMatchObject({
      action: 'defer',
      until: new Date(now.getTime() + 5 * 60_000),
    });
    // Propagation of 3 h would outlast it: issue now.
    expect(planLeaf(leaf, ca, now, { ...options, caPropagationMs: 3 * HOUR })).toMatchObject({ action: 'issue' });
    // An expired CA cannot sign.
    expect(planLeaf(leaf, ca, new Date(now.getTime() + 200 * HOUR), options)).toMatchObject({ action: 'blocked' });
  });
});

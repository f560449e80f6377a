import { describe, expect, it } from 'vitest';
import { DAY_MS } from './cert.constants';
import { CertOptionsError, resolveCertOptions } from './cert.options';

describe('resolveCertOptions', () => {
  it('fills Kyverno-like defaults: names, durations, ECDSA P-256', () => {
    const options = resolveCertOptions({ serviceName: 'edict-svc', namespace: 'edict' });
    expect(options).toMatchObject({
      keyAlgorithm: 'ECDSA-P256',
      commonName: 'edict-svc.edict.svc',
      caSecretName: 'edict-svc.edict.svc.kyverno-tls-ca',
      pairSecretName: 'edict-svc.edict.svc.kyverno-tls-pair',
      caValidityMs: 365 * DAY_MS,
      leafValidityMs: 150 * DAY_MS,
      renewBeforeMs: 15 * DAY_MS,
      caRenewBeforeMs: 15 * DAY_MS,
    });
    expect(options.dnsNames).toEqual([
      'edict-svc',
      'edict-svc.edict',
      'edict-svc.edict.svc',
      'edict-svc.edict.svc.cluster.local',
    ]);
    expect(options.ipAddresses).toEqual([]);
  });

  it('adds local-mode names and IPs without duplicates, and honours a cluster domain', () => {
    const options = resolveCertOptions({
      serviceName: 's',
      namespace: 'n',
      clusterDomain: 'corp.example',
      extraDnsNames: ['localhost', 's'],
      ipAddresses: ['127.0.0.1', '::1', '127.0.0.1'],
    });
    expect(options.dnsNames).toEqual(['s', 's.n', 's.n.svc', 's.n.svc.corp.example', 'localhost']);
    expect(options.ipAddresses).toEqual(['127.0.0.1', '::1']);
  });

  it('names every bad field', () => {
    expect(() =>
      resolveCertOptions({
        serviceName: 'Bad_Name',
        namespace: 'ns',
        keyAlgorithm: 'DSA' as never,
        ipAddresses: ['not-an-ip'],
        leafValidityMs: 10,
      }),
    ).toThrow(
      /serviceName: serviceName must be a DNS label.*keyAlgorithm: keyAlgorithm must be one of ECDSA-P256, RSA-2048, Ed25519.*ipAddresses: ipAddresses must hold IP addresses.*leafValidityMs/,
    );
    expect(() => resolveCertOptions({ namespace: 'ns' })).toThrow(CertOptionsError);
  });

  it('rejects a renewal window as long as the validity', () => {
    expect(() =>
      resolveCertOptions({ serviceName: 's', namespace: 'n', leafValidityMs: 10_000, renewBeforeMs: 10_000 }),
    ).toThrow('renewBeforeMs: must be less than leafValidityMs');
    expect(() =>
      resolveCertOptions({ serviceName: 's', namespace: 'n', caValidityMs: 10_000, caRenewBeforeMs: 20_000 }),
    ).toThrow('caRenewBeforeMs: must be less than caValidityMs');
  });
});

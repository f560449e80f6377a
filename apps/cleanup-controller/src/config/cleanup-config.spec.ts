import { describe, expect, it } from 'vitest';
import { ControllerConfigError } from '@edict/controller-runtime';
import { loadCleanupConfig } from './cleanup-config';

describe('loadCleanupConfig', () => {
  it('has working defaults: the default install and its own Lease', () => {
    expect(loadCleanupConfig({})).toMatchObject({
      namespace: 'edict',
      leaseName: 'edict-cleanup-controller',
      workers: 4,
    });
  });

  it("derives Kyverno's names from the install name kyverno", () => {
    expect(loadCleanupConfig({ EDICT_INSTALL_NAME: 'kyverno' })).toMatchObject({
      namespace: 'kyverno',
      leaseName: 'kyverno-cleanup-controller',
      serviceName: 'kyverno-cleanup-controller',
    });
  });

  it('names every bad value with its variable', () => {
    expect(() => loadCleanupConfig({ EDICT_CLEANUP_WORKERS: '0' })).toThrow(ControllerConfigError);
    expect(() => loadCleanupConfig({ EDICT_CLEANUP_WORKERS: '0', EDICT_CLEANUP_PORT: 'x' })).toThrow(
      /EDICT_CLEANUP_PORT: must be a whole number, got "x".*workers \(EDICT_CLEANUP_WORKERS\)/,
    );
  });

  it('reads the same certificate timing variables as the admission controller, checked together', () => {
    expect(
      loadCleanupConfig({
        EDICT_CA_VALIDITY_MS: '90000',
        EDICT_TLS_VALIDITY_MS: '36000',
        EDICT_RENEW_BEFORE_MS: '18000',
        EDICT_CA_PROPAGATION_MS: '6000',
        EDICT_CERT_CHECK_INTERVAL_MS: '1000',
      }),
    ).toMatchObject({ caValidityMs: 90_000, tlsValidityMs: 36_000, renewBeforeMs: 18_000, caPropagationMs: 6_000 });
    // The hourly default check leaves no room in an 18 s renewal margin.
    expect(() =>
      loadCleanupConfig({
        EDICT_CA_VALIDITY_MS: '90000',
        EDICT_TLS_VALIDITY_MS: '36000',
        EDICT_RENEW_BEFORE_MS: '18000',
      }),
    ).toThrow(/renewBeforeMs \(EDICT_RENEW_BEFORE_MS\): renewBeforeMs must exceed caPropagationMs/);
    expect(() => loadCleanupConfig({ EDICT_RENEW_BEFORE_MS: String(400 * 24 * 60 * 60 * 1000) })).toThrow(
      /renewBeforeMs \(EDICT_RENEW_BEFORE_MS\): renewBeforeMs must be less than tlsValidityMs .*less than caValidityMs/,
    );
  });
});

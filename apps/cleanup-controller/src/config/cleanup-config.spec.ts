import { describe, expect, it } from 'vitest';
import { ControllerConfigError } from '@edict/controller';
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
});

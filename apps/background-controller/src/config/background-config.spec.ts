import { describe, expect, it } from 'vitest';
import { ControllerConfigError } from '@edict/controller-runtime';
import { loadBackgroundConfig } from './background-config';

describe('loadBackgroundConfig', () => {
  it('has working defaults: the default install, 10 workers, Kyverno-like retries', () => {
    expect(loadBackgroundConfig({})).toMatchObject({
      namespace: 'edict',
      configMapName: 'edict',
      leaseName: 'edict-background-controller',
      genWorkers: 10,
      maxRetries: 3,
      admissionWaitMs: 30_000,
      omitEvents: ['PolicyApplied', 'PolicySkipped'],
    });
  });

  it("derives Kyverno's names from the install name kyverno", () => {
    expect(loadBackgroundConfig({ EDICT_INSTALL_NAME: 'kyverno' })).toMatchObject({
      namespace: 'kyverno',
      configMapName: 'kyverno',
      leaseName: 'kyverno-background-controller',
    });
  });

  it('reads the environment, overrides on top', () => {
    const config = loadBackgroundConfig(
      { EDICT_GEN_WORKERS: '4', EDICT_OMIT_EVENTS: 'PolicyError', POD_NAMESPACE: 'policies' },
      { genWorkers: 2 },
    );
    expect(config).toMatchObject({ genWorkers: 2, omitEvents: ['PolicyError'], namespace: 'policies' });
  });

  it('names every bad value with its variable', () => {
    expect(() => loadBackgroundConfig({ EDICT_GEN_WORKERS: '0', EDICT_UR_RETRY_DELAY_MS: 'soon' })).toThrow(
      ControllerConfigError,
    );
    expect(() => loadBackgroundConfig({ EDICT_GEN_WORKERS: '0', EDICT_UR_RETRY_DELAY_MS: 'soon' })).toThrow(
      /EDICT_UR_RETRY_DELAY_MS: must be a whole number, got "soon".*genWorkers \(EDICT_GEN_WORKERS\): genWorkers must not be less than 1/,
    );
  });
});

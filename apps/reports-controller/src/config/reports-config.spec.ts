import { describe, expect, it } from 'vitest';
import { ControllerConfigError } from '@edict/controller';
import { loadReportsConfig } from './reports-config';

describe('loadReportsConfig', () => {
  it('has working defaults: the default install, its own Lease, 10 workers, a two-minute grace', () => {
    expect(loadReportsConfig({})).toMatchObject({
      namespace: 'edict',
      leaseName: 'edict-reports-controller',
      aggregationWorkers: 10,
      admissionReportGraceMs: 120_000,
    });
  });

  it("derives Kyverno's names from the install name kyverno, overrides on top", () => {
    expect(loadReportsConfig({ EDICT_INSTALL_NAME: 'kyverno', EDICT_AGGREGATION_WORKERS: '4' })).toMatchObject({
      namespace: 'kyverno',
      leaseName: 'kyverno-reports-controller',
      aggregationWorkers: 4,
    });
    expect(loadReportsConfig({ EDICT_AGGREGATION_WORKERS: '4' }, { aggregationWorkers: 2 }).aggregationWorkers).toBe(2);
  });

  it('names every bad value with its variable', () => {
    const load = () => loadReportsConfig({ EDICT_AGGREGATION_WORKERS: '0', EDICT_ADMISSION_REPORT_GRACE_MS: 'soon' });
    expect(load).toThrow(ControllerConfigError);
    expect(load).toThrow(
      /EDICT_ADMISSION_REPORT_GRACE_MS: must be a whole number, got "soon".*aggregationWorkers \(EDICT_AGGREGATION_WORKERS\)/,
    );
  });
});

import { describe, expect, it } from 'vitest';
import { ControllerConfigError } from '@edict/controller-runtime';
import { loadReportsConfig } from './reports-config';

describe('loadReportsConfig', () => {
  it('has working defaults: the default install, its own Lease, 10 workers, a two-minute grace', () => {
    expect(loadReportsConfig({})).toMatchObject({
      namespace: 'edict',
      leaseName: 'edict-reports-controller',
      aggregationWorkers: 10,
      admissionReportGraceMs: 120_000,
      backgroundScan: true,
      backgroundScanWorkers: 2,
      backgroundScanIntervalMs: 3_600_000,
      maxBackgroundReports: 10_000,
      enableReporting: ['validate', 'mutate', 'mutateExisting', 'imageVerify', 'generate'],
    });
  });

  it("lists the rule types in the order of Kyverno's --enableReporting default (libs/reports' list)", () => {
    // This app's own copy once put generate before imageVerify.
    expect(loadReportsConfig({}).enableReporting.join(',')).toBe('validate,mutate,mutateExisting,imageVerify,generate');
  });

  it("reads Kyverno's background scan settings and refuses an unknown rule type", () => {
    expect(
      loadReportsConfig({ EDICT_ENABLE_REPORTING: 'validate,generate', EDICT_BACKGROUND_SCAN_INTERVAL_MS: '60000' }),
    ).toMatchObject({ enableReporting: ['validate', 'generate'], backgroundScanIntervalMs: 60_000 });
    expect(() => loadReportsConfig({ EDICT_ENABLE_REPORTING: 'validate,audit' })).toThrow(/EDICT_ENABLE_REPORTING/);
  });

  it("reads Kyverno's two native policy report flags, with its chart's defaults (validating on, mutating off)", () => {
    expect(loadReportsConfig({})).toMatchObject({
      validatingAdmissionPolicyReports: true,
      mutatingAdmissionPolicyReports: false,
    });
    expect(
      loadReportsConfig({
        EDICT_VALIDATING_ADMISSION_POLICY_REPORTS: 'false',
        EDICT_MUTATING_ADMISSION_POLICY_REPORTS: 'true',
      }),
    ).toMatchObject({ validatingAdmissionPolicyReports: false, mutatingAdmissionPolicyReports: true });
    expect(() => loadReportsConfig({ EDICT_MUTATING_ADMISSION_POLICY_REPORTS: 'yes please' })).toThrow(
      /EDICT_MUTATING_ADMISSION_POLICY_REPORTS/,
    );
  });

  it("reads Kyverno's report switches with its defaults: aggregation and policy reports on, OpenReports off, every result", () => {
    expect(loadReportsConfig({})).toMatchObject({
      aggregateReports: true,
      policyReports: true,
      openreportsEnabled: false,
      allowedResults: [],
    });
    expect(
      loadReportsConfig({
        EDICT_AGGREGATE_REPORTS: 'false',
        EDICT_POLICY_REPORTS: 'false',
        EDICT_OPENREPORTS_ENABLED: 'true',
        EDICT_ALLOWED_RESULTS: 'fail,warn',
      }),
    ).toMatchObject({
      aggregateReports: false,
      policyReports: false,
      openreportsEnabled: true,
      allowedResults: ['fail', 'warn'],
    });
    expect(() => loadReportsConfig({ EDICT_ALLOWED_RESULTS: 'fail,failed' })).toThrow(/EDICT_ALLOWED_RESULTS/);
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

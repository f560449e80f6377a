/**
 * The reports controller's whole configuration: the fields every controller has
 * (ControllerBaseConfig) and its own, read from the environment in this one place and validated
 * once at startup (a bad value fails naming the variable). Durations are milliseconds.
 */
import 'reflect-metadata';
import { IsArray, IsBoolean, IsIn, IsInt, Matches, Max, Min } from 'class-validator';
import type { EnvironmentTable, KyvernoFlagTable } from '@edict/config';
import {
  CONTROLLER_ENVIRONMENT,
  CONTROLLER_KYVERNO_FLAGS,
  ControllerBaseConfig,
  DNS_NAME,
  loadConfig,
  type ConfigSpec,
} from '@edict/controller-runtime';
import {
  REPORTING_RULE_TYPES,
  REPORT_RESULT_TYPES,
  type ReportingRuleType,
  type ReportResultType,
} from '@edict/reports';

export class ReportsConfig extends ControllerBaseConfig {
  override leaseName = 'edict-reports-controller';

  /** Resources whose reports are merged at once (Kyverno's --aggregationWorkers). */
  @IsInt()
  @Min(1)
  @Max(100)
  aggregationWorkers = 10;

  /**
   * How long an admission report may wait for its resource (the report can be written before the
   * object is stored) or for its policy to reach this controller's cache before it is dropped.
   */
  @IsInt()
  @Min(1_000)
  @Max(3_600_000)
  admissionReportGraceMs = 120_000;

  /**
   * Kyverno's --aggregateReports (on by default): merge the intermediate reports (EphemeralReports)
   * into per-resource PolicyReports. Off, no PolicyReport is written and intermediate reports stay.
   */
  @IsBoolean()
  aggregateReports = true;

  /**
   * Kyverno's --policyReports (on by default): background scans store their results (as
   * EphemeralReports). Off, they still evaluate (and emit events) but store no report.
   */
  @IsBoolean()
  policyReports = true;

  /**
   * Kyverno's --openreportsEnabled (off by default; its chart's `openreports.enabled`): the
   * per-resource reports are openreports.io/v1alpha1 Reports and ClusterReports instead of
   * wgpolicyk8s.io/v1alpha2 PolicyReports and ClusterPolicyReports (the same fields).
   */
  @IsBoolean()
  openreportsEnabled = false;

  /**
   * Kyverno's --allowedResults (its chart's `features.reporting.allowedResults`): the result types
   * reports keep (pass, fail, warn, error, skip); empty (the default) keeps every type.
   */
  @IsArray()
  @IsIn(REPORT_RESULT_TYPES, { each: true })
  allowedResults: ReportResultType[] = [];

  /** Kyverno's --backgroundScan: evaluate background policies on existing resources. */
  @IsBoolean()
  backgroundScan = true;

  /**
   * Kyverno's --validatingAdmissionPolicyReports (on by default, as in Kyverno's chart): background
   * scans report on ValidatingAdmissionPolicies (with their bindings) that opt in with the
   * `reports.kyverno.io/enabled: "true"` label.
   */
  @IsBoolean()
  validatingAdmissionPolicyReports = true;

  /** Kyverno's --mutatingAdmissionPolicyReports (off by default): the same for MutatingAdmissionPolicies. */
  @IsBoolean()
  mutatingAdmissionPolicyReports = false;

  /** Kyverno's --backgroundScanWorkers: resources evaluated at once. */
  @IsInt()
  @Min(1)
  @Max(100)
  backgroundScanWorkers = 2;

  /**
   * Kyverno's --backgroundScanInterval (1h): how often every watched type is listed again, to catch
   * what a watch missed (resources whose hash and policies are unchanged are not evaluated again);
   * each type's pass is spread by up to 10% jitter.
   */
  @IsInt()
  @Min(1_000)
  @Max(7 * 24 * 3_600_000)
  backgroundScanIntervalMs = 3_600_000;

  /**
   * Kyverno's --maxBackgroundReports: while more EphemeralReports than this exist (the aggregation
   * is behind), background scans write none and evaluate the resource again later.
   */
  @IsInt()
  @Min(0)
  maxBackgroundReports = 10_000;

  /**
   * Kyverno's --enableReporting: the rule types whose results are reported. Background scans run
   * validate and verifyImages rules, and only when `validate` is listed.
   */
  @IsArray()
  @IsIn(REPORTING_RULE_TYPES, { each: true })
  enableReporting: ReportingRuleType[] = [...REPORTING_RULE_TYPES];

  /**
   * Docker config Secrets (in the controller's namespace) for imageRegistry entries that name no
   * `imageRegistryCredentials` (Kyverno's --imagePullSecrets, which its reports controller takes too).
   */
  @IsArray()
  @Matches(DNS_NAME, { each: true, message: 'imagePullSecrets must hold Secret names' })
  imagePullSecrets: string[] = [];
}

const ENVIRONMENT: EnvironmentTable<ReportsConfig> = {
  ...CONTROLLER_ENVIRONMENT,
  EDICT_REPORTS_HOST: ['host', 'string'],
  EDICT_REPORTS_PORT: ['port', 'int'],
  EDICT_REPORTS_LEASE_NAME: ['leaseName', 'string'],
  EDICT_AGGREGATION_WORKERS: ['aggregationWorkers', 'int'],
  EDICT_ADMISSION_REPORT_GRACE_MS: ['admissionReportGraceMs', 'int'],
  EDICT_AGGREGATE_REPORTS: ['aggregateReports', 'bool'],
  EDICT_POLICY_REPORTS: ['policyReports', 'bool'],
  EDICT_OPENREPORTS_ENABLED: ['openreportsEnabled', 'bool'],
  EDICT_ALLOWED_RESULTS: ['allowedResults', 'list'],
  EDICT_BACKGROUND_SCAN: ['backgroundScan', 'bool'],
  EDICT_BACKGROUND_SCAN_WORKERS: ['backgroundScanWorkers', 'int'],
  EDICT_VALIDATING_ADMISSION_POLICY_REPORTS: ['validatingAdmissionPolicyReports', 'bool'],
  EDICT_MUTATING_ADMISSION_POLICY_REPORTS: ['mutatingAdmissionPolicyReports', 'bool'],
  EDICT_BACKGROUND_SCAN_INTERVAL_MS: ['backgroundScanIntervalMs', 'int'],
  EDICT_MAX_BACKGROUND_REPORTS: ['maxBackgroundReports', 'int'],
  EDICT_ENABLE_REPORTING: ['enableReporting', 'list'],
  EDICT_IMAGE_PULL_SECRETS: ['imagePullSecrets', 'list'],
};

/** The variables read and the field each sets: the Helm chart's settings are generated from it (test/chart). */
export const REPORTS_ENVIRONMENT = ENVIRONMENT;

/** Kyverno's flags this controller's variables implement (KyvernoFlagTable); the base ones included. */
export const REPORTS_KYVERNO_FLAGS: KyvernoFlagTable = {
  ...CONTROLLER_KYVERNO_FLAGS,
  backgroundScan: 'EDICT_BACKGROUND_SCAN',
  validatingAdmissionPolicyReports: 'EDICT_VALIDATING_ADMISSION_POLICY_REPORTS',
  mutatingAdmissionPolicyReports: 'EDICT_MUTATING_ADMISSION_POLICY_REPORTS',
  aggregationWorkers: 'EDICT_AGGREGATION_WORKERS',
  backgroundScanWorkers: 'EDICT_BACKGROUND_SCAN_WORKERS',
  backgroundScanInterval: 'EDICT_BACKGROUND_SCAN_INTERVAL_MS',
  maxBackgroundReports: 'EDICT_MAX_BACKGROUND_REPORTS',
  enableReporting: 'EDICT_ENABLE_REPORTING',
  imagePullSecrets: 'EDICT_IMAGE_PULL_SECRETS',
  aggregateReports: 'EDICT_AGGREGATE_REPORTS',
  policyReports: 'EDICT_POLICY_REPORTS',
  openreportsEnabled: 'EDICT_OPENREPORTS_ENABLED',
};

const SPEC: ConfigSpec<ReportsConfig> = {
  what: 'reports controller',
  type: ReportsConfig,
  environment: ENVIRONMENT,
  names: (names) => ({ leaseName: names.leases.reportsController }),
};

/** The configuration from `env`, with `overrides` (tests, the local launcher) on top; throws ControllerConfigError. */
export function loadReportsConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<ReportsConfig> = {},
): ReportsConfig {
  return loadConfig(SPEC, env, overrides);
}

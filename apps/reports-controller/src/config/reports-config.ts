/**
 * The reports controller's whole configuration: the fields every controller has
 * (ControllerBaseConfig) and its own, read from the environment in this one place and validated
 * once at startup (a bad value fails naming the variable). Durations are milliseconds.
 */
import 'reflect-metadata';
import { IsInt, Max, Min } from 'class-validator';
import type { EnvironmentTable } from '@edict/config';
import { CONTROLLER_ENVIRONMENT, ControllerBaseConfig, loadConfig, type ConfigSpec } from '@edict/controller';

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
}

const ENVIRONMENT: EnvironmentTable<ReportsConfig> = {
  ...CONTROLLER_ENVIRONMENT,
  EDICT_REPORTS_HOST: ['host', 'string'],
  EDICT_REPORTS_PORT: ['port', 'int'],
  EDICT_REPORTS_LEASE_NAME: ['leaseName', 'string'],
  EDICT_AGGREGATION_WORKERS: ['aggregationWorkers', 'int'],
  EDICT_ADMISSION_REPORT_GRACE_MS: ['admissionReportGraceMs', 'int'],
};

/** The variables read, for `--help` texts and docs. */
export const REPORTS_CONFIG_VARIABLES = Object.keys(ENVIRONMENT);

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

/**
 * The background controller's whole configuration: the fields every controller has
 * (ControllerBaseConfig) and its own, read from the environment in this one place and validated
 * once at startup (a bad value fails naming the variable). Durations are milliseconds.
 */
import 'reflect-metadata';
import { IsArray, IsIn, IsInt, Matches, Max, Min } from 'class-validator';
import type { EnvironmentTable, KyvernoFlagTable } from '@edict/config';
import {
  CONTROLLER_ENVIRONMENT,
  CONTROLLER_KYVERNO_FLAGS,
  ControllerBaseConfig,
  DNS_NAME,
  loadConfig,
  type ConfigSpec,
} from '@edict/controller-runtime';
import { REPORTING_RULE_TYPES, type ReportingRuleType } from '@edict/reports';

export class BackgroundConfig extends ControllerBaseConfig {
  override leaseName = 'edict-background-controller';

  /** UpdateRequests processed at once (Kyverno's --genWorkers). */
  @IsInt()
  @Min(1)
  @Max(100)
  genWorkers = 10;

  /**
   * Failed attempts an UpdateRequest gets before it is given up and deleted (Kyverno retries a
   * failed request while its status.retryCount is at most 3).
   */
  @IsInt()
  @Min(0)
  @Max(20)
  maxRetries = 3;

  /** Wait before the first retry of a failed UpdateRequest; doubles with each further failure. */
  @IsInt()
  @Min(10)
  @Max(60_000)
  retryDelayMs = 1_000;

  /**
   * How long after its creation an UpdateRequest from an admission review waits for the change it
   * answers to be stored (the admission controller stores it before answering). The longest a
   * Kubernetes webhook call may take: a change another webhook refused is never stored, and its
   * request then runs as Kyverno runs it.
   */
  @IsInt()
  @Min(0)
  @Max(120_000)
  admissionWaitMs = 30_000;

  /**
   * Rule types whose results are reported (Kyverno's --enableReporting): `generate` and
   * `mutateExisting` are this controller's; without them it writes no reports.
   */
  @IsArray()
  @IsIn(REPORTING_RULE_TYPES, {
    each: true,
    message: `enableReporting must hold ${REPORTING_RULE_TYPES.join(', ')}`,
  })
  enableReporting: ReportingRuleType[] = [...REPORTING_RULE_TYPES];

  /**
   * Docker config Secrets (in the controller's namespace) for imageRegistry entries that name no
   * `imageRegistryCredentials` (Kyverno's --imagePullSecrets, which its background controller takes too).
   */
  @IsArray()
  @Matches(DNS_NAME, { each: true, message: 'imagePullSecrets must hold Secret names' })
  imagePullSecrets: string[] = [];
}

const ENVIRONMENT: EnvironmentTable<BackgroundConfig> = {
  ...CONTROLLER_ENVIRONMENT,
  EDICT_BACKGROUND_HOST: ['host', 'string'],
  EDICT_BACKGROUND_PORT: ['port', 'int'],
  EDICT_BACKGROUND_LEASE_NAME: ['leaseName', 'string'],
  EDICT_GEN_WORKERS: ['genWorkers', 'int'],
  EDICT_UR_MAX_RETRIES: ['maxRetries', 'int'],
  EDICT_UR_RETRY_DELAY_MS: ['retryDelayMs', 'int'],
  EDICT_UR_ADMISSION_WAIT_MS: ['admissionWaitMs', 'int'],
  EDICT_ENABLE_REPORTING: ['enableReporting', 'list'],
  EDICT_IMAGE_PULL_SECRETS: ['imagePullSecrets', 'list'],
};

/** The variables read and the field each sets: the Helm chart's settings are generated from it (test/chart). */
export const BACKGROUND_ENVIRONMENT = ENVIRONMENT;

/** Kyverno's flags this controller's variables implement (KyvernoFlagTable); the base ones included. */
export const BACKGROUND_KYVERNO_FLAGS: KyvernoFlagTable = {
  ...CONTROLLER_KYVERNO_FLAGS,
  genWorkers: 'EDICT_GEN_WORKERS',
  enableReporting: 'EDICT_ENABLE_REPORTING',
  imagePullSecrets: 'EDICT_IMAGE_PULL_SECRETS',
};

const SPEC: ConfigSpec<BackgroundConfig> = {
  what: 'background controller',
  type: BackgroundConfig,
  environment: ENVIRONMENT,
  names: (names) => ({ leaseName: names.leases.backgroundController }),
};

/** The configuration from `env`, with `overrides` (tests, the local launcher) on top; throws ControllerConfigError. */
export function loadBackgroundConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<BackgroundConfig> = {},
): BackgroundConfig {
  return loadConfig(SPEC, env, overrides);
}

/**
 * The reports controller's whole configuration, read from the environment in this one place and
 * validated once at startup (a bad value fails naming the variable). Durations are milliseconds.
 * Names (namespace, Lease) derive from the install name, as the other controllers' do.
 */
import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import {
  IsArray,
  IsIn,
  IsInt,
  IsIP,
  IsOptional,
  IsString,
  Matches,
  Max,
  Min,
  ValidateBy,
  validateSync,
} from 'class-validator';
import {
  DEFAULT_INSTALL_NAME,
  describeValidationErrors,
  installNameProblem,
  installNames,
  readEnvironment,
  type EnvironmentTable,
} from '@edict/config';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export type KubeSource = 'in-cluster' | 'kubeconfig' | 'auto';

export class ReportsConfig {
  /** The install name the default names derive from (namespace, Lease); see installNames. */
  @ValidateBy({
    name: 'installName',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && installNameProblem(value) === undefined,
      defaultMessage: (args) =>
        `install name ${typeof args?.value === 'string' ? installNameProblem(args.value) : 'must be a string'}`,
    },
  })
  installName = DEFAULT_INSTALL_NAME;

  /** Namespace the controller runs in: its Lease. */
  @Matches(DNS_LABEL, { message: 'namespace must be a DNS label' })
  namespace = 'edict';

  /** Where the health and metrics endpoints listen (plain HTTP). */
  @IsIP(undefined, { message: 'host must be an IP address' })
  host = '0.0.0.0';

  /** Port of /healthz, /readyz and /metrics (0: any free port, for tests). */
  @IsInt()
  @Min(0)
  @Max(65535)
  port = 8000;

  @IsIn(['in-cluster', 'kubeconfig', 'auto'])
  kubeSource: KubeSource = 'auto';

  /** A kubeconfig's text (local mode), instead of a file. */
  @IsOptional()
  @IsString()
  kubeconfig?: string;

  @IsOptional()
  @IsString()
  kubeconfigPath?: string;

  @Matches(DNS_NAME, { message: 'leaseName must be a DNS subdomain' })
  leaseName = 'edict-reports-controller';

  @IsInt()
  @Min(1000)
  leaseDurationMs = 15_000;

  @IsInt()
  @Min(1)
  renewDeadlineMs = 10_000;

  @IsInt()
  @Min(1)
  retryPeriodMs = 2_000;

  /** This replica's holder identity in the Lease (default: `POD_NAME_POD_UID`, else host name and a random suffix). */
  @IsOptional()
  @Matches(/^\S+$/, { message: 'leaseIdentity must be a non-empty word' })
  leaseIdentity?: string;

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

  /** Server-side watch length of the informers (tests use a few seconds). */
  @IsInt()
  @Min(1)
  watchTimeoutSeconds = 300;

  /** PolicyException namespaces for the policy cache (Kyverno's --exceptionNamespace). */
  @IsArray()
  @IsString({ each: true })
  exceptionNamespaces: string[] = [];
}

export class ReportsConfigError extends Error {
  override readonly name = 'ReportsConfigError';
}

const ENVIRONMENT: EnvironmentTable<ReportsConfig> = {
  EDICT_INSTALL_NAME: ['installName', 'string'],
  POD_NAMESPACE: ['namespace', 'string'],
  EDICT_REPORTS_HOST: ['host', 'string'],
  EDICT_REPORTS_PORT: ['port', 'int'],
  EDICT_KUBE_SOURCE: ['kubeSource', 'string'],
  KUBECONFIG: ['kubeconfigPath', 'string'],
  EDICT_REPORTS_LEASE_NAME: ['leaseName', 'string'],
  EDICT_LEASE_IDENTITY: ['leaseIdentity', 'string'],
  EDICT_AGGREGATION_WORKERS: ['aggregationWorkers', 'int'],
  EDICT_ADMISSION_REPORT_GRACE_MS: ['admissionReportGraceMs', 'int'],
  EDICT_EXCEPTION_NAMESPACES: ['exceptionNamespaces', 'list'],
};

/** The variables read, for `--help` texts and docs. */
export const REPORTS_CONFIG_VARIABLES = Object.keys(ENVIRONMENT);

/** The defaults the install name gives the name fields (none for a bad name: validation reports it). */
function namesOf(installName: unknown): Partial<ReportsConfig> {
  const name = installName ?? DEFAULT_INSTALL_NAME;
  if (typeof name !== 'string' || installNameProblem(name) !== undefined) return {};
  const names = installNames(name);
  return { namespace: names.namespace, leaseName: names.leases.reportsController };
}

/**
 * The configuration from `env`, with `overrides` (tests, the local launcher) on top. Throws
 * ReportsConfigError naming every bad field and its variable.
 */
export function loadReportsConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<ReportsConfig> = {},
): ReportsConfig {
  const { values, problems } = readEnvironment(env, ENVIRONMENT);
  const given = { ...values, ...overrides };
  const config = plainToInstance(ReportsConfig, { ...namesOf(given.installName), ...given });
  problems.push(...describeValidationErrors(validateSync(config, { forbidUnknownValues: false }), ENVIRONMENT));
  if (problems.length > 0)
    throw new ReportsConfigError(`invalid reports controller configuration: ${problems.join('; ')}`);
  return config;
}

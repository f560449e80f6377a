/**
 * The cleanup controller's whole configuration, read from the environment in this one place and
 * validated once at startup (a bad value fails naming the variable). Durations are milliseconds.
 * Names (namespace, Lease) derive from the install name, as the other controllers' do.
 */
import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { IsIn, IsInt, IsIP, IsOptional, IsString, Matches, Max, Min, ValidateBy, validateSync } from 'class-validator';
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

export class CleanupConfig {
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

  /** Namespace the controller runs in (its Lease). */
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
  leaseName = 'edict-cleanup-controller';

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

  /** Cleanup policies run at once. */
  @IsInt()
  @Min(1)
  @Max(50)
  workers = 4;

  /** Objects one policy run may look at (listed across its kinds); past this the run stops with an error. */
  @IsInt()
  @Min(1)
  @Max(1_000_000)
  maxTargetsPerRun = 10_000;

  /** How often the TTL controller looks again at which kinds exist and which it may list, watch and delete. */
  @IsInt()
  @Min(1_000)
  ttlDiscoveryIntervalMs = 60_000;

  /** Server-side watch length of the informers (tests use a few seconds). */
  @IsInt()
  @Min(1)
  watchTimeoutSeconds = 300;

  /** Distinct events waiting to be written. */
  @IsInt()
  @Min(0)
  maxQueuedEvents = 1000;

  /** Deadline of one context apiCall, body included. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  apiCallTimeoutMs = 10_000;

  /** Longest apiCall answer read, counted while it streams. */
  @IsInt()
  @Min(1024)
  maxApiCallResponseBytes = 2_000_000;

  /** Longest wait for pending Events on shutdown. */
  @IsInt()
  @Min(0)
  drainTimeoutMs = 15_000;
}

export class CleanupConfigError extends Error {
  override readonly name = 'CleanupConfigError';
}

const ENVIRONMENT: EnvironmentTable<CleanupConfig> = {
  EDICT_INSTALL_NAME: ['installName', 'string'],
  POD_NAMESPACE: ['namespace', 'string'],
  EDICT_CLEANUP_HOST: ['host', 'string'],
  EDICT_CLEANUP_PORT: ['port', 'int'],
  EDICT_KUBE_SOURCE: ['kubeSource', 'string'],
  KUBECONFIG: ['kubeconfigPath', 'string'],
  EDICT_CLEANUP_LEASE_NAME: ['leaseName', 'string'],
  EDICT_LEASE_IDENTITY: ['leaseIdentity', 'string'],
  EDICT_CLEANUP_WORKERS: ['workers', 'int'],
  EDICT_CLEANUP_MAX_TARGETS: ['maxTargetsPerRun', 'int'],
  EDICT_TTL_DISCOVERY_INTERVAL_MS: ['ttlDiscoveryIntervalMs', 'int'],
  EDICT_MAX_QUEUED_EVENTS: ['maxQueuedEvents', 'int'],
  EDICT_API_CALL_TIMEOUT_MS: ['apiCallTimeoutMs', 'int'],
  EDICT_MAX_API_CALL_RESPONSE_BYTES: ['maxApiCallResponseBytes', 'int'],
  EDICT_DRAIN_TIMEOUT_MS: ['drainTimeoutMs', 'int'],
};

/** The variables read, for `--help` texts and docs. */
export const CLEANUP_CONFIG_VARIABLES = Object.keys(ENVIRONMENT);

/** The defaults the install name gives the name fields (none for a bad name: validation reports it). */
function namesOf(installName: unknown): Partial<CleanupConfig> {
  const name = installName ?? DEFAULT_INSTALL_NAME;
  if (typeof name !== 'string' || installNameProblem(name) !== undefined) return {};
  const names = installNames(name);
  return { namespace: names.namespace, leaseName: names.leases.cleanupController };
}

/**
 * The configuration from `env`, with `overrides` (tests, the local launcher) on top. Throws
 * CleanupConfigError naming every bad field and its variable.
 */
export function loadCleanupConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<CleanupConfig> = {},
): CleanupConfig {
  const { values, problems } = readEnvironment(env, ENVIRONMENT);
  const given = { ...values, ...overrides };
  const config = plainToInstance(CleanupConfig, { ...namesOf(given.installName), ...given });
  problems.push(...describeValidationErrors(validateSync(config, { forbidUnknownValues: false }), ENVIRONMENT));
  if (problems.length > 0)
    throw new CleanupConfigError(`invalid cleanup controller configuration: ${problems.join('; ')}`);
  return config;
}

/**
 * The background controller's whole configuration, read from the environment in this one place
 * and validated once at startup (a bad value fails naming the variable). Durations are
 * milliseconds. Names (namespace, ConfigMap, Lease) derive from the install name, as the
 * admission controller's do.
 */
import 'reflect-metadata';
import { plainToInstance, Transform } from 'class-transformer';
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
import { AddressPolicy, DEFAULT_BLOCKED_CIDRS } from '@edict/egress';

const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
const DNS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export type KubeSource = 'in-cluster' | 'kubeconfig' | 'auto';

export class BackgroundConfig {
  /** The install name the default names derive from (namespace, ConfigMap, Lease); see installNames. */
  @ValidateBy({
    name: 'installName',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && installNameProblem(value) === undefined,
      defaultMessage: (args) =>
        `install name ${typeof args?.value === 'string' ? installNameProblem(args.value) : 'must be a string'}`,
    },
  })
  installName = DEFAULT_INSTALL_NAME;

  /** Namespace the controller runs in: its Lease, the UpdateRequests, the ConfigMap. */
  @Matches(DNS_LABEL, { message: 'namespace must be a DNS label' })
  namespace = 'edict';

  /** The Kyverno-format ConfigMap (generateSuccessEvents, exception namespaces). */
  @Matches(DNS_NAME, { message: 'configMapName must be a DNS subdomain' })
  configMapName = 'edict';

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
  leaseName = 'edict-background-controller';

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

  /** Server-side watch length of the informers (tests use a few seconds). */
  @IsInt()
  @Min(1)
  watchTimeoutSeconds = 300;

  /** PolicyException namespaces (Kyverno's --exceptionNamespace); empty: the ConfigMap's. */
  @IsArray()
  @IsString({ each: true })
  exceptionNamespaces: string[] = [];

  /** Distinct events waiting to be written (Kyverno's --maxQueuedEvents). */
  @IsInt()
  @Min(0)
  maxQueuedEvents = 1000;

  /** Event reasons not emitted (Kyverno's --omitEvents; its chart omits these two). */
  @IsArray()
  @IsIn(['PolicyViolation', 'PolicyApplied', 'PolicyError', 'PolicySkipped'], {
    each: true,
    message: 'omitEvents must hold PolicyViolation, PolicyApplied, PolicyError or PolicySkipped',
  })
  omitEvents: string[] = ['PolicyApplied', 'PolicySkipped'];

  /** Deadline of one context apiCall (API server or service), body included. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  apiCallTimeoutMs = 10_000;

  /** Longest apiCall answer read, counted while it streams. */
  @IsInt()
  @Min(1024)
  maxApiCallResponseBytes = 2_000_000;

  /** Addresses apiCall `service.url` calls never connect to; `none` in the variable: no block list. */
  @Transform(({ value }: { value: unknown }) =>
    Array.isArray(value) && value.length === 1 && value[0] === 'none' ? [] : value,
  )
  @IsArray()
  @ValidateBy({
    name: 'cidrList',
    validator: {
      validate: (value: unknown) => cidrListProblem(value) === undefined,
      defaultMessage: (args) => cidrListProblem(args?.value) ?? '',
    },
  })
  egressBlockedCidrs: string[] = [...DEFAULT_BLOCKED_CIDRS];

  /** Longest wait for the UpdateRequests in progress on shutdown. */
  @IsInt()
  @Min(0)
  drainTimeoutMs = 15_000;
}

function cidrListProblem(value: unknown): string | undefined {
  try {
    new AddressPolicy(value as string[]);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

export class BackgroundConfigError extends Error {
  override readonly name = 'BackgroundConfigError';
}

const ENVIRONMENT: EnvironmentTable<BackgroundConfig> = {
  EDICT_INSTALL_NAME: ['installName', 'string'],
  POD_NAMESPACE: ['namespace', 'string'],
  EDICT_CONFIGMAP: ['configMapName', 'string'],
  EDICT_BACKGROUND_HOST: ['host', 'string'],
  EDICT_BACKGROUND_PORT: ['port', 'int'],
  EDICT_KUBE_SOURCE: ['kubeSource', 'string'],
  KUBECONFIG: ['kubeconfigPath', 'string'],
  EDICT_BACKGROUND_LEASE_NAME: ['leaseName', 'string'],
  EDICT_LEASE_IDENTITY: ['leaseIdentity', 'string'],
  EDICT_GEN_WORKERS: ['genWorkers', 'int'],
  EDICT_UR_MAX_RETRIES: ['maxRetries', 'int'],
  EDICT_UR_RETRY_DELAY_MS: ['retryDelayMs', 'int'],
  EDICT_EXCEPTION_NAMESPACES: ['exceptionNamespaces', 'list'],
  EDICT_MAX_QUEUED_EVENTS: ['maxQueuedEvents', 'int'],
  EDICT_OMIT_EVENTS: ['omitEvents', 'list'],
  EDICT_API_CALL_TIMEOUT_MS: ['apiCallTimeoutMs', 'int'],
  EDICT_MAX_API_CALL_RESPONSE_BYTES: ['maxApiCallResponseBytes', 'int'],
  EDICT_EGRESS_BLOCKED_CIDRS: ['egressBlockedCidrs', 'list'],
  EDICT_DRAIN_TIMEOUT_MS: ['drainTimeoutMs', 'int'],
};

/** The variables read, for `--help` texts and docs. */
export const BACKGROUND_CONFIG_VARIABLES = Object.keys(ENVIRONMENT);

/** The defaults the install name gives the name fields (none for a bad name: validation reports it). */
function namesOf(installName: unknown): Partial<BackgroundConfig> {
  const name = installName ?? DEFAULT_INSTALL_NAME;
  if (typeof name !== 'string' || installNameProblem(name) !== undefined) return {};
  const names = installNames(name);
  return { namespace: names.namespace, configMapName: names.configMap, leaseName: names.leases.backgroundController };
}

/**
 * The configuration from `env`, with `overrides` (tests, the local launcher) on top. Throws
 * BackgroundConfigError naming every bad field and its variable.
 */
export function loadBackgroundConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<BackgroundConfig> = {},
): BackgroundConfig {
  const { values, problems } = readEnvironment(env, ENVIRONMENT);
  const given = { ...values, ...overrides };
  const config = plainToInstance(BackgroundConfig, { ...namesOf(given.installName), ...given });
  problems.push(...describeValidationErrors(validateSync(config, { forbidUnknownValues: false }), ENVIRONMENT));
  if (problems.length > 0)
    throw new BackgroundConfigError(`invalid background controller configuration: ${problems.join('; ')}`);
  return config;
}

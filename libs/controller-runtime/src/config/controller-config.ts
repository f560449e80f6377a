/**
 * What every Edict controller's configuration holds (install names, cluster access, leader
 * election, events, context access), and the one way each controller loads its own from the
 * environment: read, validate once at startup, and fail naming every bad field and its variable.
 * Each controller's config class extends ControllerBaseConfig with its own fields.
 */
import 'reflect-metadata';
import { plainToInstance, Transform, type ClassConstructor } from 'class-transformer';
import {
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsIP,
  IsOptional,
  IsString,
  IsUrl,
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
  type InstallNames,
  type KyvernoFlagTable,
} from '@edict/config';
import { AddressPolicy, DEFAULT_BLOCKED_CIDRS } from '@edict/egress';
import { TRACING_PROTOCOLS, type TracingProtocol } from '@edict/tracing';
import {
  LOGGING_FORMATS,
  LOGGING_TIMESTAMP_FORMATS,
  type LoggingFormat,
  type LoggingTimestampFormat,
} from '../logging/controller-logger';

export const DNS_LABEL = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?$/;
export const DNS_NAME = /^[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*$/;

export type KubeSource = 'in-cluster' | 'kubeconfig' | 'auto';

export const EVENT_REASONS = ['PolicyViolation', 'PolicyApplied', 'PolicyError', 'PolicySkipped'] as const;

export abstract class ControllerBaseConfig {
  /**
   * The install name the default names derive from (namespace, ConfigMap, Lease, ...; see
   * installNames). `kyverno` gives Kyverno's own names. A name's own variable still wins.
   */
  @ValidateBy({
    name: 'installName',
    validator: {
      validate: (value: unknown) => typeof value === 'string' && installNameProblem(value) === undefined,
      defaultMessage: (args) =>
        `install name ${typeof args?.value === 'string' ? installNameProblem(args.value) : 'must be a string'}`,
    },
  })
  installName = DEFAULT_INSTALL_NAME;

  /** Namespace the controller runs in (its Lease, the ConfigMap, its working objects). */
  @Matches(DNS_LABEL, { message: 'namespace must be a DNS label' })
  namespace = 'edict';

  /** The Kyverno-format ConfigMap to read and watch. */
  @Matches(DNS_NAME, { message: 'configMapName must be a DNS subdomain' })
  configMapName = 'edict';

  /** Kyverno's `kyverno-metrics` ConfigMap (its METRICS_CONFIG): namespaces, buckets and exposure of the metrics. Default: `<configMapName>-metrics`. */
  @IsOptional()
  @Matches(DNS_NAME, { message: 'metricsConfigMapName must be a DNS subdomain' })
  metricsConfigMapNameOverride?: string;

  get metricsConfigMapName(): string {
    return this.metricsConfigMapNameOverride ?? `${this.configMapName}-metrics`;
  }

  /** Where the controller's HTTP endpoints listen (health and metrics; the admission webhook's too). */
  @IsIP(undefined, { message: 'host must be an IP address' })
  host = '0.0.0.0';

  /** Port of /healthz, /readyz and /metrics (0: any free port, for tests); each controller may set its own. */
  @IsInt()
  @Min(0)
  @Max(65535)
  port = 8000;

  /**
   * Kyverno's --metricsPort: `/metrics` also over plain HTTP on this port (the chart sets 8000, Kyverno's
   * default; 0: any free port). Unset, or the plain-HTTP port itself: `/metrics` on the port above only.
   */
  @IsOptional()
  @IsInt()
  @Min(0)
  @Max(65535)
  metricsPort?: number;

  /** Kyverno's --disableMetrics: no metrics port (`/metrics` on the port above stays, for the probes' port). */
  @IsBoolean()
  disableMetrics = false;

  /**
   * How the API server is reached: `in-cluster` (the pod's service account), `kubeconfig`, or `auto`: a
   * kubeconfig given explicitly, else in-cluster when available, else $KUBECONFIG, else the local
   * cluster's `.edict/kubeconfig`, else ~/.kube/config (KubeModuleOptions.source).
   */
  @IsIn(['in-cluster', 'kubeconfig', 'auto'])
  kubeSource: KubeSource = 'auto';

  /** The kubeconfig file to read (unset: as `kubeSource` decides). */
  @IsOptional()
  @IsString()
  kubeconfigPath?: string;

  /** A kubeconfig's YAML text (tests, the local launcher), instead of a file. */
  @IsOptional()
  @IsString()
  kubeconfig?: string;

  /** The Lease this controller's replicas elect their leader with (each controller sets its default). */
  @Matches(DNS_NAME, { message: 'leaseName must be a DNS subdomain' })
  leaseName = '';

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

  /** Server-side watch length of the informers (tests use a few seconds). */
  @IsInt()
  @Min(1)
  watchTimeoutSeconds = 300;

  /**
   * Namespaces PolicyExceptions are honoured from (Kyverno's --exceptionNamespace; wildcards, `*` for
   * any). Empty: the ConfigMap's `exceptionNamespaces`, and when that is empty too, exceptions are off.
   */
  @IsArray()
  @IsString({ each: true })
  exceptionNamespaces: string[] = [];

  /**
   * Kyverno's --forceFailurePolicyIgnore (chart `features.forceFailurePolicyIgnore.enabled`): every
   * policy, classic and CEL, is served as `failurePolicy: Ignore` (its webhook and its review).
   */
  @IsBoolean()
  forceFailurePolicyIgnore = false;

  /** Longest wait for the work in progress on shutdown. */
  @IsInt()
  @Min(0)
  drainTimeoutMs = 15_000;

  /** Distinct events waiting to be written (Kyverno's --maxQueuedEvents). */
  @IsInt()
  @Min(0)
  maxQueuedEvents = 1000;

  /** Event reasons not emitted (Kyverno's --omitEvents; its chart omits these two). */
  @IsArray()
  @IsIn(EVENT_REASONS, { each: true, message: `omitEvents must hold ${EVENT_REASONS.join(', ')}` })
  omitEvents: string[] = ['PolicyApplied', 'PolicySkipped'];

  /** Deadline of one context apiCall (API server or service), body included. */
  @IsInt()
  @Min(100)
  @Max(60_000)
  apiCallTimeoutMs = 10_000;

  /** Longest apiCall answer read, counted while it streams (Kyverno's --maxAPICallResponseLength default). */
  @IsInt()
  @Min(1024)
  maxApiCallResponseBytes = 2_000_000;

  /**
   * Addresses apiCall `service.url` calls (and global context service calls) never connect to:
   * loopback, link-local, cloud metadata by default. `none` in the variable: no block list.
   */
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

  /**
   * IP addresses image registry calls may reach although egressBlockedCidrs covers them (e.g.
   * 127.0.0.1 for a local registry in local mode): only those addresses, only for registries;
   * apiCall services keep the full block list. Empty by default.
   */
  @IsArray()
  @IsIP(undefined, { each: true, message: 'registryAllowedAddresses must hold IP addresses' })
  registryAllowedAddresses: string[] = [];

  /**
   * Registries (`host[:port]`, `*` for all: Kyverno's --allowInsecureRegistry) reached over plain
   * HTTP or without certificate checks, as if every policy set `allowInsecureRegistry`. Empty by default.
   */
  @IsArray()
  // The registry client checks the same pattern when it starts (libs/registry's RegistryOptions).
  @Matches(/^(\*|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,252})(?::\d{1,5})?|\[[0-9A-Fa-f:.]+\](?::\d{1,5})?)$/, {
    each: true,
    message: 'insecureRegistries entries must be host[:port] or *',
  })
  insecureRegistries: string[] = [];

  /**
   * Kyverno's --enableTuf: keyless Cosign and Sigstore bundle entries without roots or log keys of
   * their own verify against Sigstore's trusted root. Without tufMirror, the snapshot of the public
   * trusted root Edict ships (from the Sigstore TUF client's seeds): nothing is fetched.
   */
  @IsBoolean()
  enableTuf = false;

  /** Kyverno's --tufMirror: TUF repository the trusted root is refreshed from (hourly); needs tufRoot or tufRootRaw unless Sigstore's own. */
  @IsOptional()
  @IsUrl({ require_tld: false, protocols: ['http', 'https'] }, { message: 'tufMirror must be an http(s) URL' })
  tufMirror?: string;

  /** Kyverno's --tufRoot: the mirror's initial root.json, as a file path (URLs are refused). */
  @IsOptional()
  @IsString()
  tufRoot?: string;

  /** Kyverno's --tufRootRaw: the mirror's initial root.json, base64. */
  @IsOptional()
  @IsString()
  tufRootRaw?: string;

  /** A Sigstore trusted_root.json file used as is: offline, no TUF, wins over the TUF settings. */
  @IsOptional()
  @IsString()
  trustedRootPath?: string;

  /**
   * Kyverno's --enableTracing: spans of admission reviews, policy and rule evaluations and API calls
   * exported over OTLP to tracingAddress:tracingPort. Off: no tracer is started at all.
   */
  @IsBoolean()
  enableTracing = false;

  /** Kyverno's --tracingAddress: the collector's host (empty: localhost). */
  @Matches(/^[A-Za-z0-9.:[\]-]{0,253}$/, { message: 'tracingAddress must be a host name or an IP address' })
  tracingAddress = '';

  /** Kyverno's --tracingPort: the collector's OTLP port (4317, OTLP/gRPC's). */
  @IsInt()
  @Min(1)
  @Max(65535)
  tracingPort = 4317;

  /**
   * Kyverno's --tracingCreds: a Secret in the controller's namespace holding the CA (`ca.crt` or
   * `ca.pem`) the collector's certificate chains to. Empty: a plain-text connection, as in Kyverno.
   */
  @Matches(/^$|^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/, { message: 'tracingCreds must be a Secret name' })
  tracingCreds = '';

  /** How spans travel: `grpc` (OTLP/gRPC, Kyverno's only transport) or `http/json` (OTLP/HTTP, POST /v1/traces). */
  @IsIn(TRACING_PROTOCOLS, { message: `tracingProtocol must be one of ${TRACING_PROTOCOLS.join(', ')}` })
  tracingProtocol: TracingProtocol = 'grpc';

  /** Kyverno's --loggingFormat: `text` (the default) or `json`, one object per line (the launcher reads it too). */
  @IsIn(LOGGING_FORMATS, { message: `loggingFormat must be one of ${LOGGING_FORMATS.join(', ')}` })
  loggingFormat: LoggingFormat = 'text';

  /** Kyverno's -v: how detailed the logs are (Kyverno's chart: 2; the launcher reads it too). See docs/observability.md. */
  @IsInt()
  @Min(0)
  @Max(10)
  verbosity = 2;

  /** Kyverno's --loggingtsFormat: the JSON logs' timestamp (`rfc3339`, `rfc3339nano`, `iso8601`, `millis`, `nanos`). */
  @IsIn(LOGGING_TIMESTAMP_FORMATS, {
    message: `loggingTimestampFormat must be one of ${LOGGING_TIMESTAMP_FORMATS.join(', ')}`,
  })
  loggingTimestampFormat: LoggingTimestampFormat = 'rfc3339';
}

function cidrListProblem(value: unknown): string | undefined {
  try {
    new AddressPolicy(value as string[]);
    return undefined;
  } catch (error) {
    return (error as Error).message;
  }
}

/** The variables every controller reads for the base fields (each adds its own, e.g. its port and Lease). */
export const CONTROLLER_ENVIRONMENT: EnvironmentTable<ControllerBaseConfig> = {
  EDICT_INSTALL_NAME: ['installName', 'string'],
  POD_NAMESPACE: ['namespace', 'string'],
  EDICT_CONFIGMAP: ['configMapName', 'string'],
  EDICT_METRICS_CONFIGMAP: ['metricsConfigMapNameOverride', 'string'],
  EDICT_METRICS_PORT: ['metricsPort', 'int'],
  EDICT_DISABLE_METRICS: ['disableMetrics', 'bool'],
  EDICT_KUBE_SOURCE: ['kubeSource', 'string'],
  KUBECONFIG: ['kubeconfigPath', 'string'],
  EDICT_LEASE_IDENTITY: ['leaseIdentity', 'string'],
  EDICT_EXCEPTION_NAMESPACES: ['exceptionNamespaces', 'list'],
  EDICT_FORCE_FAILURE_POLICY_IGNORE: ['forceFailurePolicyIgnore', 'bool'],
  EDICT_DRAIN_TIMEOUT_MS: ['drainTimeoutMs', 'int'],
  EDICT_MAX_QUEUED_EVENTS: ['maxQueuedEvents', 'int'],
  EDICT_OMIT_EVENTS: ['omitEvents', 'list'],
  EDICT_API_CALL_TIMEOUT_MS: ['apiCallTimeoutMs', 'int'],
  EDICT_MAX_API_CALL_RESPONSE_BYTES: ['maxApiCallResponseBytes', 'int'],
  EDICT_EGRESS_BLOCKED_CIDRS: ['egressBlockedCidrs', 'list'],
  EDICT_REGISTRY_ALLOWED_ADDRESSES: ['registryAllowedAddresses', 'list'],
  EDICT_INSECURE_REGISTRIES: ['insecureRegistries', 'list'],
  EDICT_ENABLE_TUF: ['enableTuf', 'bool'],
  EDICT_TUF_MIRROR: ['tufMirror', 'string'],
  EDICT_TUF_ROOT: ['tufRoot', 'string'],
  EDICT_TUF_ROOT_RAW: ['tufRootRaw', 'string'],
  EDICT_TRUSTED_ROOT_PATH: ['trustedRootPath', 'string'],
  EDICT_ENABLE_TRACING: ['enableTracing', 'bool'],
  EDICT_TRACING_ADDRESS: ['tracingAddress', 'string'],
  EDICT_TRACING_PORT: ['tracingPort', 'int'],
  EDICT_TRACING_CREDS: ['tracingCreds', 'string'],
  EDICT_TRACING_PROTOCOL: ['tracingProtocol', 'string'],
  EDICT_LOGGING_FORMAT: ['loggingFormat', 'string'],
  EDICT_VERBOSITY: ['verbosity', 'int'],
  EDICT_LOGGING_TS_FORMAT: ['loggingTimestampFormat', 'string'],
};

/** Kyverno's flags the base variables implement (each controller adds its own; see KyvernoFlagTable). */
export const CONTROLLER_KYVERNO_FLAGS: KyvernoFlagTable = {
  kubeconfig: 'KUBECONFIG',
  exceptionNamespace: 'EDICT_EXCEPTION_NAMESPACES',
  forceFailurePolicyIgnore: 'EDICT_FORCE_FAILURE_POLICY_IGNORE',
  maxQueuedEvents: 'EDICT_MAX_QUEUED_EVENTS',
  omitEvents: 'EDICT_OMIT_EVENTS',
  metricsPort: 'EDICT_METRICS_PORT',
  disableMetrics: 'EDICT_DISABLE_METRICS',
  enableTracing: 'EDICT_ENABLE_TRACING',
  tracingAddress: 'EDICT_TRACING_ADDRESS',
  tracingPort: 'EDICT_TRACING_PORT',
  tracingCreds: 'EDICT_TRACING_CREDS',
  loggingFormat: 'EDICT_LOGGING_FORMAT',
  v: 'EDICT_VERBOSITY',
  maxAPICallResponseLength: 'EDICT_MAX_API_CALL_RESPONSE_BYTES',
  apiCallTimeout: 'EDICT_API_CALL_TIMEOUT_MS',
  enableTuf: 'EDICT_ENABLE_TUF',
  tufMirror: 'EDICT_TUF_MIRROR',
  tufRoot: 'EDICT_TUF_ROOT',
  tufRootRaw: 'EDICT_TUF_ROOT_RAW',
};

export class ControllerConfigError extends Error {
  override readonly name = 'ControllerConfigError';
}

/** How one controller reads its configuration. */
export interface ConfigSpec<T extends ControllerBaseConfig> {
  /** For messages: `invalid <what> configuration: ...`. */
  readonly what: string;
  readonly type: ClassConstructor<T>;
  /** CONTROLLER_ENVIRONMENT and the controller's own variables. */
  readonly environment: EnvironmentTable<T>;
  /** The defaults the install name gives the controller's own name fields (its Lease, ...); namespace and ConfigMap come with every controller. */
  readonly names: (names: InstallNames) => Partial<T>;
}

/**
 * The configuration from `env`, with `overrides` (tests, the local launcher) on top. Throws
 * ControllerConfigError naming every bad field and its variable.
 */
export function loadConfig<T extends ControllerBaseConfig>(
  spec: ConfigSpec<T>,
  env: NodeJS.ProcessEnv,
  overrides: Partial<T>,
): T {
  const { values, problems } = readEnvironment(env, spec.environment);
  const given: Partial<T> = { ...values, ...overrides } as Partial<T>;
  const installName = given.installName ?? DEFAULT_INSTALL_NAME;
  // A bad install name gives no defaults: validation reports it.
  const defaults =
    typeof installName === 'string' && installNameProblem(installName) === undefined
      ? namesFor(spec, installNames(installName))
      : {};
  const config = plainToInstance(spec.type, { ...defaults, ...given });
  problems.push(...describeValidationErrors(validateSync(config, { forbidUnknownValues: false }), spec.environment));
  if (problems.length > 0)
    throw new ControllerConfigError(`invalid ${spec.what} configuration: ${problems.join('; ')}`);
  return config;
}

function namesFor<T extends ControllerBaseConfig>(spec: ConfigSpec<T>, names: InstallNames): Partial<T> {
  return { namespace: names.namespace, configMapName: names.configMap, ...spec.names(names) } as Partial<T>;
}

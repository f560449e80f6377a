/**
 * The cleanup controller's whole configuration: the fields every controller has
 * (ControllerBaseConfig), those of a webhook server (WebhookServerConfig: it validates cleanup
 * policies) and its own, read from the environment in this one place and validated
 * once at startup (a bad value fails naming the variable). Durations are milliseconds.
 */
import 'reflect-metadata';
import { IsArray, IsInt, Matches, Max, Min } from 'class-validator';
import type { EnvironmentTable, KyvernoFlagTable } from '@edict/config';
import {
  CONTROLLER_ENVIRONMENT,
  CONTROLLER_KYVERNO_FLAGS,
  DNS_NAME,
  loadConfig,
  WebhookServerConfig,
  type ConfigSpec,
} from '@edict/controller-runtime';

export class CleanupConfig extends WebhookServerConfig {
  override leaseName = 'edict-cleanup-controller';

  /** Kyverno's cleanup controller Service. */
  override serviceName = 'edict-cleanup-controller';

  /** HTTPS port of the cleanup policy webhook, health and metrics (0: any free port). */
  override port = 9443;

  /** Cleanup policies (and TTL deletions) handled at once. */
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

  /**
   * Docker config Secrets (in the controller's namespace) for DeletingPolicies' `image.GetMetadata`
   * on private registries (Kyverno's --imagePullSecrets).
   */
  @IsArray()
  @Matches(DNS_NAME, { each: true, message: 'imagePullSecrets must hold Secret names' })
  imagePullSecrets: string[] = [];
}

const ENVIRONMENT: EnvironmentTable<CleanupConfig> = {
  ...CONTROLLER_ENVIRONMENT,
  EDICT_CLEANUP_HOST: ['host', 'string'],
  EDICT_CLEANUP_PORT: ['port', 'int'],
  EDICT_CLEANUP_LEASE_NAME: ['leaseName', 'string'],
  EDICT_CLEANUP_SERVICE_NAME: ['serviceName', 'string'],
  EDICT_CLEANUP_WEBHOOK_URL: ['webhookUrl', 'string'],
  EDICT_CLEANUP_WEBHOOK_SERVICE_PORT: ['webhookServicePort', 'int'],
  EDICT_CLEANUP_DEPLOYMENT_NAME: ['deploymentName', 'string'],
  EDICT_CLEANUP_CERT_DNS_NAMES: ['extraDnsNames', 'list'],
  EDICT_CLEANUP_CERT_IP_ADDRESSES: ['ipAddresses', 'list'],
  EDICT_CERT_CHECK_INTERVAL_MS: ['certCheckIntervalMs', 'int'],
  EDICT_TLS_READY_TIMEOUT_MS: ['tlsReadyTimeoutMs', 'int'],
  EDICT_TLS_KEY_ALGORITHM: ['tlsKeyAlgorithm', 'string'],
  EDICT_CA_VALIDITY_MS: ['caValidityMs', 'int'],
  EDICT_TLS_VALIDITY_MS: ['tlsValidityMs', 'int'],
  EDICT_RENEW_BEFORE_MS: ['renewBeforeMs', 'int'],
  EDICT_CA_PROPAGATION_MS: ['caPropagationMs', 'int'],
  EDICT_WEBHOOK_MONITOR_INTERVAL_MS: ['webhookMonitorIntervalMs', 'int'],
  EDICT_CLEANUP_WORKERS: ['workers', 'int'],
  EDICT_CLEANUP_MAX_TARGETS: ['maxTargetsPerRun', 'int'],
  EDICT_TTL_DISCOVERY_INTERVAL_MS: ['ttlDiscoveryIntervalMs', 'int'],
  EDICT_IMAGE_PULL_SECRETS: ['imagePullSecrets', 'list'],
};

/** The variables read and the field each sets: the Helm chart's settings are generated from it (test/chart). */
export const CLEANUP_ENVIRONMENT = ENVIRONMENT;

/** Kyverno's flags this controller's variables implement (KyvernoFlagTable); the base ones included. */
export const CLEANUP_KYVERNO_FLAGS: KyvernoFlagTable = {
  ...CONTROLLER_KYVERNO_FLAGS,
  servicePort: 'EDICT_CLEANUP_WEBHOOK_SERVICE_PORT',
  webhookServerPort: 'EDICT_CLEANUP_PORT',
  renewBefore: 'EDICT_RENEW_BEFORE_MS',
};

const SPEC: ConfigSpec<CleanupConfig> = {
  what: 'cleanup controller',
  type: CleanupConfig,
  environment: ENVIRONMENT,
  names: (names) => ({ leaseName: names.leases.cleanupController, serviceName: names.cleanupService }),
};

/** The configuration from `env`, with `overrides` (tests, the local launcher) on top; throws ControllerConfigError. */
export function loadCleanupConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<CleanupConfig> = {},
): CleanupConfig {
  return loadConfig(SPEC, env, overrides);
}

/**
 * The admission controller's whole configuration: the fields every controller has
 * (ControllerBaseConfig), those of a webhook server (WebhookServerConfig) and its own, read from the environment in this one place and validated
 * once at startup (a bad value fails naming the variable). Durations are milliseconds.
 */
import 'reflect-metadata';
import { IsArray, IsBoolean, IsIn, IsInt, IsOptional, IsString, Matches, Max, Min } from 'class-validator';
import type { EnvironmentTable, KyvernoFlagTable } from '@edict/config';
import { REPORT_RESULT_TYPES, type ReportResultType } from '@edict/reports';
import {
  CONTROLLER_ENVIRONMENT,
  CONTROLLER_KYVERNO_FLAGS,
  DNS_NAME,
  loadConfig,
  WebhookServerConfig,
  type ConfigSpec,
} from '@edict/controller-runtime';

export class ControllerConfig extends WebhookServerConfig {
  /** HTTPS port of the webhooks, health and metrics (0: any free port). */
  override port = 9443;

  /** Request bodies above this are refused with 413. */
  @IsInt()
  @Min(1024)
  maxBodyBytes = 10 * 1024 * 1024;

  /** Reviews evaluated at once; more wait in the queue. */
  @IsInt()
  @Min(1)
  maxInFlight = 64;

  /** Reviews waiting for a slot; beyond this a review is answered at once by its failure policy. */
  @IsInt()
  @Min(0)
  maxQueued = 512;

  /**
   * Of the `maxInFlight` slots, the most one namespace's reviews hold at once (cluster-scoped
   * requests count as one namespace), so one tenant's slow policies cannot take every slot; a freed
   * slot goes to the waiting namespaces in turn.
   */
  @IsInt()
  @Min(1)
  maxInFlightPerNamespace = 16;

  /** Of the `maxQueued` places, the most one namespace's reviews take. */
  @IsInt()
  @Min(0)
  maxQueuedPerNamespace = 128;

  /**
   * Context loads that reach out (apiCall, imageRegistry) at once, and the most one policy
   * namespace's loads hold (ClusterPolicies count as one): a tenant's slow lookups wait for their
   * own share, not everyone's. Each load also gets at most half of its review's remaining time.
   */
  @IsInt()
  @Min(1)
  maxContextLoads = 64;

  /** Of the `maxContextLoads`, the most one policy namespace's loads hold at once. */
  @IsInt()
  @Min(1)
  maxContextLoadsPerNamespace = 16;

  override leaseName = 'edict-admission-controller';

  /**
   * Label sets kept per admission metric (kyverno_admission_requests_total, kyverno_policy_results_total
   * and their histograms); past it new ones fold into one series labelled `overflow`.
   */
  @IsInt()
  @Min(1)
  metricsMaxSeries = 2_000;

  /** After turning unready on shutdown, keep serving this long so endpoints can drop the pod. */
  @IsInt()
  @Min(0)
  shutdownDelayMs = 5_000;

  /**
   * Longest a request may take to arrive whole (headers and body): a client that trickles bytes
   * (slowloris) is cut off. Reviews themselves answer within the webhook timeout (at most 30 s).
   */
  @IsInt()
  @Min(1_000)
  @Max(300_000)
  httpRequestTimeoutMs = 30_000;

  /** Longest a request's headers may take to arrive. */
  @IsInt()
  @Min(1_000)
  @Max(120_000)
  httpHeadersTimeoutMs = 10_000;

  /**
   * How long a kept-alive connection may sit idle between requests. Longer than the API server's
   * idle reuse keeps it from reconnecting (and handshaking) for every review.
   */
  @IsInt()
  @Min(1_000)
  @Max(600_000)
  httpIdleTimeoutMs = 90_000;

  /** How long a readiness self-check over TLS may take. */
  @IsInt()
  @Min(10)
  selfCheckTimeoutMs = 2_000;

  /**
   * Swagger at `/docs` and the `/admin/*` debugging endpoints (read-only, and a side-effect-free
   * evaluate). Off by default: they are unauthenticated and share the webhook port, so turn them on
   * only to debug (the local mode of `npm start` does).
   */
  @IsBoolean()
  adminEndpoints = false;

  /**
   * Kyverno's features.generateValidatingAdmissionPolicy: the leader turns eligible ClusterPolicies
   * (validate.cel with generate) and ValidatingPolicies into ValidatingAdmissionPolicies with
   * bindings. On by default, as in Kyverno's current releases.
   */
  @IsBoolean()
  generateValidatingAdmissionPolicy = true;

  /**
   * Kyverno's features.generateMutatingAdmissionPolicy: MutatingPolicies become
   * MutatingAdmissionPolicies with bindings (a policy may still ask for it itself). Off by default.
   */
  @IsBoolean()
  generateMutatingAdmissionPolicy = false;

  /** Webhook timeout before policies raise it with `webhookTimeoutSeconds` (Kyverno: 10). */
  @IsInt()
  @Min(1)
  @Max(30)
  webhookTimeoutSeconds = 10;

  /**
   * Admitted reviews waiting for their after-admission work (audit policies, reports, update
   * requests, events; Kyverno's --maxAuditCapacity). Beyond it the work is dropped and counted.
   */
  @IsInt()
  @Min(0)
  auditQueueSize = 1000;

  /** After-admission jobs run at once (Kyverno's --maxAuditWorkers). */
  @IsInt()
  @Min(1)
  @Max(64)
  auditWorkers = 8;

  /**
   * Worker threads evaluating reviews and their audits: a count (0, the default: everything on the
   * main thread, the reference path) or `auto`, one per usable core (CPU affinity and cgroup
   * quota; none on one core).
   */
  @Matches(/^(auto|[0-9]|[1-5][0-9]|6[0-4])$/, { message: 'webhookWorkers must be auto or a number of threads (0-64)' })
  webhookWorkers = '0';

  /**
   * Backpressure from the after-admission backlog: while the queued audits, report writes and
   * UpdateRequests would take more than half of `drainTimeoutMs` to finish at the rate measured, a
   * review that adds to them waits before its answer (at most half of its remaining timeout and a
   * quarter of webhookTimeoutSeconds), so
   * a shutdown can drain what was admitted. Off: reviews never wait and a backlog past the drain is lost.
   */
  @IsBoolean()
  auditBackpressure = true;

  /**
   * Kyverno's --admissionReports: an admitted request's results go into an admission report for
   * the reports controller. Off, audits still run (events, metrics) but no report is built or written.
   */
  @IsBoolean()
  admissionReports = true;

  /**
   * Kyverno's --allowedResults (its chart's `features.reporting.allowedResults`): the result types an
   * admission report keeps (pass, fail, warn, error, skip); empty (the default) keeps every type.
   */
  @IsArray()
  @IsIn(REPORT_RESULT_TYPES, { each: true })
  allowedResults: ReportResultType[] = [];

  /** Admission reports waiting to be written; beyond it they are dropped and counted. */
  @IsInt()
  @Min(0)
  reportQueueSize = 1000;

  /** Kyverno's --maxAdmissionReports: no new admission report while more than this exist. */
  @IsInt()
  @Min(0)
  maxAdmissionReports = 10_000;

  /**
   * Kyverno's --maxGlobalContextEntries: GlobalContextEntries held at most; one more is refused (its
   * status says why) and loaded once another is removed. 0 (the default): unbounded.
   */
  @IsInt()
  @Min(0)
  maxGlobalContextEntries = 0;

  /**
   * The background controller's username (Kyverno's --backgroundServiceAccountName, e.g.
   * `system:serviceaccount:edict:edict-background-controller`): its own requests trigger no
   * generate or mutate-existing rules with skipBackgroundRequests (the default), and policy
   * validation asks whether it may write what those rules need (unset: not asked, with a warning).
   */
  @IsOptional()
  @IsString()
  backgroundUsername?: string;

  /**
   * The reports controller's username (Kyverno's --reportsServiceAccountName, e.g.
   * `system:serviceaccount:edict:edict-reports-controller`): a ValidatingPolicy scanned in the
   * background is RBACPermissionsGranted only when it may get, list and watch what the policy
   * matches (SubjectAccessReviews, as Kyverno asks). Unset: not asked.
   */
  @IsOptional()
  @IsString()
  reportsUsername?: string;

  /**
   * Docker config Secrets (in the controller's namespace) for imageRegistry entries that name no
   * `imageRegistryCredentials` (Kyverno's --imagePullSecrets).
   */
  @IsArray()
  @Matches(DNS_NAME, { each: true, message: 'imagePullSecrets must hold Secret names' })
  imagePullSecrets: string[] = [];
}

/** Environment variable → config field, and how to read it. */
const ENVIRONMENT: EnvironmentTable<ControllerConfig> = {
  ...CONTROLLER_ENVIRONMENT,
  EDICT_SERVICE_NAME: ['serviceName', 'string'],
  EDICT_WEBHOOK_HOST: ['host', 'string'],
  EDICT_WEBHOOK_PORT: ['port', 'int'],
  EDICT_MAX_BODY_BYTES: ['maxBodyBytes', 'int'],
  EDICT_MAX_IN_FLIGHT: ['maxInFlight', 'int'],
  EDICT_MAX_QUEUED: ['maxQueued', 'int'],
  EDICT_METRICS_MAX_SERIES: ['metricsMaxSeries', 'int'],
  EDICT_MAX_IN_FLIGHT_PER_NAMESPACE: ['maxInFlightPerNamespace', 'int'],
  EDICT_MAX_QUEUED_PER_NAMESPACE: ['maxQueuedPerNamespace', 'int'],
  EDICT_MAX_CONTEXT_LOADS: ['maxContextLoads', 'int'],
  EDICT_MAX_CONTEXT_LOADS_PER_NAMESPACE: ['maxContextLoadsPerNamespace', 'int'],
  EDICT_LEASE_NAME: ['leaseName', 'string'],
  EDICT_CERT_CHECK_INTERVAL_MS: ['certCheckIntervalMs', 'int'],
  EDICT_TLS_READY_TIMEOUT_MS: ['tlsReadyTimeoutMs', 'int'],
  EDICT_TLS_KEY_ALGORITHM: ['tlsKeyAlgorithm', 'string'],
  EDICT_CA_VALIDITY_MS: ['caValidityMs', 'int'],
  EDICT_TLS_VALIDITY_MS: ['tlsValidityMs', 'int'],
  EDICT_RENEW_BEFORE_MS: ['renewBeforeMs', 'int'],
  EDICT_CA_PROPAGATION_MS: ['caPropagationMs', 'int'],
  EDICT_CERT_DNS_NAMES: ['extraDnsNames', 'list'],
  EDICT_CERT_IP_ADDRESSES: ['ipAddresses', 'list'],
  EDICT_SHUTDOWN_DELAY_MS: ['shutdownDelayMs', 'int'],
  EDICT_HTTP_REQUEST_TIMEOUT_MS: ['httpRequestTimeoutMs', 'int'],
  EDICT_HTTP_HEADERS_TIMEOUT_MS: ['httpHeadersTimeoutMs', 'int'],
  EDICT_HTTP_IDLE_TIMEOUT_MS: ['httpIdleTimeoutMs', 'int'],
  EDICT_ADMIN_ENDPOINTS: ['adminEndpoints', 'bool'],
  EDICT_GENERATE_VALIDATING_ADMISSION_POLICY: ['generateValidatingAdmissionPolicy', 'bool'],
  EDICT_GENERATE_MUTATING_ADMISSION_POLICY: ['generateMutatingAdmissionPolicy', 'bool'],
  EDICT_WEBHOOK_URL: ['webhookUrl', 'string'],
  EDICT_WEBHOOK_SERVICE_PORT: ['webhookServicePort', 'int'],
  EDICT_WEBHOOK_TIMEOUT_SECONDS: ['webhookTimeoutSeconds', 'int'],
  EDICT_DEPLOYMENT_NAME: ['deploymentName', 'string'],
  EDICT_WEBHOOK_MONITOR_INTERVAL_MS: ['webhookMonitorIntervalMs', 'int'],
  EDICT_AUDIT_QUEUE_SIZE: ['auditQueueSize', 'int'],
  EDICT_AUDIT_WORKERS: ['auditWorkers', 'int'],
  EDICT_AUDIT_BACKPRESSURE: ['auditBackpressure', 'bool'],
  EDICT_WEBHOOK_WORKERS: ['webhookWorkers', 'string'],
  EDICT_ADMISSION_REPORTS: ['admissionReports', 'bool'],
  EDICT_ALLOWED_RESULTS: ['allowedResults', 'list'],
  EDICT_REPORT_QUEUE_SIZE: ['reportQueueSize', 'int'],
  EDICT_MAX_ADMISSION_REPORTS: ['maxAdmissionReports', 'int'],
  EDICT_MAX_GLOBAL_CONTEXT_ENTRIES: ['maxGlobalContextEntries', 'int'],
  EDICT_BACKGROUND_USERNAME: ['backgroundUsername', 'string'],
  EDICT_REPORTS_USERNAME: ['reportsUsername', 'string'],
  EDICT_IMAGE_PULL_SECRETS: ['imagePullSecrets', 'list'],
};

/** The variables read and the field each sets: the Helm chart's settings are generated from it (test/chart). */
export const ADMISSION_ENVIRONMENT = ENVIRONMENT;

/** Kyverno's flags this controller's variables implement (KyvernoFlagTable); the base ones included. */
export const ADMISSION_KYVERNO_FLAGS: KyvernoFlagTable = {
  ...CONTROLLER_KYVERNO_FLAGS,
  webhookTimeout: 'EDICT_WEBHOOK_TIMEOUT_SECONDS',
  generateValidatingAdmissionPolicy: 'EDICT_GENERATE_VALIDATING_ADMISSION_POLICY',
  generateMutatingAdmissionPolicy: 'EDICT_GENERATE_MUTATING_ADMISSION_POLICY',
  admissionReports: 'EDICT_ADMISSION_REPORTS',
  servicePort: 'EDICT_WEBHOOK_SERVICE_PORT',
  webhookServerPort: 'EDICT_WEBHOOK_PORT',
  backgroundServiceAccountName: 'EDICT_BACKGROUND_USERNAME',
  reportsServiceAccountName: 'EDICT_REPORTS_USERNAME',
  renewBefore: 'EDICT_RENEW_BEFORE_MS',
  maxAuditWorkers: 'EDICT_AUDIT_WORKERS',
  maxAuditCapacity: 'EDICT_AUDIT_QUEUE_SIZE',
  maxAdmissionReports: 'EDICT_MAX_ADMISSION_REPORTS',
  imagePullSecrets: 'EDICT_IMAGE_PULL_SECRETS',
};

const SPEC: ConfigSpec<ControllerConfig> = {
  what: 'admission controller',
  type: ControllerConfig,
  environment: ENVIRONMENT,
  names: (names) => ({
    serviceName: names.service,
    leaseName: names.leases.admissionController,
  }),
};

/** The configuration from `env`, with `overrides` (tests, the local launcher) on top; throws ControllerConfigError. */
export function loadControllerConfig(
  env: NodeJS.ProcessEnv = process.env,
  overrides: Partial<ControllerConfig> = {},
): ControllerConfig {
  return loadConfig(SPEC, env, overrides);
}

// @edict/controller-runtime: what every Edict controller app is made of — its base configuration and how it
// is loaded, cluster access and leader election, health and metrics endpoints, the ControllerAppModule that
// composes them with the app's feature modules, start and main.
export {
  CONTROLLER_ENVIRONMENT,
  CONTROLLER_KYVERNO_FLAGS,
  ControllerBaseConfig,
  ControllerConfigError,
  DNS_LABEL,
  DNS_NAME,
  EVENT_REASONS,
  loadConfig,
  type ConfigSpec,
  type KubeSource,
} from './config/controller-config';
export {
  ControllerAppModule,
  ControllerCoreModule,
  type AppFactory,
  type ControllerAppOptions,
} from './app/controller-app.module';
export { clusterModules, policyModule } from './modules/cluster-modules';
export { HealthController, READINESS_CHECKS } from './health/health.controller';
export { PolicyReadiness } from './health/policy-readiness';
export { MetricsController, METRIC_REGISTRIES } from './metrics/metrics.controller';
export {
  CoreMetrics,
  HTTP_REQUESTS_DURATION,
  HTTP_REQUESTS_TOTAL,
  KYVERNO_INFO,
  edictVersion,
} from './metrics/core-metrics';
export {
  DEFAULT_BUCKET_BOUNDARIES,
  METRICS_CONFIG_LIMITS,
  MetricsConfiguration,
  type MetricExposure,
} from './metrics/metrics-configuration';
export { renderMetrics } from './metrics/metrics-exposition';
export { MetricsRefresher } from './metrics/metrics-refresher';
export { OVERFLOW_LABEL_VALUE, TalliedMetrics, type TalliedSeries } from './metrics/tallied-metrics';
export { POLICY_RESULT_LABELS, type PolicyResultLabel } from './metrics/policy-result-labels';
export { gracefulClose } from './run/graceful-close';
export {
  controllerLogger,
  JsonLogger,
  LOGGING_FORMATS,
  LOGGING_TIMESTAMP_FORMATS,
  logLevels,
  type LoggingFormat,
  type LoggingSettings,
  type LoggingTimestampFormat,
} from './logging/controller-logger';
export { TracingShutdown, tracingProvider } from './tracing/tracing-provider';
export { runFromEnvironment, type Stoppable } from './run/run-from-environment';
export { serveMetricsPort, type RunningMetricsPort } from './run/metrics-port';
export {
  separateMetricsPort,
  startHttpController,
  type ControllerStartOptions,
  type HttpListen,
  type RunningHttpController,
} from './run/start-http-controller';
export { WebhookServerConfig } from './config/webhook-server-config';
export { servingCertModule } from './webhook-server/serving-cert-module';
export {
  CERT_CHECK_JOB,
  WEBHOOK_MONITOR_JOB,
  WEBHOOK_SERVER_CONFIG,
  WebhookScheduler,
} from './webhook-server/webhook-scheduler';
export { removeWebhooksIfScaledToZero } from './webhook-server/remove-webhooks';
export {
  CEL_POLICY_SOURCE,
  allCelPolicies,
  celExceptionsSignature,
  celPolicySignature,
  onCelPoliciesChange,
  type CelPolicySource,
} from './cel-policies/cel-policy-source';
export {
  VALIDATING_POLICY_DURATION,
  IMAGE_VALIDATING_POLICY_DURATION,
  IMAGE_VALIDATING_POLICY_RESULTS_TOTAL,
  VALIDATING_POLICY_LABELS,
  VALIDATING_POLICY_RESULTS_TOTAL,
  validatingPolicyStatus,
  type ValidatingPolicyLabel,
} from './metrics/validating-policy-labels';
export {
  MUTATING_POLICY_DURATION,
  MUTATING_POLICY_LABELS,
  MUTATING_POLICY_RESULTS_TOTAL,
  type MutatingPolicyLabel,
} from './metrics/mutating-policy-labels';

/**
 * Why a Kyverno name does not apply to Edict (the parity table's "not applicable, because ..."), and
 * the names work in progress will map (PENDING, the one place the parity spec tolerates a name with no
 * answer). A reason completes "not applicable, because ...".
 */
import type { ValueReason } from './parity';

export const PENDING = {
  flags: [] as string[],
  /** Chart values not built yet (and everything under them); `*Controller.` stands for each controller. */
  values: [] as string[],
  configMapKeys: [] as string[],
  metricsConfigMapKeys: [] as string[],
};

const OTEL_METRICS =
  'Edict exports metrics for Prometheus to scrape (the chart refuses metering.config grpc); it has no OTLP metrics exporter';
const GO_PROFILER = "it starts Go's pprof profiler; Edict runs on Node.js (use Node's own --inspect or --cpu-prof)";
const PAYLOAD_DUMPS = 'Edict does not write admission requests or patches to its logs (they can hold Secrets)';
const OWN_SECRETS =
  "Edict names its CA and TLS Secrets from the install name (fullnameOverride), as the chart's webhooks expect";
const FINALIZERS =
  "Edict removes its webhook configurations with the chart's pre-delete hook (webhooksCleanup), not with finalizers";
const NO_RATE_LIMIT =
  "Edict's API client has no client-side rate limiter (client-go's QPS and burst); the API server's priority and fairness limits it";

/** By flag, for every controller that has it, or `<controller>.<flag>` for one. */
export const NOT_APPLICABLE_FLAGS: Readonly<Record<string, string>> = {
  otelConfig: OTEL_METRICS,
  otelCollector: OTEL_METRICS,
  transportCreds: OTEL_METRICS,
  profile: GO_PROFILER,
  profilePort: GO_PROFILER,
  profileAddress: GO_PROFILER,
  clientRateLimitQPS: NO_RATE_LIMIT,
  clientRateLimitBurst: NO_RATE_LIMIT,
  leaderElectionRetryPeriod:
    "Edict's leader election renews its Lease on fixed timings (15 s lease, renewed every 2 s)",
  enableConfigMapCaching: 'Edict always reads ConfigMaps named by context entries through a watch-backed cache',
  enableDeferredLoading: "Edict's engine has one way of loading context entries; there is nothing to switch",
  enablePolicyException:
    'Edict honours PolicyExceptions from the namespaces EDICT_EXCEPTION_NAMESPACES names (the chart sets it from features.policyExceptions)',
  imageSignatureRepository: "Kyverno deprecated it (removed in 1.12): a rule's verifyImages `repository` sets it",
  allowInsecureRegistry:
    'Edict allows plain HTTP per registry, not for all: EDICT_INSECURE_REGISTRIES (`<controller>.settings.insecureRegistries`)',
  registryCredentialHelpers:
    "Edict reads registry credentials from Docker config Secrets only; the cloud providers' credential helpers are not built in",
  dumpPayload: PAYLOAD_DUMPS,
  dumpPatches: PAYLOAD_DUMPS,
  serverIP:
    'for running outside the cluster, Edict takes the whole webhook URL (EDICT_WEBHOOK_URL, local mode), not an address',
  autoUpdateWebhooks: 'Edict always keeps its webhook configurations in line with its policies',
  autoDeleteWebhooks: FINALIZERS,
  webhookRegistrationTimeout:
    "Edict's webhook controller retries publishing its configurations until it succeeds; it has no deadline",
  protectManagedResources:
    'Edict does not guard the resources it generates against changes by others; synchronised generate rules restore them',
  caSecretName: OWN_SECRETS,
  tlsSecretName: OWN_SECRETS,
  'admissionController.enableReporting':
    "Edict's admission controller reports what the rule types produce at admission; the background and reports controllers take the flag",
  'reportsController.admissionReports':
    "Edict's reports controller aggregates whatever admission reports exist; the admission controller's flag decides whether they are written",
  'backgroundController.maxBackgroundReports':
    "Edict's background controller writes no background scan reports (the reports controller does, under its own limit)",
  controllerRuntimeMetricsAddress: "it serves controller-runtime's Go metrics; Edict has no controller-runtime",
  reportsCRDsSanityChecks: "Edict's reports controller checks the report CRDs at start-up always",
  skipResourceFilters: "Edict's background scans skip the resource filters always (Kyverno's default)",
  ttlReconciliationInterval:
    "Edict's TTL controller deletes each labelled resource when its time comes, not on a reconciliation interval",
};

const NOT_IN_NODE = "it configures Kyverno's Go runtime";
const ONE_IMAGE = "Edict's controllers need no init container: the one image starts each controller directly";

export const NOT_APPLICABLE_VALUES: Readonly<Record<string, ValueReason>> = {
  'openreports.installCrds': {
    reason: "Edict's chart installs the openreports.io CRDs with its own CRDs (crds.install)",
    allowed: true,
  },
  nameOverride: { reason: 'names derive from the install name alone (fullnameOverride or the release name)' },
  'upgrade.fromV2': { reason: "there is no v2 of Edict's chart to upgrade from" },
  'apiVersionOverride.podDisruptionBudget': {
    reason: 'Edict needs Kubernetes 1.25 or later, where policy/v1 always exists',
  },
  'rbac.roles.aggregate': {
    reason:
      "Edict's chart does not aggregate roles into Kubernetes' admin and view roles (grant access to policies yourself)",
  },
  test: { reason: "Edict's chart ships no `helm test` Pod: its specs check the chart (docs/helm.md)" },
  'config.preserve': {
    reason: 'the chart writes the ConfigMap from the values on every upgrade; change the values, not the ConfigMap',
    allowed: false,
  },
  'crds.reportsServer': {
    reason: 'Edict has no reports-server: reports are stored as Kubernetes objects',
    allowed: { enabled: false },
  },
  'crds.migration': {
    reason: "Edict's CRDs need no storage migration: the chart upgrades them in place (each stores one version)",
  },
  'features.autoUpdateWebhooks': {
    reason: 'Edict always keeps its webhook configurations in line with its policies',
    allowed: { enabled: true },
  },
  'features.backgroundScan.skipResourceFilters': {
    reason: "Edict's background scans skip the resource filters always (Kyverno's default)",
    allowed: true,
  },
  'features.configMapCaching': {
    reason: 'Edict always reads ConfigMaps through a watch-backed cache',
    allowed: { enabled: true },
  },
  'features.deferredLoading': {
    reason: "Edict's engine has one way of loading context entries",
    allowed: { enabled: true },
  },
  'features.controllerRuntimeMetrics': {
    reason: "it serves controller-runtime's Go metrics; Edict has no controller-runtime",
  },
  'features.dumpPayload': { reason: PAYLOAD_DUMPS, allowed: { enabled: false } },
  'features.dumpPatches': { reason: PAYLOAD_DUMPS, allowed: { enabled: false } },
  'features.protectManagedResources': {
    reason: 'Edict does not guard the resources it generates against changes by others',
    allowed: { enabled: false },
  },
  'features.registryClient.allowInsecure': {
    reason: 'Edict allows plain HTTP per registry: `<controller>.settings.insecureRegistries`',
    allowed: false,
  },
  'features.registryClient.credentialHelpers': {
    reason:
      'Edict reads registry credentials from Docker config Secrets only; cloud credential helpers are not built in',
  },
  'features.ttlController': {
    reason:
      "Edict's TTL controller deletes each labelled resource when its time comes, not on a reconciliation interval",
  },
  'global.resyncPeriod': { reason: NOT_IN_NODE },
  'global.crdWatcher': { reason: 'Edict watches CustomResourceDefinitions always' },
  'global.caCertificates': {
    reason:
      'Edict trusts the CA certificates of its image (Node.js bundled roots); extra roots for registries are not supported',
  },
  'webhooksCleanup.autoDeleteWebhooks': { reason: FINALIZERS, allowed: { enabled: false } },
  'webhooksCleanup.podSecurityContext': {
    reason: "the hook's Pod runs as non-root with the runtime's seccomp profile, fixed",
  },
  'webhooksCleanup.securityContext': {
    reason: "the hook's containers run read-only, unprivileged, all capabilities dropped, fixed",
  },
  'webhooksCleanup.nodeSelector': { reason: "the hook's Pod is not placed by the chart (it runs once, for seconds)" },
  'webhooksCleanup.tolerations': { reason: "the hook's Pod is not placed by the chart (it runs once, for seconds)" },
  'webhooksCleanup.podAntiAffinity': {
    reason: "the hook's Pod is not placed by the chart (it runs once, for seconds)",
  },
  'webhooksCleanup.podAffinity': { reason: "the hook's Pod is not placed by the chart (it runs once, for seconds)" },
  'webhooksCleanup.nodeAffinity': { reason: "the hook's Pod is not placed by the chart (it runs once, for seconds)" },
  'webhooksCleanup.podLabels': { reason: "the hook's Pod carries the chart's labels only" },
  'webhooksCleanup.podAnnotations': { reason: "the hook's Pod carries no annotations" },
  'webhooksCleanup.serviceAccount': { reason: "the hook's ServiceAccount token is mounted always: kubectl needs it" },
  '*Controller.featuresOverride': {
    reason: 'every controller takes the same `features`; a controller differs through `<controller>.settings` instead',
  },
  '*Controller.resyncPeriod': { reason: NOT_IN_NODE },
  '*Controller.crdWatcher': { reason: 'Edict watches CustomResourceDefinitions always' },
  '*Controller.autoscaling': {
    reason: "Edict's chart renders no HorizontalPodAutoscaler: set replicas (admission replicas serve in parallel)",
  },
  '*Controller.createSelfSignedCert': {
    reason: 'Edict issues and renews its own CA and serving certificate; Helm-made certificates would not be renewed',
    allowed: false,
  },
  '*Controller.apiPriorityAndFairness': {
    reason: "Edict's chart renders no FlowSchema or PriorityLevelConfiguration",
    allowed: false,
  },
  '*Controller.priorityLevelConfigurationSpec': { reason: "Edict's chart renders no PriorityLevelConfiguration" },
  '*Controller.tufRootMountPath': {
    reason: 'Edict keeps its TUF cache in memory and under /tmp; there is no volume to mount',
  },
  '*Controller.sigstoreVolume': {
    reason: 'Edict keeps its TUF cache in memory and under /tmp; there is no volume to mount',
  },
  '*Controller.caCertificates': {
    reason:
      'Edict trusts the CA certificates of its image (Node.js bundled roots); extra roots for registries are not supported',
  },
  '*Controller.initContainer': { reason: ONE_IMAGE },
  '*Controller.extraInitContainers': { reason: ONE_IMAGE },
  '*Controller.extraContainers': { reason: "Edict's chart runs one container per controller Pod" },
  '*Controller.sanityChecks': {
    reason: "Edict's reports controller checks the report CRDs at start-up always",
    allowed: true,
  },
  '*Controller.profiling': { reason: GO_PROFILER, allowed: { enabled: false } },
  '*Controller.rbac.coreClusterRole': {
    reason:
      "each controller's core rules come from files/rbac in the chart; add rules with rbac.clusterRole.extraResources",
  },
  '*Controller.rbac.createViewRoleBinding': {
    reason:
      "Edict binds Kubernetes' view role (rbac.viewRoleName) to the controllers that read cluster objects, always",
    allowed: true,
  },
  '*Controller.rbac.viewRoleName': {
    reason: 'the view role is one for all controllers: the top-level rbac.viewRoleName',
  },
};

export const NOT_APPLICABLE_CONFIGMAP_KEYS: Readonly<Record<string, string>> = {};

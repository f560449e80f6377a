/**
 * Local mode: the whole suite on this machine, without a cluster. In order:
 *  1. the in-memory API server on https://127.0.0.1 (a fresh cluster CA), with Edict's CRDs and the
 *     controller's namespace, and access reviews answered by RBAC;
 *  2. the admission controller in this process, its Service (`<namespace>/<service>`) mapped to its
 *     local HTTPS port, so the API server calls it as kube-apiserver would call the Service;
 *  3. once its policy validation webhook is published, the example policies, created through the
 *     API server so that an invalid one is rejected as in a cluster;
 *  4. the background controller (generate and mutate-existing rules) and the reports controller
 *     (PolicyReports), in this process;
 *  5. once the admission controller has the examples and published its webhooks for them, the
 *     kubeconfig (and the CA, for HTTPS clients) is written: kubectl sees a cluster that already
 *     enforces the examples. Just before, the cleanup controller (cleanup policies, the TTL label)
 *     starts, its Service mapped to its local HTTPS port, and publishes its cleanup policy webhook.
 *     A kubeconfig left by a run that crashed is removed as soon as the API server has its port, and
 *     the one written here is removed when the cluster stops (kubeconfig-files.ts).
 * Each controller acts as its own service account with the RBAC the Helm chart grants it, from the
 * chart's own rule files (controller-rbac.ts): what a policy generates, mutates or cleans beyond
 * that needs an aggregated ClusterRole, as in a cluster.
 */
import type { LoggerService, LogLevel } from '@nestjs/common';
import {
  createClusterCa,
  DEFAULT_USER,
  InMemoryApiServer,
  kubeconfigFor,
  type ApiServerSettings,
  type ClusterCa,
} from '@edict/apiserver';
import { runControllerManager, type RunningControllerManager } from '@edict/controller-manager';
import type { JsonObject } from '@edict/foundation';
import { KubeResources } from '@edict/kube';
import { installPolicyCrds, PolicyCache } from '@edict/policy';
import {
  loadControllerConfig,
  startController,
  type ControllerConfig,
  type RunningController,
} from '@edict/admission-controller';
import { loadBackgroundConfig, startBackgroundController, type BackgroundConfig } from '@edict/background-controller';
import type { RunningHttpController } from '@edict/controller-runtime';
import { loadCleanupConfig, startCleanupController, type CleanupConfig } from '@edict/cleanup-controller';
import { loadReportsConfig, startReportsController, type ReportsConfig } from '@edict/reports-controller';
import { explainListenError, LauncherError } from '../launcher-error';
import {
  CONTROLLER_COMPONENTS,
  controllerRbac,
  controllerServiceAccount,
  type ControllerComponent,
} from './controller-rbac';
import { readExamplePolicies, type ExamplePolicy } from './example-policies';
import { KubeconfigFiles } from './kubeconfig-files';
import { policiesLoaded, policyValidationPublished, webhooksPublished } from './webhooks-ready';

export const LOCAL_HOST = '127.0.0.1';

export interface LocalClusterOptions {
  /** The API server's port (0: any free one). */
  readonly apiPort: number;
  /** Where the kubeconfig is written; the CA goes beside it as `ca.crt`. */
  readonly kubeconfigPath: string;
  /** Policies to install once the controller is up; none when absent (the e2e suite brings its own). */
  readonly examplesDir?: string;
  /** Objects an installation brings besides the controller (its ConfigMap...), created before it starts. */
  readonly preinstalled?: readonly JsonObject[];
  /** The controller's configuration comes from `env` (EDICT_WEBHOOK_PORT, ...) with these on top. */
  readonly env?: NodeJS.ProcessEnv;
  readonly controller?: Partial<ControllerConfig>;
  /** The background controller's configuration: from `env`, with these on top. */
  readonly background?: Partial<BackgroundConfig>;
  /** The reports controller's configuration: from `env`, with these on top. */
  readonly reports?: Partial<ReportsConfig>;
  /** The cleanup controller's configuration: from `env`, with these on top. */
  readonly cleanup?: Partial<CleanupConfig>;
  readonly logger?: LoggerService | LogLevel[] | false;
  /** Records the API server's requests from its start (`apiServer.requests`), for specs of what the controllers call. */
  readonly recordRequests?: boolean;
  /** The API server's Kubernetes version, runtime config and feature gates (a kind cluster configuration's). */
  readonly apiServer?: ApiServerSettings;
  /** How long each wait for the controller (webhooks published, policies loaded) may take. */
  readonly readyTimeoutMs?: number;
}

export interface RejectedPolicy {
  readonly policy: ExamplePolicy;
  readonly message: string;
}

export interface LocalCluster {
  readonly apiServer: InMemoryApiServer;
  /** The garbage collector and controllers running against the API server (`settled()` waits for them). */
  readonly controllerManager: RunningControllerManager;
  readonly apiUrl: string;
  readonly controller: RunningController;
  readonly config: ControllerConfig;
  readonly background: RunningHttpController;
  readonly reports: RunningHttpController;
  readonly cleanup: RunningHttpController;
  /** The cleanup controller's Service (`<namespace>/<service>`), mapped to its local HTTPS port. */
  readonly cleanupService: string;
  readonly kubeconfigPath: string;
  readonly caPath: string;
  /** The kubeconfig and CA files of an earlier run that were removed at start (it had not stopped). */
  readonly staleFilesRemoved: readonly string[];
  readonly installed: readonly ExamplePolicy[];
  readonly rejected: readonly RejectedPolicy[];
  /**
   * Removes the kubeconfig and CA this run wrote, then stops the controllers (gracefully, the
   * admission controller last) and the API server. Safe to call twice.
   */
  stop(): Promise<void>;
  /** Removes the kubeconfig and CA this run wrote, synchronously (for process exit). */
  removeKubeconfig(): void;
}

export async function startLocalCluster(options: LocalClusterOptions): Promise<LocalCluster> {
  const readyTimeoutMs = options.readyTimeoutMs ?? 60_000;
  const examples = options.examplesDir ? readExamplePolicies(options.examplesDir) : [];
  const endpoints: Record<string, string> = {};
  // As in a cluster: HTTPS with a cluster CA (client certificates from approved CSRs authenticate),
  // Deployments roll out (ReplicaSets, Pending Pods, status), Pods run as a service account and
  // mount its token, and access reviews are answered by RBAC (CEL authorizer checks and apiCalls ask
  // them).
  const ca = await createClusterCa();
  const apiServer = new InMemoryApiServer({
    serviceEndpoints: endpoints,
    serviceAccountAdmission: true,
    authorization: { mode: 'RBAC' },
    ca,
    ...(options.apiServer ? { settings: options.apiServer } : {}),
  });
  // kube-controller-manager next to it: the garbage collector and the controllers.
  const controllerManager = runControllerManager(apiServer, { controllers: true });
  if (options.recordRequests) apiServer.requests.start();
  const { url: apiUrl } = await apiServer.start({ host: LOCAL_HOST, port: options.apiPort }).catch((error: unknown) => {
    throw explainListenError(error, 'API server', LOCAL_HOST, options.apiPort, 'EDICT_API_PORT');
  });
  // The port is ours, so a kubeconfig there is from a run that crashed (or one this run replaces anyway).
  const files = new KubeconfigFiles(options.kubeconfigPath);
  let staleFilesRemoved: string[] = [];
  let controller: RunningController | undefined;
  let background: RunningHttpController | undefined;
  let reports: RunningHttpController | undefined;
  let cleanup: RunningHttpController | undefined;
  try {
    staleFilesRemoved = files.removeStale();
    // The admin's own certificate, as kubeadm's admin.conf holds (the server's default user).
    const admin = await ca.client({ username: DEFAULT_USER.username, groups: DEFAULT_USER.groups ?? [] });
    const kubeconfig = kubeconfigFor({ server: apiUrl, certificateAuthority: ca.certificatePem, client: admin });
    const backgroundConfig = await localBackgroundConfig(options, apiUrl, ca);
    const reportsConfig = await localReportsConfig(options, apiUrl, ca);
    const cleanupConfig = await localCleanupConfig(options, apiUrl, ca);
    const config = await localControllerConfig(
      options,
      apiUrl,
      ca,
      serviceAccountUsername(backgroundConfig, BACKGROUND),
      serviceAccountUsername(reportsConfig, REPORTS),
    );
    installPolicyCrds(apiServer);
    ensureNamespace(apiServer, config.namespace);
    for (const component of CONTROLLER_COMPONENTS) {
      for (const object of controllerRbac({ installName: config.installName, namespace: config.namespace, component }))
        apiServer.create(object);
    }
    for (const object of options.preinstalled ?? []) apiServer.create(object);
    controller = await startController(config, { logger: options.logger ?? ['warn', 'error'] }).catch(
      (error: unknown) => {
        throw explainListenError(error, 'admission controller', config.host, config.port, 'EDICT_WEBHOOK_PORT');
      },
    );
    endpoints[`${config.namespace}/${config.serviceName}`] = `https://${LOCAL_HOST}:${controller.port}`;
    background = await startBackgroundController(backgroundConfig, {
      logger: options.logger ?? ['warn', 'error'],
    });
    reports = await startReportsController(reportsConfig, { logger: options.logger ?? ['warn', 'error'] });

    await controller.app.get(PolicyCache, { strict: false }).waitForSync(readyTimeoutMs);
    await webhooksPublished(controller, readyTimeoutMs);
    if (!policyValidationPublished(apiServer)) {
      throw new LauncherError('the admission controller published no policy validation webhook');
    }
    // A namespaced example Policy needs its namespace (`default` when it names none).
    const namespaced = examples.filter(({ object }) => object.kind === 'Policy');
    for (const { object } of namespaced) ensureNamespace(apiServer, (object.metadata.namespace ??= 'default'));
    const { installed, rejected } = await installExamples(
      controller.app.get(KubeResources, { strict: false }),
      examples,
    );
    await policiesLoaded(controller, installed.map(keyOf), readyTimeoutMs);
    await webhooksPublished(controller, readyTimeoutMs);
    // Last: its start-up (discovery, access reviews, a watch per type it may clean) does not slow
    // the admission controller's own.
    cleanup = await startCleanupController(cleanupConfig, { logger: options.logger ?? ['warn', 'error'] });
    endpoints[`${cleanupConfig.namespace}/${cleanupConfig.serviceName}`] = `https://${LOCAL_HOST}:${cleanup.port}`;
    await webhooksPublished(cleanup, readyTimeoutMs, 'the cleanup controller');

    files.write(kubeconfig, controller.caBundlePem());

    const running = controller;
    const runningBackground = background;
    const runningReports = reports;
    const runningCleanup = cleanup;
    let stopping: Promise<void> | undefined;
    return {
      apiServer,
      apiUrl,
      controller: running,
      config,
      controllerManager,
      background: runningBackground,
      reports: runningReports,
      cleanup: runningCleanup,
      cleanupService: `${cleanupConfig.namespace}/${cleanupConfig.serviceName}`,
      kubeconfigPath: files.kubeconfigPath,
      caPath: files.caPath,
      staleFilesRemoved,
      installed,
      rejected,
      removeKubeconfig: () => files.remove(),
      stop: () =>
        (stopping ??= Promise.resolve()
          .then(() => files.remove())
          // Everything stops even if the files cannot be removed; that error is then stop()'s.
          .finally(() => runningCleanup.stop())
          .finally(() => runningReports.stop())
          .finally(() => runningBackground.stop())
          .finally(() => running.stop())
          .finally(() => controllerManager.stop())
          .finally(() => apiServer.stop())),
    };
  } catch (error) {
    try {
      files.remove();
    } catch {
      // the start's own error is the one to report
    }
    await cleanup?.stop().catch(() => undefined);
    await reports?.stop().catch(() => undefined);
    await background?.stop().catch(() => undefined);
    await controller?.stop().catch(() => undefined);
    await controllerManager.stop();
    await apiServer.stop();
    throw error;
  }
}

/**
 * The controller's configuration for local mode: the environment's, pointed at the in-memory API
 * server as its own service account and serving on 127.0.0.1, with a certificate also valid for 127.0.0.1 and localhost (the
 * Swagger UI and curl) and the admin endpoints on. Nothing to drain for on shutdown (no endpoints), and no webhook URL: the API
 * server reaches the controller through its Service, as in a cluster.
 */
async function localControllerConfig(
  options: LocalClusterOptions,
  apiUrl: string,
  ca: ClusterCa,
  backgroundUsername: string,
  reportsUsername: string,
): Promise<ControllerConfig> {
  const { KUBECONFIG: _ignored, ...env } = options.env ?? process.env;
  const fromEnv = loadControllerConfig(env, options.controller);
  const { kubeconfig } = await localConnection(apiUrl, ca, fromEnv, ADMISSION);
  return loadControllerConfig(env, {
    shutdownDelayMs: 0,
    // A laptop's cluster: the admin endpoints the guide shows are on unless the environment says no.
    adminEndpoints: env['EDICT_ADMIN_ENDPOINTS'] === undefined ? true : fromEnv.adminEndpoints,
    // The background controller's own writes trigger no rule with skipBackgroundRequests, as in Kyverno.
    backgroundUsername,
    // RBACPermissionsGranted of ValidatingPolicies asks about the reports controller's account.
    reportsUsername,
    ...options.controller,
    kubeSource: 'kubeconfig',
    kubeconfig,
    kubeconfigPath: undefined,
    webhookUrl: undefined,
    host: LOCAL_HOST,
    extraDnsNames: union(fromEnv.extraDnsNames, ['localhost']),
    ipAddresses: union(fromEnv.ipAddresses, [LOCAL_HOST]),
  });
}

/** The controllers' service accounts, as the chart names them (`<install>-<component>`). */
const ADMISSION = 'admission-controller';
const BACKGROUND = 'background-controller';
const REPORTS = 'reports-controller';
const CLEANUP = 'cleanup-controller';

/**
 * The background controller's configuration for local mode: the environment's, pointed at the
 * in-memory API server as its own service account, health and metrics on any free local port.
 */
async function localBackgroundConfig(
  options: LocalClusterOptions,
  apiUrl: string,
  ca: ClusterCa,
): Promise<BackgroundConfig> {
  const { KUBECONFIG: _ignored, ...env } = options.env ?? process.env;
  const names = loadBackgroundConfig(env, options.background);
  return loadBackgroundConfig(env, {
    ...options.background,
    ...(await localConnection(apiUrl, ca, names, BACKGROUND)),
  });
}

/** The reports controller's configuration for local mode, as the background controller's. */
async function localReportsConfig(options: LocalClusterOptions, apiUrl: string, ca: ClusterCa): Promise<ReportsConfig> {
  const { KUBECONFIG: _ignored, ...env } = options.env ?? process.env;
  const names = loadReportsConfig(env, options.reports);
  return loadReportsConfig(env, { ...options.reports, ...(await localConnection(apiUrl, ca, names, REPORTS)) });
}

/** The cleanup controller's configuration for local mode, as the background controller's. */
async function localCleanupConfig(options: LocalClusterOptions, apiUrl: string, ca: ClusterCa): Promise<CleanupConfig> {
  const { KUBECONFIG: _ignored, ...env } = options.env ?? process.env;
  const names = loadCleanupConfig(env, options.cleanup);
  return loadCleanupConfig(env, { ...options.cleanup, ...(await localConnection(apiUrl, ca, names, CLEANUP)) });
}

/**
 * A controller's connection in local mode: a kubeconfig with a certificate naming its
 * ServiceAccount (whose username and groups the API server then sees), health on any free local port.
 */
async function localConnection(apiUrl: string, ca: ClusterCa, names: InstallScope, account: ControllerComponent) {
  const client = await ca.client({
    username: serviceAccountUsername(names, account),
    groups: ['system:serviceaccounts', `system:serviceaccounts:${names.namespace}`],
  });
  return {
    kubeSource: 'kubeconfig' as const,
    kubeconfig: kubeconfigFor({ server: apiUrl, certificateAuthority: ca.certificatePem, client }),
    kubeconfigPath: undefined,
    host: LOCAL_HOST,
    port: 0,
  };
}

interface InstallScope {
  readonly namespace: string;
  readonly installName: string;
}

/** `system:serviceaccount:<namespace>:<install>-<component>`, as the chart names it. */
function serviceAccountUsername(names: InstallScope, component: ControllerComponent): string {
  return `system:serviceaccount:${names.namespace}:${controllerServiceAccount(names.installName, component)}`;
}

/** Creates each example policy through the API server; the ones its admission refuses are returned with the reason. */
async function installExamples(
  resources: KubeResources,
  examples: readonly ExamplePolicy[],
): Promise<{ installed: ExamplePolicy[]; rejected: RejectedPolicy[] }> {
  const installed: ExamplePolicy[] = [];
  const rejected: RejectedPolicy[] = [];
  for (const policy of examples) {
    try {
      await resources.create(policy.object);
      installed.push(policy);
    } catch (error) {
      const code = (error as { code?: unknown }).code;
      if (code === 409) installed.push(policy);
      else if (typeof code === 'number' && code >= 400 && code < 500) {
        rejected.push({ policy, message: (error as Error).message });
      } else throw error;
    }
  }
  return { installed, rejected };
}

/** The policy cache's key: `name` for a ClusterPolicy, `namespace/name` for a Policy. */
function keyOf({ object }: ExamplePolicy): string {
  return object.kind === 'Policy' ? `${object.metadata.namespace}/${object.metadata.name}` : object.metadata.name;
}

function ensureNamespace(apiServer: InMemoryApiServer, name: string): void {
  if (!apiServer.get('v1', 'Namespace', name)) {
    apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
  }
}

function union(values: readonly string[], extra: readonly string[]): string[] {
  return [...new Set([...values, ...extra])];
}

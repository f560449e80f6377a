/**
 * End-to-end harness: an in-memory API server with Edict's CRDs and the install's namespace, the
 * Services of webhook servers mapped to their local HTTPS ports, and clients for a test to act as a
 * user. Every controller's e2e specs start a cluster this way; each app's testing entry starts its
 * controller against it (the admission controller's `startE2eCluster` adds its replicas).
 */
import { request as httpsRequest } from 'node:https';
import { CoreV1Api, CustomObjectsApi, KubeConfig } from '@kubernetes/client-node';
import { createClusterCa, DEFAULT_USER, InMemoryApiServer, kubeconfigFor, type ClusterCa } from '@edict/apiserver';
import { runControllerManager } from '@edict/controller-manager';
import { DEFAULT_INSTALL_NAME, installNames, type InstallNames } from '@edict/config';
import type { PolicyCache } from '@edict/policy';
import { installPolicyCrds } from '@edict/policy/testing';
import { eventually } from '@edict/kube/testing';

/** The default install's names (EDICT_INSTALL_NAME unset). */
export const E2E_NAMESPACE = installNames(DEFAULT_INSTALL_NAME).namespace;
export const E2E_SERVICE = installNames(DEFAULT_INSTALL_NAME).service;
/** The name the API server checks the serving certificate against. */
export const E2E_SERVER_NAME = `${E2E_SERVICE}.${E2E_NAMESPACE}.svc`;

export interface TestCluster {
  readonly apiServer: InMemoryApiServer;
  readonly kubeconfig: string;
  readonly core: CoreV1Api;
  readonly custom: CustomObjectsApi;
  /** The names the controllers install under (the cluster's `installName`). */
  readonly names: InstallNames;
  /** With `rbac`: a kubeconfig acting as `username` in `groups` (a ServiceAccount's), by client certificate. */
  kubeconfigAs(username: string, groups: readonly string[]): Promise<string>;
  /** Routes the Service `<namespace>/<name>` to a local HTTPS port, as kube-proxy would (a controller's webhook). */
  routeService(namespace: string, name: string, port: number): void;
  /** A policy cache createClusterPolicy and deleteClusterPolicy wait for (a started replica's). */
  trackPolicyCache(cache: PolicyCache): void;
  /** Creates a ClusterPolicy and waits until every tracked cache has it. */
  createClusterPolicy(policy: { metadata: { name: string } }): Promise<void>;
  deleteClusterPolicy(name: string): Promise<void>;
  /** Runs `stopping` first (the controllers started against it), then stops the API server. */
  onStop(stopping: () => Promise<void>): void;
  stop(): Promise<void>;
}

export interface TestClusterOptions {
  /** The controllers' install name (default `edict`); its namespace is created. */
  readonly installName?: string;
  /**
   * RBAC authorizes requests and answers access reviews (default: everything allowed); the API
   * server then serves HTTPS with a cluster CA, so that a client can act as any user (kubeconfigAs).
   */
  readonly rbac?: boolean;
}

export async function startTestCluster(options: TestClusterOptions = {}): Promise<TestCluster> {
  const names = installNames(options.installName ?? DEFAULT_INSTALL_NAME);
  const endpoints: Record<string, string> = {};
  const ca: ClusterCa | undefined = options.rbac ? await createClusterCa() : undefined;
  const apiServer = new InMemoryApiServer({
    bookmarkIntervalMs: 200,
    serviceEndpoints: endpoints,
    ...(ca ? { authorization: { mode: 'RBAC' as const }, ca } : {}),
  });
  // The garbage collector, as a cluster runs it next to its API server.
  const controllerManager = runControllerManager(apiServer);
  const { url } = await apiServer.start({ host: '127.0.0.1', port: 0 });
  installPolicyCrds(apiServer);
  apiServer.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name: names.namespace } });
  const kubeconfigAs = async (username: string, groups: readonly string[]) => {
    if (!ca) throw new Error('kubeconfigAs needs a cluster started with rbac');
    return kubeconfigFor({
      server: url,
      certificateAuthority: ca.certificatePem,
      client: await ca.client({ username, groups }),
    });
  };
  const kubeconfig = ca
    ? await kubeconfigAs(DEFAULT_USER.username, DEFAULT_USER.groups ?? [])
    : kubeconfigFor({ server: url });
  const clients = new KubeConfig();
  clients.loadFromString(kubeconfig);
  const core = clients.makeApiClient(CoreV1Api);
  const custom = clients.makeApiClient(CustomObjectsApi);
  const caches: PolicyCache[] = [];
  const stopping: Array<() => Promise<void>> = [];

  return {
    apiServer,
    kubeconfig,
    core,
    custom,
    names,
    kubeconfigAs,
    routeService(namespace, name, port) {
      endpoints[`${namespace}/${name}`] = `https://127.0.0.1:${port}`;
    },
    trackPolicyCache(cache) {
      caches.push(cache);
    },
    async createClusterPolicy(policy) {
      await custom.createClusterCustomObject({
        group: 'kyverno.io',
        version: 'v1',
        plural: 'clusterpolicies',
        body: policy,
      });
      const name = policy.metadata.name;
      await eventually(
        () => caches.every((cache) => cache.policies().some((p) => p.name === name)),
        `policy ${name} in every cache`,
      );
    },
    async deleteClusterPolicy(name) {
      await custom.deleteClusterCustomObject({ group: 'kyverno.io', version: 'v1', plural: 'clusterpolicies', name });
      await eventually(
        () => caches.every((cache) => !cache.policies().some((p) => p.name === name)),
        `policy ${name} gone from every cache`,
      );
    },
    onStop(stop) {
      stopping.push(stop);
    },
    async stop() {
      await Promise.all(stopping.map((stop) => stop().catch(() => undefined)));
      await controllerManager.stop();
      await apiServer.stop();
    },
  };
}

/** A ClusterPolicy object. */
export function clusterPolicy(name: string, spec: Record<string, unknown>) {
  return { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', metadata: { name }, spec };
}

/** A ClusterPolicy requiring `label` on Pods, enforced or audited. */
export function requireLabelPolicy(action: 'Enforce' | 'Audit', name: string, label: string) {
  return clusterPolicy(name, {
    validationFailureAction: action,
    background: false,
    rules: [
      {
        name: `check-${label}`,
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        validate: { message: `label '${label}' is required`, pattern: { metadata: { labels: { [label]: '?*' } } } },
      },
    ],
  });
}

export function testPod(name: string, labels: Record<string, string> = {}, namespace = 'default') {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name, namespace, labels },
    spec: { containers: [{ name: 'app', image: 'nginx:1.27' }] },
  };
}

/** The API error's message (client-node puts the Status body in `body`). */
export function apiErrorMessage(error: unknown): string {
  const body = (error as { body?: unknown }).body;
  const parsed = typeof body === 'string' ? (JSON.parse(body) as { message?: string }) : (body as { message?: string });
  return parsed?.message ?? String(error);
}

export interface HttpsAnswer {
  status: number;
  body: string;
}

/** One HTTPS call to a replica, trusting only `ca` and checking the Service's name. */
export function httpsCall(
  port: number,
  ca: string,
  path: string,
  options: { method?: string; payload?: Buffer } = {},
): Promise<HttpsAnswer> {
  const headers = options.payload
    ? { 'content-type': 'application/json', 'content-length': options.payload.length }
    : undefined;
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: options.method ?? (options.payload ? 'POST' : 'GET'),
        ca,
        servername: E2E_SERVER_NAME,
        agent: false,
        ...(headers ? { headers } : {}),
      },
      (response) => {
        let body = '';
        response.on('data', (chunk) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(options.payload);
  });
}

/** POSTs `body` as JSON and parses the answer. */
export async function postJson<T = unknown>(
  port: number,
  ca: string,
  path: string,
  body: unknown,
): Promise<{ status: number; body: T }> {
  const answer = await httpsCall(port, ca, path, { payload: Buffer.from(JSON.stringify(body)) });
  return { status: answer.status, body: JSON.parse(answer.body) as T };
}

export type WebhookConfigurationKind = 'ValidatingWebhookConfiguration' | 'MutatingWebhookConfiguration';

interface PublishedWebhook {
  name: string;
  clientConfig?: { caBundle?: string };
  rules?: Array<{ operations?: string[]; resources?: string[] }>;
}

/** The webhook `name` of any stored configuration of `kind` (undefined when none has it). */
export function publishedWebhook(
  apiServer: InMemoryApiServer,
  kind: WebhookConfigurationKind,
  name: string,
): PublishedWebhook | undefined {
  for (const configuration of apiServer.list('admissionregistration.k8s.io/v1', kind)) {
    const webhooks = (configuration.webhooks ?? []) as unknown as PublishedWebhook[];
    const found = webhooks.find((webhook) => webhook.name === name);
    if (found) return found;
  }
  return undefined;
}

/**
 * Waits until the controller has published the webhook `name` (e.g. `validate.edict.svc-fail`)
 * and, when `resource` is given, routes that resource (e.g. `pods`) to it.
 */
export async function waitForWebhook(
  apiServer: InMemoryApiServer,
  kind: WebhookConfigurationKind,
  name: string,
  resource?: string,
  timeoutMs = 10_000,
): Promise<void> {
  await eventually(
    () => {
      const webhook = publishedWebhook(apiServer, kind, name);
      if (!webhook) return false;
      return (
        resource === undefined ||
        (webhook.rules ?? []).some((rule) => (rule.resources ?? []).some((r) => r === resource || r === '*'))
      );
    },
    `webhook ${name}${resource ? ` for ${resource}` : ''} published`,
    timeoutMs,
  );
}

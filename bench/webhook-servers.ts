/**
 * The three processes of the webhook benchmark, each run as a child of the bench:
 *  - `cluster`: the in-memory API server with Edict's CRDs and the 17 PSS ClusterPolicies;
 *  - `controller`: the real admission controller (`startController`) against that API server;
 *  - `bare`: a bare Fastify HTTPS endpoint answering any review `allowed: true`, with the
 *    controller's own key and certificate and the same server defaults.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import fastify from 'fastify';
import { parseAllDocuments } from 'yaml';
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';
import { runControllerManager } from '@edict/controller-manager';
import { TlsMaterial } from '@edict/cert';
import type { JsonObject } from '@edict/foundation';
import { PolicyCache, readCrdManifests } from '@edict/policy';
import { loadControllerConfig, ReviewWorkers, reviewWorkerCount, startController } from '@edict/admission-controller';
import type { ChildRoleRunner } from './child-process';
import { sharedDir } from './shared-dir';

export const BENCH_NAMESPACE = 'edict';
export const BENCH_SERVICE = 'edict-svc';
/** The name in the serving certificate that clients check. */
export const BENCH_SERVER_NAME = `${BENCH_SERVICE}.${BENCH_NAMESPACE}.svc`;
/** The controller's audit queue in the bench (default 1000): large enough that no review's audit is dropped. */
export const AUDIT_QUEUE_SIZE = 1_000_000;
/** The fixture review's namespace, created so namespace lookups find it as they would in a cluster. */
const REVIEW_NAMESPACE = 'shop';

/** The cluster's input: whether it holds the 17 PSS policies (without them, no policy applies to a review). */
export interface ClusterInput {
  policies: boolean;
}

export interface ClusterReport {
  url: string;
  policies: string[];
}

/**
 * The controller's input: the cluster, its review workers (EDICT_WEBHOOK_WORKERS: a count or
 * `auto`) and whether it writes admission reports (EDICT_ADMISSION_REPORTS).
 */
export interface ControllerInput extends ClusterReport {
  webhookWorkers: string;
  admissionReports: boolean;
}

export interface ControllerReport {
  port: number;
  /** Review worker threads up (0: reviews evaluated on the main thread). */
  reviewWorkers: number;
  admissionReports: boolean;
  /** Valid policies in the controller's cache, and those it picks for a Pod CREATE on /validate/fail. */
  cachedPolicies: string[];
  invalidPolicies: string[];
  podCreatePolicies: number;
  maxBodyBytes: number;
  keyPem: string;
  certChainPem: string;
  caBundlePem: string;
}

export interface BareReport {
  port: number;
}

/** The 17 PSS policy documents of ../shared/bench/pss, as objects to create. */
export function pssPolicyObjects(): JsonObject[] {
  const dir = join(sharedDir(), 'bench', 'pss');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .sort()
    .flatMap((file) =>
      parseAllDocuments(readFileSync(join(dir, file), 'utf8'))
        .map((document) => document.toJS() as JsonObject | null)
        .filter((value): value is JsonObject => value?.kind === 'ClusterPolicy'),
    );
}

const cluster: ChildRoleRunner = {
  async start(input) {
    const { policies: withPolicies } = input as ClusterInput;
    const server = new InMemoryApiServer();
    // The garbage collector runs next to the API server, as in a cluster (it lives as long as the store).
    runControllerManager(server);
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    for (const crd of readCrdManifests()) server.create(crd);
    for (const name of [BENCH_NAMESPACE, REVIEW_NAMESPACE])
      server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    const objects = withPolicies ? pssPolicyObjects() : [];
    const policies = objects.map((policy) => (server.create(policy).metadata as JsonObject).name as string);
    const report: ClusterReport = { url, policies };
    const commands = {
      /** Records the requests answered from now on (the metrics suite counts namespace reads). */
      recordRequests: async () => server.requests.start(),
      /** GETs of single namespaces recorded, excluding `known` (the metrics suite's made-up ones). */
      namespaceReads: async (known: unknown) =>
        server.requests
          .requests({ method: 'GET', pathPrefix: '/api/v1/namespaces/' })
          .filter((entry) => /^\/api\/v1\/namespaces\/[^/]+$/.test(entry.path))
          .filter((entry) => !(known as string[]).includes(entry.path.split('/').pop()!)).length,
    };
    return { report, stop: () => server.stop(), commands };
  },
};

const controller: ChildRoleRunner = {
  async start(input) {
    const { url, policies, webhookWorkers, admissionReports } = input as ControllerInput;
    const config = loadControllerConfig(
      {},
      {
        kubeSource: 'kubeconfig',
        kubeconfig: kubeconfigFor({ server: url }),
        namespace: BENCH_NAMESPACE,
        serviceName: BENCH_SERVICE,
        host: '127.0.0.1',
        port: 0,
        shutdownDelayMs: 0,
        tlsReadyTimeoutMs: 30_000,
        // Room for every review's audit work and report: none is dropped, so each review does it all.
        auditQueueSize: AUDIT_QUEUE_SIZE,
        reportQueueSize: AUDIT_QUEUE_SIZE,
        maxAdmissionReports: AUDIT_QUEUE_SIZE,
        webhookWorkers,
        admissionReports,
      },
    );
    const running = await startController(config, { logger: ['error'] });
    const cache = running.app.get(PolicyCache);
    await cache.waitForSync(30_000);
    // Synced means listed; give the informers a moment if a policy arrived by watch instead.
    const deadline = Date.now() + 10_000;
    while (cache.policies().length + cache.invalidPolicies().length < policies.length && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const workers = running.app.get(ReviewWorkers);
    const expectedWorkers = reviewWorkerCount(config.webhookWorkers);
    while (workers.size < expectedWorkers && Date.now() < deadline + 20_000)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const tls = running.app.get(TlsMaterial).current()!;
    const report: ControllerReport = {
      port: running.port,
      reviewWorkers: workers.size,
      admissionReports: config.admissionReports,
      cachedPolicies: cache.policies().map((policy) => policy.name),
      invalidPolicies: cache
        .invalidPolicies()
        .map((policy) => `${policy.name}: ${policy.problems.map((problem) => problem.message).join('; ')}`),
      podCreatePolicies: cache.policiesFor({
        kind: 'Pod',
        group: '',
        version: 'v1',
        operation: 'CREATE',
        namespace: REVIEW_NAMESPACE,
        type: 'validate',
        failurePolicy: 'Fail',
      }).length,
      maxBodyBytes: config.maxBodyBytes,
      keyPem: tls.keyPem,
      certChainPem: tls.certChainPem,
      caBundlePem: tls.caBundlePem,
    };
    const commands = {
      /** Resident set and heap in use, in bytes (the metrics suite reads them before and after). */
      memory: async () => ({ rss: process.memoryUsage().rss, heapUsed: process.memoryUsage().heapUsed }),
    };
    return { report, stop: () => running.stop(), commands };
  },
};

/** The controller's answer to an admitted review, built the same way: no policies, no engine. */
function allowed(uid: unknown) {
  return { apiVersion: 'admission.k8s.io/v1', kind: 'AdmissionReview', response: { uid, allowed: true } };
}

const bare: ChildRoleRunner = {
  async start(input) {
    const { keyPem, certChainPem, bodyLimit } = input as { keyPem: string; certChainPem: string; bodyLimit: number };
    // Same server as the controller's: node:https made by Fastify's serverFactory, Fastify's JSON
    // parser and serializer, the same body limit; the key and certificate are the controller's.
    let server: Server | undefined;
    const app = fastify({
      bodyLimit,
      return503OnClosing: true,
      serverFactory: (handler: RequestListener) =>
        (server = createServer({ key: keyPem, cert: certChainPem }, handler)),
    });
    app.post('/validate/fail', async (request) => {
      const review = request.body as { request?: { uid?: unknown } } | null;
      return allowed(review?.request?.uid);
    });
    await app.listen({ host: '127.0.0.1', port: 0 });
    const report: BareReport = { port: (server!.address() as AddressInfo).port };
    return { report, stop: () => app.close() };
  },
};

export const BENCH_ROLES: Record<string, ChildRoleRunner> = { cluster, controller, bare };

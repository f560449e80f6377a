/**
 * The background controller working off a backlog of generate UpdateRequests, next to the API
 * server's own create rate measured in the same run through the same client.
 *
 * Per run: the in-memory API server in a child process with N Namespaces, a ClusterPolicy that
 * generates a NetworkPolicy in each, and the controller's Lease held by the bench; this process
 * writes one UpdateRequest per Namespace exactly as the admission controller does for a Namespace
 * CREATE (its rule matching, `updateRequestsFor`, and its writer, `UpdateRequestCreator`: create,
 * then status Pending); the background controller boots in a second child process and waits as a
 * follower until the Lease is released. The clock runs on the API server, from the new leader's
 * first list of UpdateRequests until every NetworkPolicy exists and every UpdateRequest is deleted;
 * the API server's request log says which calls the controller made meanwhile. The baselines run
 * first, on an API server of their own set up the same way.
 */
import { randomUUID } from 'node:crypto';
import { toResourceRequest, updateRequestsFor, type AdmissionRequest } from '@edict/admission';
import { UpdateRequestCreator, UPDATE_REQUEST_WRITERS } from '@edict/admission-controller';
import { kubeconfigFor } from '@edict/apiserver';
import { Engine, loadPolicyDocuments } from '@edict/engine';
import { type JsonObject, type KubeObject } from '@edict/foundation';
import { KubeHttpClient, KubeResources, loadKubeConfig } from '@edict/kube';
import {
  BACKGROUND_NAMESPACE,
  GEN_WORKERS,
  type BackgroundClusterInput,
  type BackgroundClusterReport,
  type ProcessingInput,
  type ProcessingRun,
} from './background-servers';
import { BenchChild } from './child-process';
import { percentile } from './harness';

const DOWNSTREAM_NAME = 'default-deny';
const RUN_TIMEOUT_MS = 180_000;

export interface CreateRate {
  name: string;
  concurrency: number;
  count: number;
  perSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** CPU time of the API server's process, and of this one (the client), per create, ms. */
  apiServerCpuMsPerCreate: number;
  clientCpuMsPerCreate: number;
}

export interface BackgroundRow {
  name: string;
  updateRequests: number;
  /** UpdateRequests the admission controller's writer made per second (create + status each). */
  writtenPerSecond: number;
  seconds: number;
  perSecond: number;
  /** Per UpdateRequest, from the first read of its trigger to the end of its deletion. */
  p50Ms: number;
  p99Ms: number;
  /** Calls by `METHOD resource status`: how many per UpdateRequest, and the API server's mean time answering one. */
  calls: { call: string; perRequest: number; answeringMs: number }[];
  totalCallsPerRequest: number;
  /** From the Lease's release until the new leader listed the UpdateRequests, ms (not in `seconds`). */
  takeoverMs: number;
  /** CPU time of the controller's and the API server's processes per UpdateRequest, ms. */
  controllerCpuMsPerRequest: number;
  apiServerCpuMsPerRequest: number;
}

export interface BackgroundSuite {
  namespaces: number;
  genWorkers: number;
  writerWorkers: number;
  rows: BackgroundRow[];
  baselines: CreateRate[];
}

/** A ClusterPolicy giving every Namespace a default-deny NetworkPolicy (from data). */
function networkPolicyGenerator(synchronize: boolean): JsonObject {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'default-deny' },
    spec: {
      rules: [
        {
          name: 'default-deny',
          match: { any: [{ resources: { kinds: ['Namespace'] } }] },
          generate: {
            apiVersion: 'networking.k8s.io/v1',
            kind: 'NetworkPolicy',
            name: DOWNSTREAM_NAME,
            namespace: '{{request.object.metadata.name}}',
            synchronize,
            data: { spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] } },
          },
        },
      ],
    },
  };
}

function networkPolicy(namespace: string, name: string): KubeObject {
  return {
    apiVersion: 'networking.k8s.io/v1',
    kind: 'NetworkPolicy',
    metadata: { name, namespace },
    spec: { podSelector: {}, policyTypes: ['Ingress', 'Egress'] },
  };
}

/** The client the controllers use: KubeResources over a keep-alive KubeHttpClient, from a kubeconfig. */
function kubeResources(url: string): KubeResources {
  return new KubeResources(
    new KubeHttpClient(loadKubeConfig({ source: 'kubeconfig', kubeconfig: kubeconfigFor({ server: url }) })),
  );
}

/** `objects` created with `concurrency` calls in flight; per-call latencies from each call. */
async function timedCreates(
  name: string,
  cluster: BenchChild<unknown>,
  resources: KubeResources,
  objects: readonly KubeObject[],
  concurrency: number,
): Promise<CreateRate> {
  const latencies: number[] = [];
  let next = 0;
  const cpuBefore = await cluster.cpuMicros();
  const clientCpuBefore = process.cpuUsage();
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < objects.length) {
        const object = objects[next++]!;
        const sent = performance.now();
        await resources.create(object);
        latencies.push(performance.now() - sent);
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const clientCpu = process.cpuUsage(clientCpuBefore);
  const cpuMs = ((await cluster.cpuMicros()) - cpuBefore) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    name,
    concurrency,
    count: objects.length,
    perSecond: objects.length / seconds,
    p50Ms: percentile(latencies, 0.5),
    p99Ms: percentile(latencies, 0.99),
    apiServerCpuMsPerCreate: cpuMs / objects.length,
    clientCpuMsPerCreate: (clientCpu.user + clientCpu.system) / 1000 / objects.length,
  };
}

/** Raw NetworkPolicy creates, one at a time and `GEN_WORKERS` at a time, after a warm-up. */
async function measureBaselines(cluster: BenchChild<BackgroundClusterReport>, namespaces: readonly string[]) {
  const resources = kubeResources(cluster.report.url);
  const server = cluster as BenchChild<unknown>;
  const batch = (name: string) => namespaces.map((namespace) => networkPolicy(namespace, name));
  await timedCreates('warm-up', server, resources, batch('bench-warm-up').slice(0, 200), GEN_WORKERS);
  return [
    await timedCreates('POST NetworkPolicy, 1 at a time', server, resources, batch('bench-sequential'), 1),
    await timedCreates(
      `POST NetworkPolicy, ${GEN_WORKERS} at a time`,
      server,
      resources,
      batch('bench-pool'),
      GEN_WORKERS,
    ),
  ];
}

/**
 * What the admission controller does after admitting each Namespace CREATE: its rule matching
 * picks the UpdateRequests, its writer creates them; resolves with the writes per second.
 */
async function writeUpdateRequests(
  resources: KubeResources,
  policy: JsonObject,
  namespaces: readonly string[],
): Promise<{ count: number; perSecond: number }> {
  const engine = new Engine();
  const { policies, errors } = loadPolicyDocuments(JSON.stringify(policy), 'bench policy');
  if (errors.length > 0 || policies.length !== 1) throw new Error(`bench policy: ${JSON.stringify(errors)}`);
  const compiled = engine.compile(policies[0]!);
  const wanted = new Set(namespaces);
  const { items } = await resources.list({ apiVersion: 'v1', kind: 'Namespace' });
  const jobs = [];
  for (const item of items.filter((namespace) => wanted.has(namespace.metadata?.name ?? ''))) {
    const admission = namespaceCreate({ ...item, apiVersion: 'v1', kind: 'Namespace' });
    for (const spec of await updateRequestsFor(toResourceRequest(admission), [compiled], engine))
      jobs.push({ requestUid: admission.uid, spec });
  }
  if (jobs.length !== namespaces.length)
    throw new Error(`expected one UpdateRequest per Namespace, the rule matching gave ${jobs.length}`);

  const writer = new UpdateRequestCreator(resources, { namespace: BACKGROUND_NAMESPACE, queueSize: jobs.length });
  const started = performance.now();
  for (const job of jobs) writer.submit(job);
  await writer.whenIdle();
  const seconds = (performance.now() - started) / 1000;
  const stats = writer.stats();
  if (stats.failed > 0 || stats.dropped > 0)
    throw new Error(`UpdateRequest writer: ${stats.failed} failed, ${stats.dropped} dropped`);
  return { count: jobs.length, perSecond: jobs.length / seconds };
}

/** The AdmissionRequest the API server sends for a Namespace CREATE by a cluster admin. */
function namespaceCreate(namespace: KubeObject): AdmissionRequest {
  return {
    uid: randomUUID(),
    kind: { group: '', version: 'v1', kind: 'Namespace' },
    resource: { group: '', version: 'v1', resource: 'namespaces' },
    name: namespace.metadata?.name ?? '',
    operation: 'CREATE',
    userInfo: { username: 'kubernetes-admin', groups: ['kubeadm:cluster-admins', 'system:authenticated'] },
    object: namespace as KubeObject,
    oldObject: null,
    dryRun: false,
  };
}

/** A fresh API server child with the Namespaces and the policy; stopped after `use`. */
async function withCluster<T>(
  input: BackgroundClusterInput,
  use: (cluster: BenchChild<BackgroundClusterReport>, started: BenchChild<unknown>[]) => Promise<T>,
): Promise<T> {
  const started: BenchChild<unknown>[] = [];
  try {
    const cluster = await BenchChild.start<BackgroundClusterReport>('background-cluster', input);
    started.push(cluster as BenchChild<unknown>);
    return await use(cluster, started);
  } finally {
    for (const child of started.reverse()) await child.stop().catch(() => undefined);
  }
}

export async function runBackgroundSuite(count: number): Promise<BackgroundSuite> {
  const namespaces = Array.from({ length: count }, (_, index) => `bench-${String(index + 1).padStart(4, '0')}`);
  // The baseline's own API server, set up as the runs' are, so its objects do not weigh on the runs.
  const baselines = await withCluster({ namespaces, policy: networkPolicyGenerator(false) }, (cluster) =>
    measureBaselines(cluster, namespaces),
  );
  const rows: BackgroundRow[] = [];
  for (const synchronize of [false, true]) {
    const policy = networkPolicyGenerator(synchronize);
    const row = await withCluster({ namespaces, policy }, async (cluster, started) => {
      const resources = kubeResources(cluster.report.url);
      const written = await writeUpdateRequests(resources, policy, namespaces);
      // Booted and waiting for the Lease the cluster holds; released by await-processing.
      const controller = await BenchChild.start('background-controller', cluster.report);
      started.push(controller);
      const cpuBefore = await cpuMicros(controller, cluster);
      const run = await cluster.call<ProcessingRun>('await-processing', {
        updateRequests: written.count,
        downstreamResource: 'networking.k8s.io/networkpolicies',
        downstreamName: DOWNSTREAM_NAME,
        timeoutMs: RUN_TIMEOUT_MS,
      } satisfies ProcessingInput);
      const cpuAfter = await cpuMicros(controller, cluster);
      if (run.downstreamFound !== written.count || run.updateRequestsLeft !== 0)
        throw new Error(
          `after the run: ${run.downstreamFound} of ${written.count} NetworkPolicies, ${run.updateRequestsLeft} UpdateRequests left`,
        );
      return rowOf(`generate data, synchronize ${synchronize}`, written, run, {
        controllerMs: (cpuAfter.controller - cpuBefore.controller) / 1000,
        apiServerMs: (cpuAfter.apiServer - cpuBefore.apiServer) / 1000,
      });
    });
    rows.push(row);
  }
  return { namespaces: count, genWorkers: GEN_WORKERS, writerWorkers: UPDATE_REQUEST_WRITERS, rows, baselines };
}

async function cpuMicros(controller: BenchChild<unknown>, cluster: BenchChild<unknown>) {
  const [controllerMicros, apiServerMicros] = await Promise.all([controller.cpuMicros(), cluster.cpuMicros()]);
  return { controller: controllerMicros, apiServer: apiServerMicros };
}

/** The row of one run; `cpu`: what each process used from the Lease's release to the end (ms). */
function rowOf(
  name: string,
  written: { count: number; perSecond: number },
  run: ProcessingRun,
  cpu: { controllerMs: number; apiServerMs: number },
): BackgroundRow {
  const calls = Object.entries(run.calls)
    .sort(([, a], [, b]) => b - a)
    .map(([call, count]) => ({
      call,
      perRequest: count / written.count,
      answeringMs: run.answeringMs[call]! / count,
    }));
  return {
    name,
    updateRequests: written.count,
    writtenPerSecond: written.perSecond,
    seconds: run.elapsedMs / 1000,
    perSecond: (written.count * 1000) / run.elapsedMs,
    p50Ms: percentile(run.processingMs, 0.5),
    p99Ms: percentile(run.processingMs, 0.99),
    calls,
    totalCallsPerRequest: calls.reduce((sum, entry) => sum + entry.perRequest, 0),
    takeoverMs: run.takeoverMs,
    controllerCpuMsPerRequest: cpu.controllerMs / written.count,
    apiServerCpuMsPerRequest: cpu.apiServerMs / written.count,
  };
}

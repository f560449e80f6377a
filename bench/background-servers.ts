/**
 * The two processes of the background benchmark, each run as a child of the bench:
 *  - `background-cluster`: the in-memory API server with Edict's CRDs, the trigger Namespaces, the
 *    generate policy and the controller's Lease, held by the bench so that a controller started
 *    meanwhile boots and waits as a follower; its `await-processing` command releases the Lease and
 *    watches its own store until the controller has written every downstream object and deleted
 *    every UpdateRequest, then reads from its request log what the controller asked for meanwhile;
 *  - `background-controller`: the real background controller (`startBackgroundController`).
 */
import { InMemoryApiServer, kubeconfigFor, type RecordedRequest } from '@edict/apiserver';
import { runControllerManager } from '@edict/controller-manager';
import type { JsonObject } from '@edict/foundation';
import { microTime } from '@edict/kube';
import { readCrdManifests } from '@edict/policy';
import { loadBackgroundConfig, startBackgroundController, type BackgroundConfig } from '@edict/background-controller';
import type { ChildRoleRunner } from './child-process';

export const BACKGROUND_NAMESPACE = 'edict';
/** Kyverno's default --genWorkers. */
export const GEN_WORKERS = 10;
const UPDATE_REQUESTS = 'kyverno.io/updaterequests';
/** Enough for every call of a run (about ten per UpdateRequest). */
const REQUEST_LOG_LIMIT = 1_000_000;

export interface BackgroundClusterInput {
  namespaces: string[];
  policy: JsonObject;
}

export interface BackgroundClusterReport {
  url: string;
}

/** The background controller's configuration in the bench: the defaults, against the API server at `url`. */
export function benchBackgroundConfig(url: string): BackgroundConfig {
  return loadBackgroundConfig(
    {},
    {
      kubeSource: 'kubeconfig',
      kubeconfig: kubeconfigFor({ server: url }),
      namespace: BACKGROUND_NAMESPACE,
      host: '127.0.0.1',
      port: 0,
      genWorkers: GEN_WORKERS,
    },
  );
}

/** The downstream object every trigger gets, and how many UpdateRequests are to be processed. */
export interface ProcessingInput {
  updateRequests: number;
  /** `group/plural` of the downstream type, as the store names it (`networking.k8s.io/networkpolicies`). */
  downstreamResource: string;
  downstreamName: string;
  timeoutMs: number;
}

export interface ProcessingRun {
  /** From the Lease's release until the controller's first list of UpdateRequests, ms. */
  takeoverMs: number;
  /** From the controller's first list of UpdateRequests until the last downstream object and deletion, ms. */
  elapsedMs: number;
  /** Calls the controller made in that time (watches aside), by `METHOD resource[/subresource] status`. */
  calls: Record<string, number>;
  /** The API server's time answering them (arrival to answer's end), by the same keys, ms. */
  answeringMs: Record<string, number>;
  /** Per UpdateRequest: from the first read of its trigger Namespace to the end of its deletion, ms (sorted). */
  processingMs: number[];
  downstreamFound: number;
  updateRequestsLeft: number;
}

const cluster: ChildRoleRunner = {
  async start(input) {
    const { namespaces, policy } = input as BackgroundClusterInput;
    const server = new InMemoryApiServer({ requestLogLimit: REQUEST_LOG_LIMIT });
    // The garbage collector runs next to the API server, as in a cluster (it lives as long as the store).
    runControllerManager(server);
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    for (const crd of readCrdManifests()) server.create(crd);
    for (const name of [BACKGROUND_NAMESPACE, ...namespaces])
      server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    server.create(policy);
    const lease = benchBackgroundConfig(url).leaseName;
    const now = microTime();
    server.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: lease, namespace: BACKGROUND_NAMESPACE },
      spec: { holderIdentity: 'edict-bench', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now },
    });
    const release = () => server.delete('coordination.k8s.io/v1', 'Lease', lease, BACKGROUND_NAMESPACE);
    const report: BackgroundClusterReport = { url };
    return {
      report,
      stop: () => server.stop(),
      commands: { 'await-processing': (command) => awaitProcessing(server, command as ProcessingInput, release) },
    };
  },
};

/**
 * Starts the request log and releases the Lease, then resolves once `updateRequests` downstream
 * objects were added and no UpdateRequest is left (or rejects after `timeoutMs`, with the counts).
 */
function awaitProcessing(
  server: InMemoryApiServer,
  input: ProcessingInput,
  release: () => void,
): Promise<ProcessingRun> {
  server.requests.clear();
  server.requests.start();
  const releasedAt = performance.now();
  release();
  let added = 0;
  const requests = server.store.list(UPDATE_REQUESTS);
  let left = requests.length;
  const triggers = new Map(
    requests.map((request) => [
      (request.metadata as JsonObject).name as string,
      ((request.spec as JsonObject).resource as JsonObject).name as string,
    ]),
  );
  return new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`after ${input.timeoutMs} ms: ${added} downstream objects, ${left} UpdateRequests left`));
    }, input.timeoutMs);
    const off = server.store.subscribe((event) => {
      if (event.type === 'DELETED' && event.groupResource === UPDATE_REQUESTS) left--;
      const name = (event.object.metadata as JsonObject).name;
      if (event.type === 'ADDED' && event.groupResource === input.downstreamResource && name === input.downstreamName)
        added++;
      if (added >= input.updateRequests && left === 0) {
        off();
        clearTimeout(timer);
        resolve(performance.now());
      }
    });
  }).then(async (finishedAt) => {
    // The last deletion's answer is still being written: let the log record it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    server.requests.stop();
    const downstreamFound = server.store
      .list(input.downstreamResource)
      .filter((object) => (object.metadata as JsonObject).name === input.downstreamName).length;
    return {
      ...summarize(server.requests.requests(), triggers, releasedAt, finishedAt),
      downstreamFound,
      updateRequestsLeft: server.store.list(UPDATE_REQUESTS).length,
    };
  });
}

/** `triggers`: the trigger Namespace of each UpdateRequest, by name. */
function summarize(
  requests: readonly RecordedRequest[],
  triggers: ReadonlyMap<string, string>,
  releasedAt: number,
  finishedAt: number,
): Pick<ProcessingRun, 'takeoverMs' | 'elapsedMs' | 'calls' | 'answeringMs' | 'processingMs'> {
  const firstList = requests.find(
    (entry) => entry.method === 'GET' && !entry.watch && entry.path.endsWith('/updaterequests'),
  );
  if (!firstList) throw new Error('the controller never listed the UpdateRequests');
  const calls: Record<string, number> = {};
  const answeringMs: Record<string, number> = {};
  const triggerRead = new Map<string, number>();
  const processingMs: number[] = [];
  for (const entry of requests) {
    if (entry.watch || entry.receivedAt < firstList.receivedAt || entry.receivedAt > finishedAt) continue;
    const { resource, name } = resourceOf(entry.path);
    const key = `${entry.method} ${resource} ${entry.status}`;
    calls[key] = (calls[key] ?? 0) + 1;
    answeringMs[key] = (answeringMs[key] ?? 0) + entry.answeredAt - entry.receivedAt;
    if (!name) continue;
    if (resource === 'namespaces' && !triggerRead.has(name)) triggerRead.set(name, entry.receivedAt);
    const readAt = triggerRead.get(triggers.get(name) ?? '');
    if (resource === 'updaterequests' && entry.method === 'DELETE' && readAt !== undefined)
      processingMs.push(entry.answeredAt - readAt);
  }
  return {
    takeoverMs: firstList.receivedAt - releasedAt,
    elapsedMs: finishedAt - firstList.receivedAt,
    calls,
    answeringMs,
    processingMs: processingMs.sort((a, b) => a - b),
  };
}

/** `/apis/g/v/namespaces/ns/plural/name/status` → `plural/status` and the name; discovery paths as they are. */
function resourceOf(path: string): { resource: string; name?: string } {
  const segments = path.split('/').filter(Boolean);
  const rest = segments.slice(segments[0] === 'api' ? 2 : 3);
  const scoped = rest[0] === 'namespaces' && rest.length >= 3 ? rest.slice(2) : rest;
  const [plural, name, subresource] = scoped;
  if (!plural) return { resource: path };
  return { resource: subresource ? `${plural}/${subresource}` : plural, ...(name ? { name } : {}) };
}

const controller: ChildRoleRunner = {
  async start(input) {
    const { url } = input as BackgroundClusterReport;
    const running = await startBackgroundController(benchBackgroundConfig(url), { logger: ['error'] });
    return { report: {}, stop: () => running.stop() };
  },
};

export const BACKGROUND_ROLES: Record<string, ChildRoleRunner> = {
  'background-cluster': cluster,
  'background-controller': controller,
};

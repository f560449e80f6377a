/**
 * The two processes of the reports benchmark, each run as a child of the bench:
 *  - `reports-cluster`: the in-memory API server with Edict's CRDs, the Pods spread over Namespaces, the
 *    17 Pod Security policies and the reports controller's Lease, held by the bench so that the
 *    controller boots and waits as a follower; its `await-reports` command releases the Lease and
 *    watches its own store until every Pod has a PolicyReport holding every rule's result;
 *  - `reports-controller`: the real reports controller (`startReportsController`), forked with
 *    `--expose-gc` so that its `memory` command measures what is kept, not what awaits collection.
 */
import { InMemoryApiServer, kubeconfigFor } from '@edict/apiserver';
import { runControllerManager } from '@edict/controller-manager';
import type { JsonObject } from '@edict/foundation';
import { microTime } from '@edict/kube';
import { readCrdManifests } from '@edict/policy';
import { loadReportsConfig, startReportsController, type ReportsConfig } from '@edict/reports-controller';
import type { ChildRoleRunner } from './child-process';

export const REPORTS_NAMESPACE = 'edict';
const POLICY_REPORTS = 'wgpolicyk8s.io/policyreports';

export interface ReportsClusterInput {
  namespaces: string[];
  /** Pods to create, each a copy of `pod` with its own name, uid and Namespace. */
  pods: number;
  pod: JsonObject;
  /** Pods whose first container is made privileged, one in every `violatingEvery`. */
  violatingEvery: number;
  policies: JsonObject[];
}

export interface ReportsClusterReport {
  url: string;
}

export interface ReportsAwaitInput {
  pods: number;
  /** Settled once every Pod has a report and no report was written for this long. */
  quietMs: number;
  timeoutMs: number;
}

export interface ReportsRun {
  /** From the Lease's release until the last PolicyReport write, ms. */
  elapsedMs: number;
  reports: number;
  /** Mean results per report. */
  meanResults: number;
  /** Mean size of a PolicyReport as the API server stores it (JSON), bytes. */
  meanReportBytes: number;
  failing: number;
}

export interface ControllerMemory {
  rssBytes: number;
  heapUsedBytes: number;
  /** V8's committed heap: what it keeps of the scan's peak beside what is used. */
  heapTotalBytes: number;
  /** Memory outside V8's heap held by JavaScript objects (Buffers among them). */
  externalBytes: number;
}

/** The reports controller's configuration in the bench: the defaults, against the API server at `url`. */
export function benchReportsConfig(url: string): ReportsConfig {
  return loadReportsConfig(
    {},
    {
      kubeSource: 'kubeconfig',
      kubeconfig: kubeconfigFor({ server: url }),
      namespace: REPORTS_NAMESPACE,
      host: '127.0.0.1',
      port: 0,
    },
  );
}

function podCopy(input: ReportsClusterInput, index: number): JsonObject {
  const template = input.pod as { metadata: JsonObject; spec: { containers: JsonObject[] } };
  const containers = template.spec.containers.map((container, position) =>
    position === 0 && index % input.violatingEvery === 0
      ? { ...container, securityContext: { ...(container.securityContext as JsonObject), privileged: true } }
      : container,
  );
  const { uid: _uid, generateName: _generated, ...metadata } = template.metadata;
  return {
    ...input.pod,
    metadata: {
      ...metadata,
      name: `bench-pod-${String(index).padStart(5, '0')}`,
      namespace: input.namespaces[index % input.namespaces.length]!,
    },
    spec: { ...template.spec, containers },
  };
}

const cluster: ChildRoleRunner = {
  async start(input) {
    const setup = input as ReportsClusterInput;
    const server = new InMemoryApiServer();
    // The garbage collector runs next to the API server, as in a cluster (it lives as long as the store).
    runControllerManager(server);
    const { url } = await server.start({ host: '127.0.0.1', port: 0 });
    for (const crd of readCrdManifests()) server.create(crd);
    for (const name of [REPORTS_NAMESPACE, ...setup.namespaces])
      server.create({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } });
    for (let index = 0; index < setup.pods; index++) server.create(podCopy(setup, index));
    for (const policy of setup.policies) server.create(policy);
    const lease = benchReportsConfig(url).leaseName;
    const now = microTime();
    server.create({
      apiVersion: 'coordination.k8s.io/v1',
      kind: 'Lease',
      metadata: { name: lease, namespace: REPORTS_NAMESPACE },
      spec: { holderIdentity: 'edict-bench', leaseDurationSeconds: 3600, acquireTime: now, renewTime: now },
    });
    const release = () => server.delete('coordination.k8s.io/v1', 'Lease', lease, REPORTS_NAMESPACE);
    const report: ReportsClusterReport = { url };
    return {
      report,
      stop: () => server.stop(),
      commands: { 'await-reports': (command) => awaitReports(server, command as ReportsAwaitInput, release) },
    };
  },
};

const resultCount = (report: JsonObject) => ((report.results as unknown[] | undefined) ?? []).length;

/**
 * Releases the Lease, then resolves once every Pod has a PolicyReport and none was written for
 * `quietMs`; the run ends at the last write.
 */
function awaitReports(server: InMemoryApiServer, input: ReportsAwaitInput, release: () => void): Promise<ReportsRun> {
  const releasedAt = performance.now();
  let lastWriteAt = releasedAt;
  const off = server.store.subscribe((event) => {
    if (event.groupResource === POLICY_REPORTS) lastWriteAt = performance.now();
  });
  release();
  return new Promise<void>((resolve, reject) => {
    const poll = setInterval(() => {
      const now = performance.now();
      const settled = now - lastWriteAt >= input.quietMs && server.store.list(POLICY_REPORTS).length >= input.pods;
      if (!settled && now - releasedAt < input.timeoutMs) return;
      clearInterval(poll);
      off();
      const reports = server.store.list(POLICY_REPORTS).length;
      if (settled) resolve();
      else reject(new Error(`after ${input.timeoutMs} ms: ${reports} PolicyReports for ${input.pods} Pods`));
    }, 100);
  }).then(() => {
    const reports = server.store.list(POLICY_REPORTS);
    const bytes = reports.reduce((sum, report) => sum + JSON.stringify(report).length, 0);
    const results = reports.reduce((sum, report) => sum + resultCount(report), 0);
    const failing = reports.filter((report) => Number((report.summary as JsonObject | undefined)?.fail ?? 0) > 0);
    return {
      elapsedMs: lastWriteAt - releasedAt,
      reports: reports.length,
      meanResults: results / Math.max(1, reports.length),
      meanReportBytes: bytes / Math.max(1, reports.length),
      failing: failing.length,
    };
  });
}

/** Resident and heap memory after two full collections. */
function keptMemory(): ControllerMemory {
  const collect = (globalThis as { gc?: () => void }).gc;
  if (!collect) throw new Error('the reports-controller child runs without --expose-gc');
  collect();
  collect();
  const usage = process.memoryUsage();
  return {
    rssBytes: usage.rss,
    heapUsedBytes: usage.heapUsed,
    heapTotalBytes: usage.heapTotal,
    externalBytes: usage.external,
  };
}

const controller: ChildRoleRunner = {
  async start(input) {
    const { url } = input as ReportsClusterReport;
    const running = await startReportsController(benchReportsConfig(url), { logger: ['error'] });
    return { report: {}, stop: () => running.stop(), commands: { memory: async () => keptMemory() } };
  },
};

export const REPORTS_ROLES: Record<string, ChildRoleRunner> = {
  'reports-cluster': cluster,
  'reports-controller': controller,
};

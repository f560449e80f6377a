/**
 * A background scan of many Pods by the reports controller, next to the time the same client takes
 * to list the same Pods in the same run.
 *
 * The in-memory API server runs in a child process with the Pods (one in ten privileged, so reports
 * hold failures too), the 17 Pod Security policies (Audit, background) and the controller's Lease,
 * held by the bench; the reports controller boots in a second child as a follower and its memory is
 * read; then the Lease is released. The clock runs on the API server, from the release until the last
 * PolicyReport write, once every Pod has a report and the reports have been quiet for a while. The
 * controller's memory is read again (after full collections): what it grew by, per report kept.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { kubeconfigFor } from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import { KubeHttpClient, KubeResources, loadKubeConfig } from '@edict/kube';
import { FIXTURES } from './admission-suite';
import { BenchChild } from './child-process';
import { percentile } from './harness';
import type {
  ControllerMemory,
  ReportsAwaitInput,
  ReportsClusterInput,
  ReportsClusterReport,
  ReportsRun,
} from './reports-servers';
import { sharedDir } from './shared-dir';

const NAMESPACES = 100;
const VIOLATING_EVERY = 10;
const LIST_PAGE = 500;
const LIST_RUNS = 5;
/** The reports are settled once no PolicyReport was written for this long. */
const QUIET_MS = 3_000;
const RUN_TIMEOUT_MS = 900_000;
/** Idle time after the scan before memory is read again: what stays once the scan's peak is given back. */
const SETTLE_MS = 30_000;

export interface ReportsSuite {
  pods: number;
  namespaces: number;
  policies: number;
  run: ReportsRun;
  /** The controller as an idle follower, right after the scan, and after `SETTLE_MS` idle. */
  memoryBefore: ControllerMemory;
  memoryAfter: ControllerMemory;
  memorySettled: ControllerMemory;
  settleSeconds: number;
  controllerCpuMs: number;
  apiServerCpuMs: number;
  /** Listing every Pod through the same client, `LIST_PAGE` per page: median of `LIST_RUNS`, ms. */
  listMs: number;
  listPage: number;
}

/** The 17 Pod Security policies as objects to create. */
function pssPolicyObjects(): JsonObject[] {
  const dir = join(sharedDir(), 'bench', 'pss');
  return readdirSync(dir)
    .filter((file) => file.endsWith('.yaml'))
    .flatMap((file) => parseAllDocuments(readFileSync(join(dir, file), 'utf8')).map((doc) => doc.toJS() as JsonObject))
    .filter((object) => object?.kind === 'ClusterPolicy');
}

function benchPod(): JsonObject {
  const review = JSON.parse(readFileSync(join(FIXTURES, 'pod-create-review.json'), 'utf8'));
  return review.request.object as JsonObject;
}

async function medianListMs(url: string): Promise<number> {
  const resources = new KubeResources(
    new KubeHttpClient(loadKubeConfig({ source: 'kubeconfig', kubeconfig: kubeconfigFor({ server: url }) })),
  );
  const times: number[] = [];
  for (let run = 0; run < LIST_RUNS; run++) {
    const started = performance.now();
    await resources.list({ apiVersion: 'v1', kind: 'Pod' }, { limit: LIST_PAGE });
    times.push(performance.now() - started);
  }
  return percentile(
    times.sort((a, b) => a - b),
    0.5,
  );
}

export async function runReportsSuite(pods: number): Promise<ReportsSuite> {
  const policies = pssPolicyObjects();
  const input: ReportsClusterInput = {
    namespaces: Array.from({ length: NAMESPACES }, (_, index) => `bench-${String(index).padStart(3, '0')}`),
    pods,
    pod: benchPod(),
    violatingEvery: VIOLATING_EVERY,
    policies,
  };
  const started: BenchChild<unknown>[] = [];
  try {
    const cluster = await BenchChild.start<ReportsClusterReport>('reports-cluster', input, { timeoutMs: 300_000 });
    started.push(cluster as BenchChild<unknown>);
    const controller = await BenchChild.start('reports-controller', cluster.report, { execArgv: ['--expose-gc'] });
    started.push(controller);
    const memoryBefore = await controller.call<ControllerMemory>('memory');
    const cpuBefore = await Promise.all([controller.cpuMicros(), cluster.cpuMicros()]);
    const run = await cluster.call<ReportsRun>('await-reports', {
      pods,
      quietMs: QUIET_MS,
      timeoutMs: RUN_TIMEOUT_MS,
    } satisfies ReportsAwaitInput);
    const cpuAfter = await Promise.all([controller.cpuMicros(), cluster.cpuMicros()]);
    const memoryAfter = await controller.call<ControllerMemory>('memory');
    const listMs = await medianListMs(cluster.report.url);
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const memorySettled = await controller.call<ControllerMemory>('memory');
    return {
      pods,
      namespaces: NAMESPACES,
      policies: policies.length,
      run,
      memoryBefore,
      memoryAfter,
      memorySettled,
      settleSeconds: SETTLE_MS / 1000,
      // The quiet period is idle time of both.
      controllerCpuMs: (cpuAfter[0] - cpuBefore[0]) / 1000,
      apiServerCpuMs: (cpuAfter[1] - cpuBefore[1]) / 1000,
      listMs,
      listPage: LIST_PAGE,
    };
  } finally {
    for (const child of started.reverse()) await child.stop().catch(() => undefined);
  }
}

/** The background suite's printed report: how it was run, the tables, the calls per request and the ratios. */
import { formatColumns } from './harness';
import type { BackgroundSuite } from './background-suite';

const rate = (value: number) => Math.round(value).toLocaleString('en-US');

export function formatBackgroundSuite(suite: BackgroundSuite): string {
  const count = suite.namespaces.toLocaleString('en-US');
  const out: string[] = [
    `Background controller: a ClusterPolicy generating a NetworkPolicy (data) in each of ${count} Namespaces, ` +
      `one UpdateRequest each; genWorkers ${suite.genWorkers}`,
    `  the in-memory API server and the controller each in a child process. This process wrote the UpdateRequests ` +
      `as the admission controller does (its rule matching and its writer, ${suite.writerWorkers} at a time, ` +
      `create + status Pending each) while the bench held the controller's Lease; the controller booted as a ` +
      `follower, then the Lease was released. Baselines: the same client against a fresh API server set up alike`,
    `  clock on the API server: from the new leader's first list of UpdateRequests until every NetworkPolicy exists ` +
      `and every UpdateRequest is deleted; latency: one request from the first read of its trigger to the end of its deletion; ` +
      `CPU: process CPU time from the Lease's release to the end, per request`,
    formatColumns([
      [
        'run',
        'requests',
        'seconds',
        'requests/s',
        'p50 ms',
        'p99 ms',
        'API calls/request',
        'controller CPU ms/request',
        'API server CPU ms/request',
        'written/s (admission)',
      ],
      ...suite.rows.map((row) => [
        row.name,
        row.updateRequests.toLocaleString('en-US'),
        row.seconds.toFixed(2),
        rate(row.perSecond),
        row.p50Ms.toFixed(1),
        row.p99Ms.toFixed(1),
        row.totalCallsPerRequest.toFixed(2),
        row.controllerCpuMsPerRequest.toFixed(2),
        row.apiServerCpuMsPerRequest.toFixed(2),
        rate(row.writtenPerSecond),
      ]),
    ]),
    formatColumns([
      [
        'baseline (same client)',
        'creates',
        'creates/s',
        'p50 ms',
        'p99 ms',
        'API server CPU ms/create',
        'client CPU ms/create',
      ],
      ...suite.baselines.map((baseline) => [
        baseline.name,
        baseline.count.toLocaleString('en-US'),
        rate(baseline.perSecond),
        baseline.p50Ms.toFixed(2),
        baseline.p99Ms.toFixed(2),
        baseline.apiServerCpuMsPerCreate.toFixed(2),
        baseline.clientCpuMsPerCreate.toFixed(2),
      ]),
    ]),
  ];
  for (const row of suite.rows) {
    const calls = row.calls
      .map(({ call, perRequest, answeringMs }) => `${call} ${perRequest.toFixed(2)} (${answeringMs.toFixed(2)} ms)`)
      .join(', ');
    out.push(
      `${row.name}: calls per request (METHOD resource status, and the API server's mean time answering one): ${calls}; ` +
        `the new leader listed the requests ${Math.round(row.takeoverMs)} ms after the Lease's release (not counted)`,
    );
  }
  const pool = suite.baselines.find((baseline) => baseline.concurrency === suite.genWorkers);
  if (pool) {
    for (const row of suite.rows)
      out.push(
        `${row.name}: requests/s / raw creates/s ${pool.concurrency} at a time ${(row.perSecond / pool.perSecond).toFixed(2)}x; ` +
          `the controller's API calls/s (requests/s × ${row.totalCallsPerRequest.toFixed(2)}) / raw creates/s ` +
          `${((row.perSecond * row.totalCallsPerRequest) / pool.perSecond).toFixed(2)}x; ` +
          `API server CPU per request / per raw create ${(row.apiServerCpuMsPerRequest / pool.apiServerCpuMsPerCreate).toFixed(2)}x`,
      );
  }
  return `${out.join('\n')}\n`;
}

/** The webhook suite's printed report: how it was run, what was checked, the table and the ratios. */
import { availableParallelism, loadavg } from 'node:os';
import { formatColumns } from './harness';
import type { WebhookSuite } from './webhook-suite';

const count = (counts: Record<string, string[] | number>) =>
  Object.entries(counts)
    .map(([key, value]) => `${Array.isArray(value) ? value.length : value} ${key}`)
    .join(', ');

export function formatWebhookSuite(suite: WebhookSuite, seconds: number, warmupSeconds: number): string {
  const { evaluated, missing, ruleResults } = suite.verification;
  const out: string[] = [
    `Admission webhook over HTTPS keep-alive: one Pod CREATE review, ${suite.policies} PSS policies picked for it; ` +
      `${seconds} s per point in ${suite.slices} turns alternating between the servers, after a ${warmupSeconds} s warm-up at 50 connections`,
    `  ${suite.layout}`,
    `  ${availableParallelism()} cores; load average ${loadavg()
      .map((load) => load.toFixed(1))
      .join(' ')} at the end (other work on the machine shows here and in the CPU columns)`,
    `  policies the controller evaluated for one review (its metrics): ${count(evaluated)}; rule results: ${count(ruleResults)}`,
  ];
  if (missing.length > 0)
    out.push(
      `  WARNING: ${missing.length} of ${suite.policies} policies were never evaluated (${missing.join(', ')}): ` +
        `the webhook figures below do not include them`,
    );
  out.push('  all servers give the same answer, byte for byte (checked on every measured response, its uid aside)');

  const bareAt = (connections: number) =>
    suite.rows.find((row) => row.connections === connections && row.name.startsWith('bare'))!;
  out.push(
    formatColumns([
      [
        'endpoint',
        'connections',
        'requests/s',
        'answers/s',
        'p50 ms',
        'p99 ms',
        'server CPU',
        'CPU ms/req',
        'load CPU',
        'req/s × bare',
        'p99 × bare',
      ],
      ...suite.rows.map((row) => [
        row.name,
        String(row.connections),
        Math.round(row.requestsPerSecond).toLocaleString('en-US'),
        Math.round(row.answersPerSecond).toLocaleString('en-US'),
        row.p50Ms.toFixed(2),
        row.p99Ms.toFixed(2),
        `${Math.round(row.serverCpu * 100)}%`,
        row.serverCpuMsPerRequest.toFixed(3),
        `${Math.round(row.generatorCpu * 100)}%`,
        (row.requestsPerSecond / bareAt(row.connections).requestsPerSecond).toFixed(2),
        (row.p99Ms / bareAt(row.connections).p99Ms).toFixed(2),
      ]),
    ]),
  );
  out.push(
    'requests/s: answered and their audits done (the time to drain the audit backlog after each turn counts); ' +
      'answers/s: answered per second of the turns alone; CPU columns: share of one core during the turns; ' +
      "CPU ms/req: the server process's CPU (all its threads) per request, its audit backlog included",
  );
  for (const point of suite.coverage) {
    const row = suite.rows.find((r) => r.connections === point.connections && r.name === point.name);
    out.push(
      `${point.name} at ${point.connections} connections: ${point.reviews.toLocaleString('en-US')} reviews, ` +
        `${point.ruleResultsPerReview.toFixed(2)} rule results per review (one review alone: ${point.ruleResultsAlone}), ` +
        `${point.auditDropped.toLocaleString('en-US')} audits dropped, ` +
        `${point.backpressureHeld.toLocaleString('en-US')} held by backpressure` +
        (row ? `; audit backlog drained ${Math.round(row.settleMsPerTurn!)} ms after each turn on average` : ''),
    );
  }
  out.push(
    `in-memory API server processes during the measurements: ${Math.round(suite.apiServerCpu * 100)}% of a core`,
    ...suite.ratios.map(
      (ratio) =>
        `${ratio.name} / bare: throughput at 50 connections ${ratio.throughput.toFixed(2)}x ` +
        `(answers alone ${ratio.answers.toFixed(2)}x), p99 at 10 connections ${ratio.p99.toFixed(2)}x`,
    ),
    '',
  );
  return out.join('\n');
}

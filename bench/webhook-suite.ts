/**
 * The admission webhook over HTTPS with keep-alive, next to a bare Fastify HTTPS endpoint answering
 * the same review without policies, measured in the same run with the same load.
 *
 * Layout on the machine: the controller and the bare endpoint each run in a child process (Node
 * serves on one core), autocannon runs in this process, and the in-memory API server runs in a
 * third process. The API server is not in the request path: reviews go straight to the controller's
 * `/validate/fail`, as the API server's webhook call would, and the controller reads its 17
 * policies from the cache its informers filled through the API.
 */
import { deepEqual, type JsonValue } from '@edict/engine';
import { reviewText } from './admission-suite';
import { BenchChild } from './child-process';
import { ControllerMetrics, policyResults, type ControllerTotals } from './controller-metrics';
import { httpsCall } from './https-call';
import { runLoadPoints, type LoadOptions, type LoadPoint, type LoadTarget } from './load';
import {
  AUDIT_QUEUE_SIZE,
  BENCH_SERVER_NAME,
  type BareReport,
  type ClusterReport,
  type ControllerReport,
} from './webhook-servers';

/** The path and query the API server calls a Fail webhook with (its timeout of 10 s). */
const WEBHOOK_PATH = '/validate/fail?timeout=10s';
const THROUGHPUT_CONNECTIONS = 50;
const LATENCY_CONNECTIONS = 10;
/** Turns each point's time is cut into, alternating between the two servers. */
const SLICES = 4;

/** What the controller did for the reviews of one load point (from its metrics). */
export interface PointCoverage {
  connections: number;
  reviews: number;
  ruleResultsPerReview: number;
  /** Reviews whose audit work the controller dropped (its bounded audit queue was full). */
  auditDropped: number;
}

export interface WebhookSuite {
  /** How the processes were laid out, for the output. */
  layout: string;
  policies: number;
  slices: number;
  verification: Omit<Verification, 'expectBody'>;
  /** Rule results one review gives. */
  ruleResultsPerReview: number;
  coverage: PointCoverage[];
  /** CPU the in-memory API server's process used during the measured points, as a share of one core. */
  apiServerCpu: number;
  rows: LoadPoint[];
  /** Webhook / bare requests per second at 50 connections: with the audits done, and answers alone. */
  throughputRatio: number;
  answersRatio: number;
  p99Ratio: number;
}

export interface Verification {
  /** The exact answer both servers gave, which every measured response must equal. */
  expectBody: string;
  /** Policies the controller evaluated for the review (from its metrics), by validation mode. */
  evaluated: Record<string, string[]>;
  /** Policies it picked for the review but never evaluated. */
  missing: string[];
  /** Its rule results for the review, by result. */
  ruleResults: Record<string, number>;
}

/**
 * Checks before measuring: every PSS policy is in the controller's cache and picked for this Pod
 * CREATE; both servers give the very same answer to the review; and which policies the review
 * evaluated, from the controller's own metrics (audit-only policies run after the answer, as in
 * Kyverno, so their results are waited for).
 */
async function verify(
  cluster: ClusterReport,
  controller: ControllerReport,
  bare: BareReport,
  review: string,
  metrics: ControllerMetrics,
): Promise<Verification> {
  const expected = cluster.policies.length;
  if (controller.invalidPolicies.length > 0)
    throw new Error(`the controller refused policies: ${controller.invalidPolicies.join(' | ')}`);
  if (controller.cachedPolicies.length !== expected || controller.podCreatePolicies !== expected)
    throw new Error(
      `expected ${expected} policies for a Pod CREATE, the controller has ${controller.cachedPolicies.length} cached and picks ${controller.podCreatePolicies}`,
    );
  const ca = controller.caBundlePem;
  const webhook = await httpsCall(controller.port, ca, WEBHOOK_PATH, review);
  const plain = await httpsCall(bare.port, ca, WEBHOOK_PATH, review);
  for (const [name, answer] of [
    ['webhook', webhook],
    ['bare endpoint', plain],
  ] as const)
    if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${answer.body}`);
  if (!deepEqual(JSON.parse(webhook.body) as JsonValue, JSON.parse(plain.body) as JsonValue))
    throw new Error(`the answers differ:\n  webhook: ${webhook.body}\n  bare:    ${plain.body}`);
  if (webhook.body !== plain.body) throw new Error(`same answer, different bytes: ${webhook.body} / ${plain.body}`);

  await metrics.settle();
  const seen = policyResults(await metrics.text());
  const evaluated: Record<string, string[]> = {};
  for (const [policy, mode] of seen.policies) (evaluated[mode] ??= []).push(policy);
  return {
    expectBody: webhook.body.replace(/"uid":"[^"]*"/, '"uid":"[<id>]"'),
    evaluated,
    missing: cluster.policies.filter((name) => !seen.policies.has(name)),
    ruleResults: seen.results,
  };
}

function pointCoverage(connections: number, before: ControllerTotals, after: ControllerTotals): PointCoverage {
  const reviews = after.reviews - before.reviews;
  return {
    connections,
    reviews,
    ruleResultsPerReview: (after.ruleResults - before.ruleResults) / reviews,
    auditDropped: after.auditDropped - before.auditDropped,
  };
}

/** The review with autocannon's per-request id in place of its uid. */
function withUidPlaceholder(review: string): string {
  const parsed = JSON.parse(review) as { request: { uid: string } };
  parsed.request.uid = '[<id>]';
  return JSON.stringify(parsed);
}

export async function runWebhookSuite(seconds: number, warmupSeconds: number): Promise<WebhookSuite> {
  const review = reviewText();
  const started: BenchChild<unknown>[] = [];
  const start = async <R>(role: string, input: unknown) => {
    const child = await BenchChild.start<R>(role, input);
    started.push(child as BenchChild<unknown>);
    return child;
  };
  try {
    const cluster = await start<ClusterReport>('cluster', {});
    const controller = await start<ControllerReport>('controller', cluster.report);
    const bare = await start<BareReport>('bare', {
      keyPem: controller.report.keyPem,
      certChainPem: controller.report.certChainPem,
      bodyLimit: controller.report.maxBodyBytes,
    });
    const metrics = new ControllerMetrics(controller.report.port, controller.report.caBundlePem);
    const { expectBody, ...verification } = await verify(
      cluster.report,
      controller.report,
      bare.report,
      review,
      metrics,
    );

    const policies = cluster.report.policies.length;
    const webhookTarget: LoadTarget = {
      name:
        verification.missing.length === 0
          ? `webhook, ${policies} PSS policies`
          : `webhook, ${policies - verification.missing.length} of ${policies} PSS policies run`,
      port: controller.report.port,
      process: controller as BenchChild<unknown>,
      settle: async () => (await metrics.settle()).waitedMs,
    };
    const bareTarget: LoadTarget = {
      name: 'bare Fastify, no policies',
      port: bare.report.port,
      process: bare as BenchChild<unknown>,
    };
    const load = (connections: number): LoadOptions => ({
      path: WEBHOOK_PATH,
      body: withUidPlaceholder(review),
      expectBody,
      servername: BENCH_SERVER_NAME,
      connections,
    });

    // Warm-up: JIT, policy caches, connection pools; not recorded.
    const targets = [bareTarget, webhookTarget];
    await runLoadPoints(targets, load(THROUGHPUT_CONNECTIONS), warmupSeconds, 1);
    const rows: LoadPoint[] = [];
    const coverage: PointCoverage[] = [];
    const apiServerCpuBefore = await cluster.cpuMicros();
    const measuring = performance.now();
    for (const connections of [THROUGHPUT_CONNECTIONS, LATENCY_CONNECTIONS]) {
      const before = await metrics.totals();
      rows.push(...(await runLoadPoints(targets, load(connections), seconds, SLICES)));
      coverage.push(pointCoverage(connections, before, await metrics.totals()));
    }
    const apiServerCpu = ((await cluster.cpuMicros()) - apiServerCpuBefore) / ((performance.now() - measuring) * 1000);

    const [bare50, webhook50, bare10, webhook10] = rows as [LoadPoint, LoadPoint, LoadPoint, LoadPoint];
    return {
      layout:
        `controller and bare endpoint each in a child process, autocannon in the bench process, the in-memory API ` +
        `server in a third process (not in the request path: reviews are POSTed straight to ${WEBHOOK_PATH}); ` +
        `every review has its own uid; the controller's audit and report queues and its report cap are ` +
        `${AUDIT_QUEUE_SIZE.toLocaleString('en-US')} so no audit or admission report is dropped`,
      policies,
      slices: SLICES,
      verification,
      ruleResultsPerReview: Object.values(verification.ruleResults).reduce((sum, count) => sum + count, 0),
      coverage,
      apiServerCpu,
      rows,
      throughputRatio: webhook50.requestsPerSecond / bare50.requestsPerSecond,
      answersRatio: webhook50.answersPerSecond / bare50.answersPerSecond,
      p99Ratio: webhook10.p99Ms / bare10.p99Ms,
    };
  } finally {
    for (const child of started.reverse()) await child.stop().catch(() => undefined);
  }
}

/**
 * The admission webhook over HTTPS with keep-alive, evaluating on its main thread and with review
 * workers, next to a bare Fastify HTTPS endpoint answering the same review without policies,
 * measured in the same run with the same load.
 *
 * Layout on the machine: the two controllers and the bare endpoint each run in a child process,
 * autocannon runs in this process, and each controller has an in-memory API server of its own in
 * another process. The API servers are not in the request path: reviews go straight to the controller's
 * `/validate/fail`, as the API server's webhook call would, and the controller reads its 17
 * policies from the cache its informers filled through the API.
 */
import { deepEqual, type JsonValue } from '@edict/foundation';
import { reviewText } from './admission-suite';
import { BenchChild } from './child-process';
import { ControllerMetrics, policyResults, type ControllerTotals } from './controller-metrics';
import { httpsCall } from './https-call';
import { runLoadPoints, type LoadOptions, type LoadPoint, type LoadTarget } from './load';
import {
  AUDIT_QUEUE_SIZE,
  BENCH_SERVER_NAME,
  type BareReport,
  type ClusterInput,
  type ClusterReport,
  type ControllerInput,
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
  name: string;
  connections: number;
  reviews: number;
  ruleResultsPerReview: number;
  /** Rule results one review alone gives this webhook (checked before measuring). */
  ruleResultsAlone: number;
  /** Reviews whose audit work the controller dropped (its bounded audit queue was full). */
  auditDropped: number;
  /** Reviews that held their answer for the audit backlog (backpressure; the controller's defaults). */
  backpressureHeld: number;
}

export interface WebhookSuite {
  /** How the processes were laid out, for the output. */
  layout: string;
  policies: number;
  slices: number;
  verification: Omit<Verification, 'expectBody'>;
  /** Rule results one review gives. */
  ruleResultsPerReview: number;
  /** Per webhook (in-process, then with workers), per load point. */
  coverage: PointCoverage[];
  /** CPU the in-memory API servers' processes used during the measured points, as a share of one core. */
  apiServerCpu: number;
  rows: LoadPoint[];
  /** Review worker threads of the second controller (the first evaluates on its main thread). */
  reviewWorkers: number;
  ratios: WebhookRatios[];
}

/** One webhook's figures against the bare endpoint's. */
export interface WebhookRatios {
  name: string;
  /** Requests per second at 50 connections: with the audits done, and answers alone. */
  throughput: number;
  answers: number;
  /** p99 latency at 10 connections. */
  p99: number;
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
  bare: BareReport & { caBundlePem: string },
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
  const plain = await httpsCall(bare.port, bare.caBundlePem, WEBHOOK_PATH, review);
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

function pointCoverage(
  webhook: { target: LoadTarget; verification: Omit<Verification, 'expectBody'> },
  connections: number,
  before: ControllerTotals,
  after: ControllerTotals,
): PointCoverage {
  const reviews = after.reviews - before.reviews;
  return {
    name: webhook.target.name,
    connections,
    reviews,
    ruleResultsPerReview: (after.ruleResults - before.ruleResults) / reviews,
    ruleResultsAlone: ruleResultCount(webhook.verification),
    auditDropped: after.auditDropped - before.auditDropped,
    backpressureHeld: after.backpressureHeld - before.backpressureHeld,
  };
}

function ruleResultCount(verification: Pick<Verification, 'ruleResults'>): number {
  return Object.values(verification.ruleResults).reduce((sum, count) => sum + count, 0);
}

/**
 * The review with autocannon's per-request id in place of its uid and, unless `samePod`, in the
 * Pod's uid too: every request is then about a Pod of its own, as Pod creates are, so that work
 * merged per resource (admission reports) gains nothing the bench's repetition alone would give.
 */
function withUidPlaceholder(review: string, samePod: boolean): string {
  const parsed = JSON.parse(review) as { request: { uid: string; object: { metadata: { uid: string } } } };
  parsed.request.uid = '[<id>]';
  // A fixed prefix keeps the uid a valid label value (the report's resource.uid label) whatever the id.
  if (!samePod) parsed.request.object.metadata.uid = `5f0c1d2e-[<id>]`;
  return JSON.stringify(parsed);
}

/**
 * How the webhook suite is run ($EDICT_BENCH_SAME_POD, $EDICT_BENCH_REVIEW_WORKERS,
 * $EDICT_BENCH_WITHOUT_REPORTS, $EDICT_BENCH_WITHOUT_POLICIES).
 */
export interface WebhookSuiteOptions {
  /** Every review about the same Pod (its uid) instead of a Pod of its own. */
  samePod: boolean;
  /** Also measure the controller with review workers. */
  reviewWorkers: boolean;
  /** Also measure the in-process controller with admission reports off: what writing them costs. */
  withoutReports: boolean;
  /**
   * Also measure the in-process controller with no policy in its cluster: the review still goes
   * through TLS, Fastify, parsing, checks, the policy lookup and the answer, but no policy applies.
   * What the controller costs before any policy work: the ceiling of the webhook's ratios.
   */
  withoutPolicies: boolean;
}

export function webhookSuiteOptionsFromEnv(env: NodeJS.ProcessEnv): WebhookSuiteOptions {
  const flag = (name: string, fallback: boolean): boolean => {
    const value = env[name];
    if (value === undefined || value === '') return fallback;
    if (value === 'true' || value === 'false') return value === 'true';
    throw new Error(`${name} takes true or false, got "${value}"`);
  };
  return {
    samePod: flag('EDICT_BENCH_SAME_POD', false),
    reviewWorkers: flag('EDICT_BENCH_REVIEW_WORKERS', true),
    withoutReports: flag('EDICT_BENCH_WITHOUT_REPORTS', false),
    withoutPolicies: flag('EDICT_BENCH_WITHOUT_POLICIES', false),
  };
}

export async function runWebhookSuite(
  seconds: number,
  warmupSeconds: number,
  options: WebhookSuiteOptions = { samePod: false, reviewWorkers: true, withoutReports: false, withoutPolicies: false },
): Promise<WebhookSuite> {
  const review = reviewText();
  const started: BenchChild<unknown>[] = [];
  const start = async <R>(role: string, input: unknown) => {
    const child = await BenchChild.start<R>(role, input);
    started.push(child as BenchChild<unknown>);
    return child;
  };
  try {
    // One API server per controller: a controller's informers watch the admission reports, and with
    // one server shared each would also parse the other's writes, the slower one paying most per review.
    const controllerOn = async (webhookWorkers: string, admissionReports: boolean, policies = true) => {
      const cluster = await start<ClusterReport>('cluster', { policies } satisfies ClusterInput);
      const input: ControllerInput = { ...cluster.report, webhookWorkers, admissionReports };
      return { cluster, controller: await start<ControllerReport>('controller', input) };
    };
    // The reference controller evaluates on its main thread; the second one spreads reviews over
    // review workers sized from the machine's cores (EDICT_WEBHOOK_WORKERS=auto); the third one
    // writes no admission reports; the last one has no policy at all.
    const servers = [
      await controllerOn('0', true),
      ...(options.reviewWorkers ? [await controllerOn('auto', true)] : []),
      ...(options.withoutReports ? [await controllerOn('0', false)] : []),
      ...(options.withoutPolicies ? [await controllerOn('0', true, false)] : []),
    ];
    const clusters = servers.map((server) => server.cluster);
    const [{ cluster, controller: inProcess }] = servers as [(typeof servers)[number]];
    const bare = await start<BareReport>('bare', {
      keyPem: inProcess.report.keyPem,
      certChainPem: inProcess.report.certChainPem,
      bodyLimit: inProcess.report.maxBodyBytes,
    });
    const policies = cluster.report.policies.length;
    const policyNote = (report: ClusterReport, missing: number): string => {
      if (report.policies.length === 0) return ', no policy';
      return missing === 0 ? `, ${policies} PSS policies` : `, ${policies - missing} of ${policies} PSS policies run`;
    };
    const webhooks = await Promise.all(
      servers.map(async ({ controller }, index) => {
        const metrics = new ControllerMetrics(controller.report.port, controller.report.caBundlePem);
        const { expectBody, ...verification } = await verify(
          clusters[index]!.report,
          controller.report,
          // The bare endpoint serves the in-process controller's certificate.
          { ...bare.report, caBundlePem: inProcess.report.caBundlePem },
          review,
          metrics,
        );
        const workers = controller.report.reviewWorkers;
        const target: LoadTarget = {
          name:
            (workers === 0 ? 'webhook, in-process' : `webhook, ${workers} review workers`) +
            (controller.report.admissionReports ? '' : ', admission reports off') +
            policyNote(clusters[index]!.report, verification.missing.length),
          port: controller.report.port,
          process: controller as BenchChild<unknown>,
          settle: async () => (await metrics.settle()).waitedMs,
        };
        return { target, metrics, verification, expectBody };
      }),
    );
    const [reference] = webhooks as [(typeof webhooks)[number]];
    const expectBody = reference.expectBody;
    const verification = reference.verification;
    if (webhooks.some((webhook) => webhook.expectBody !== expectBody))
      throw new Error('the in-process and the worker webhooks answer differently');
    const bareTarget: LoadTarget = {
      name: 'bare Fastify, no policies',
      port: bare.report.port,
      process: bare as BenchChild<unknown>,
    };
    const load = (connections: number): LoadOptions => ({
      path: WEBHOOK_PATH,
      body: withUidPlaceholder(review, options.samePod),
      expectBody,
      servername: BENCH_SERVER_NAME,
      connections,
    });

    // Warm-up: JIT, policy caches, connection pools; not recorded.
    const targets = [bareTarget, ...webhooks.map((webhook) => webhook.target)];
    await runLoadPoints(targets, load(THROUGHPUT_CONNECTIONS), warmupSeconds, 1);
    const rows: LoadPoint[] = [];
    const coverage: PointCoverage[] = [];
    const apiServersCpu = async () =>
      (await Promise.all(clusters.map((server) => server.cpuMicros()))).reduce((sum, micros) => sum + micros, 0);
    const apiServerCpuBefore = await apiServersCpu();
    const measuring = performance.now();
    for (const connections of [THROUGHPUT_CONNECTIONS, LATENCY_CONNECTIONS]) {
      const before = await Promise.all(webhooks.map((webhook) => webhook.metrics.totals()));
      rows.push(...(await runLoadPoints(targets, load(connections), seconds, SLICES)));
      for (const [index, webhook] of webhooks.entries())
        coverage.push(pointCoverage(webhook, connections, before[index]!, await webhook.metrics.totals()));
    }
    const apiServerCpu = ((await apiServersCpu()) - apiServerCpuBefore) / ((performance.now() - measuring) * 1000);

    const row = (name: string, connections: number) =>
      rows.find((point) => point.name === name && point.connections === connections)!;
    const ratios = webhooks.map(({ target: { name } }): WebhookRatios => {
      const [bare50, webhook50] = [row(bareTarget.name, THROUGHPUT_CONNECTIONS), row(name, THROUGHPUT_CONNECTIONS)];
      return {
        name,
        throughput: webhook50.requestsPerSecond / bare50.requestsPerSecond,
        answers: webhook50.answersPerSecond / bare50.answersPerSecond,
        p99: row(name, LATENCY_CONNECTIONS).p99Ms / row(bareTarget.name, LATENCY_CONNECTIONS).p99Ms,
      };
    });
    return {
      layout:
        `each controller and the bare endpoint in a child process of its own, autocannon in the bench process, ` +
        `an in-memory API server per controller in another process (not in the request path: reviews are POSTed straight to ` +
        `${WEBHOOK_PATH}); every review has its own uid and ${options.samePod ? 'is about the same Pod (EDICT_BENCH_SAME_POD)' : 'a Pod of its own (its uid)'}; the controllers' audit and report queues and their ` +
        `report cap are ${AUDIT_QUEUE_SIZE.toLocaleString('en-US')} so no audit or admission report is dropped; ` +
        `everything else at the controller's defaults (audit backpressure and its drain target included)`,
      policies,
      slices: SLICES,
      verification,
      ruleResultsPerReview: ruleResultCount(verification),
      coverage,
      apiServerCpu,
      rows,
      reviewWorkers:
        servers.find(({ controller }) => controller.report.reviewWorkers > 0)?.controller.report.reviewWorkers ?? 0,
      ratios,
    };
  } finally {
    for (const child of started.reverse()) await child.stop().catch(() => undefined);
  }
}

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
import { request as httpsRequest } from 'node:https';
import { deepEqual, type JsonValue } from '@edict/engine';
import { BenchChild } from './child-process';
import { reviewText } from './admission-suite';
import { runLoadPoints, type LoadOptions, type LoadPoint, type LoadTarget } from './load';
import { BENCH_SERVER_NAME, type BareReport, type ClusterReport, type ControllerReport } from './webhook-servers';

/** The path and query the API server calls a Fail webhook with (its timeout of 10 s). */
const WEBHOOK_PATH = '/validate/fail?timeout=10s';
const THROUGHPUT_CONNECTIONS = 50;
const LATENCY_CONNECTIONS = 10;
/** Turns each point's time is cut into, alternating between the two servers. */
const SLICES = 4;

export interface WebhookSuite {
  /** How the processes were laid out, for the output. */
  layout: string;
  policies: number;
  /** Turns each point was cut into. */
  slices: number;
  verification: Omit<Verification, 'expectBody'>;
  coverage: Coverage;
  /** CPU the in-memory API server's process used during the measured points, as a share of one core. */
  apiServerCpu: number;
  rows: LoadPoint[];
  throughputRatio: number;
  p99Ratio: number;
}

interface Answer {
  status: number;
  body: string;
}

/** One HTTPS call trusting only the controller's CA and checking the Service's name. */
function call(port: number, ca: string, path: string, payload?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpsRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: payload === undefined ? 'GET' : 'POST',
        ca,
        servername: BENCH_SERVER_NAME,
        agent: false,
        headers: payload === undefined ? {} : { 'content-type': 'application/json' },
      },
      (response) => {
        let body = '';
        response.setEncoding('utf8');
        response.on('data', (chunk: string) => (body += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body }));
      },
    );
    request.on('error', reject);
    request.end(payload);
  });
}

/** `kyverno_policy_results_total` lines → policies seen (with their validation mode) and counts by rule result. */
function policyResults(metrics: string): { policies: Map<string, string>; results: Record<string, number> } {
  const policies = new Map<string, string>();
  const results: Record<string, number> = {};
  for (const line of metrics.split('\n')) {
    if (!line.startsWith('kyverno_policy_results_total{')) continue;
    const label = (name: string) => new RegExp(`${name}="([^"]*)"`).exec(line)?.[1] ?? '?';
    const count = Number(line.slice(line.lastIndexOf(' ') + 1));
    policies.set(label('policy_name'), label('policy_validation_mode'));
    results[label('rule_result')] = (results[label('rule_result')] ?? 0) + count;
  }
  return { policies, results };
}

/** Sum of a metric's samples (all label sets); undefined when the metric is absent. */
function metricTotal(metrics: string, name: string): number | undefined {
  let total: number | undefined;
  for (const line of metrics.split('\n')) {
    if (line.startsWith(`${name}{`) || line.startsWith(`${name} `))
      total = (total ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return total;
}

export interface Coverage {
  /** Reviews the controller answered over the whole suite (probe, warm-ups, measurements). */
  reviews: number;
  /** Rule results it counted for them, once the work after the answers settled. */
  ruleResults: number;
  /** Rule results one review gives (the probe's). */
  expectedPerReview: number;
  /** Audit evaluations the controller dropped (its queue was full), when it reports them. */
  auditDropped?: number;
}

/** Waits for the controller's counts to stop moving (audits run after the answers), then reads them. */
async function coverage(controller: ControllerReport, expectedPerReview: number): Promise<Coverage> {
  const read = async () => (await call(controller.port, controller.caBundlePem, '/metrics')).body;
  let metrics = await read();
  const deadline = Date.now() + 30_000;
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const next = await read();
    const settled =
      metricTotal(next, 'kyverno_policy_results_total') === metricTotal(metrics, 'kyverno_policy_results_total');
    metrics = next;
    if (settled || Date.now() > deadline) break;
  }
  const dropped = metricTotal(metrics, 'edict_audit_queue_dropped');
  return {
    reviews: metricTotal(metrics, 'kyverno_admission_requests_total') ?? 0,
    ruleResults: metricTotal(metrics, 'kyverno_policy_results_total') ?? 0,
    expectedPerReview,
    ...(dropped === undefined ? {} : { auditDropped: dropped }),
  };
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
): Promise<Verification> {
  const expected = cluster.policies.length;
  if (controller.invalidPolicies.length > 0)
    throw new Error(`the controller refused policies: ${controller.invalidPolicies.join(' | ')}`);
  if (controller.cachedPolicies.length !== expected || controller.podCreatePolicies !== expected)
    throw new Error(
      `expected ${expected} policies for a Pod CREATE, the controller has ${controller.cachedPolicies.length} cached and picks ${controller.podCreatePolicies}`,
    );
  const ca = controller.caBundlePem;
  const webhook = await call(controller.port, ca, WEBHOOK_PATH, review);
  const plain = await call(bare.port, ca, WEBHOOK_PATH, review);
  for (const [name, answer] of [
    ['webhook', webhook],
    ['bare endpoint', plain],
  ] as const)
    if (answer.status !== 200) throw new Error(`${name} answered ${answer.status}: ${answer.body}`);
  if (!deepEqual(JSON.parse(webhook.body) as JsonValue, JSON.parse(plain.body) as JsonValue))
    throw new Error(`the answers differ:\n  webhook: ${webhook.body}\n  bare:    ${plain.body}`);
  if (webhook.body !== plain.body) throw new Error(`same answer, different bytes: ${webhook.body} / ${plain.body}`);

  let seen = policyResults('');
  const deadline = Date.now() + 5_000;
  do {
    await new Promise((resolve) => setTimeout(resolve, 100));
    seen = policyResults((await call(controller.port, ca, '/metrics')).body);
  } while (seen.policies.size < expected && Date.now() < deadline);
  const evaluated: Record<string, string[]> = {};
  for (const [policy, mode] of seen.policies) (evaluated[mode] ??= []).push(policy);
  return {
    expectBody: webhook.body,
    evaluated,
    missing: cluster.policies.filter((name) => !seen.policies.has(name)),
    ruleResults: seen.results,
  };
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
    const { expectBody, ...verification } = await verify(cluster.report, controller.report, bare.report, review);

    const policies = cluster.report.policies.length;
    const webhookTarget: LoadTarget = {
      name:
        verification.missing.length === 0
          ? `webhook, ${policies} PSS policies`
          : `webhook, ${policies - verification.missing.length} of ${policies} PSS policies run`,
      port: controller.report.port,
      process: controller as BenchChild<unknown>,
    };
    const bareTarget: LoadTarget = {
      name: 'bare Fastify, no policies',
      port: bare.report.port,
      process: bare as BenchChild<unknown>,
    };
    const load = (connections: number): LoadOptions => ({
      path: WEBHOOK_PATH,
      body: review,
      expectBody,
      servername: BENCH_SERVER_NAME,
      connections,
    });

    // Warm-up: JIT, policy caches, connection pools; not recorded.
    const targets = [bareTarget, webhookTarget];
    await runLoadPoints(targets, load(THROUGHPUT_CONNECTIONS), warmupSeconds, 1);
    const rows: LoadPoint[] = [];
    const apiServerCpuBefore = await cluster.cpuMicros();
    const measuring = performance.now();
    for (const connections of [THROUGHPUT_CONNECTIONS, LATENCY_CONNECTIONS])
      rows.push(...(await runLoadPoints(targets, load(connections), seconds, SLICES)));
    const apiServerCpu = ((await cluster.cpuMicros()) - apiServerCpuBefore) / ((performance.now() - measuring) * 1000);

    const ruleResultsPerReview = Object.values(verification.ruleResults).reduce((sum, count) => sum + count, 0);
    const covered = await coverage(controller.report, ruleResultsPerReview);

    const [bare50, webhook50, bare10, webhook10] = rows as [LoadPoint, LoadPoint, LoadPoint, LoadPoint];
    return {
      layout:
        `controller and bare endpoint each in a child process, autocannon in the bench process, the in-memory API ` +
        `server in a third process (not in the request path: reviews are POSTed straight to ${WEBHOOK_PATH})`,
      policies,
      slices: SLICES,
      verification,
      coverage: covered,
      apiServerCpu,
      rows,
      throughputRatio: webhook50.requestsPerSecond / bare50.requestsPerSecond,
      p99Ratio: webhook10.p99Ms / bare10.p99Ms,
    };
  } finally {
    for (const child of started.reverse()) await child.stop().catch(() => undefined);
  }
}

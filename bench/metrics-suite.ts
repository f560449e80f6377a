/**
 * The metric cardinality attack of issue 32 against a controller in its own process: `reviews`
 * AdmissionReviews sent straight to the webhook port, each naming a namespace nobody has and half of
 * them a kind nobody has, against the 17 PSS policies. Reported: /metrics size, series and scrape
 * time, the controller's RSS and heap, before and after, and the live namespace reads it made.
 */
import { Agent, request as httpsRequest } from 'node:https';
import { BenchChild } from './child-process';
import { httpsCall } from './https-call';
import {
  BENCH_SERVER_NAME,
  type ClusterInput,
  type ClusterReport,
  type ControllerInput,
  type ControllerReport,
} from './webhook-servers';

const CONCURRENCY = 16;

export interface MetricsFigures {
  readonly bytes: number;
  readonly series: number;
  readonly scrapeMs: number;
  readonly rssBytes: number;
  readonly heapBytes: number;
}

export interface MetricsSuite {
  readonly reviews: number;
  readonly seconds: number;
  readonly before: MetricsFigures;
  readonly after: MetricsFigures;
  readonly namespaceReads: number;
  readonly statuses: Record<string, number>;
}

function review(index: number): string {
  const namespace = `attacker-${index}`;
  const madeUp = index % 2 === 1;
  const kind = madeUp ? `Kind${index}` : 'Pod';
  const object = madeUp
    ? { apiVersion: 'v1', kind, metadata: { name: 'x', namespace } }
    : {
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name: 'x', namespace },
        spec: { containers: [{ name: 'app', image: 'nginx' }] },
      };
  return JSON.stringify({
    apiVersion: 'admission.k8s.io/v1',
    kind: 'AdmissionReview',
    request: {
      uid: `u-${index}`,
      kind: { group: '', version: 'v1', kind },
      resource: { group: '', version: 'v1', resource: madeUp ? `kind${index}s` : 'pods' },
      operation: 'CREATE',
      namespace,
      name: 'x',
      userInfo: { username: 'attacker' },
      object,
    },
  });
}

export async function runMetricsSuite(reviews: number): Promise<MetricsSuite> {
  const cluster = await BenchChild.start<ClusterReport>('cluster', { policies: true } satisfies ClusterInput);
  let controller: BenchChild<ControllerReport> | undefined;
  try {
    const input: ControllerInput = { ...cluster.report, webhookWorkers: '0', admissionReports: false };
    controller = await BenchChild.start<ControllerReport>('controller', input);
    const { port, caBundlePem: ca } = controller.report;
    const figures = async (): Promise<MetricsFigures> => {
      const started = performance.now();
      const text = (await httpsCall(port, ca, '/metrics')).body;
      const scrapeMs = performance.now() - started;
      const memory = await controller!.call<{ rss: number; heapUsed: number }>('memory');
      return {
        bytes: Buffer.byteLength(text),
        series: text.split('\n').filter((line) => line !== '' && !line.startsWith('#')).length,
        scrapeMs,
        rssBytes: memory.rss,
        heapBytes: memory.heapUsed,
      };
    };
    const agent = new Agent({ keepAlive: true, maxSockets: CONCURRENCY, ca, servername: BENCH_SERVER_NAME });
    const send = (payload: string) =>
      new Promise<number>((resolve, reject) => {
        const request = httpsRequest(
          {
            host: '127.0.0.1',
            port,
            path: '/validate/fail',
            method: 'POST',
            agent,
            headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(payload) },
          },
          (response) => {
            response.resume();
            response.on('end', () => resolve(response.statusCode ?? 0));
          },
        );
        request.on('error', reject);
        request.end(payload);
      });
    // A few ordinary reviews first, so that "before" has the ordinary series.
    for (let index = 0; index < 20; index += 1)
      await send(review(0).replaceAll('attacker-0', 'shop').replace('"u-0"', `"warm-${index}"`));
    const before = await figures();
    await cluster.call('recordRequests');
    const started = performance.now();
    const statuses: Record<string, number> = {};
    let next = 1;
    await Promise.all(
      Array.from({ length: CONCURRENCY }, async () => {
        while (next <= reviews) {
          const status = await send(review(next++));
          statuses[status] = (statuses[status] ?? 0) + 1;
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    agent.destroy();
    const after = await figures();
    const namespaceReads = await cluster.call<number>('namespaceReads', ['shop', 'edict']);
    return { reviews, seconds, before, after, namespaceReads, statuses };
  } finally {
    await controller?.stop();
    await cluster.stop();
  }
}

export function formatMetricsSuite(suite: MetricsSuite): string {
  const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  const kib = (bytes: number) => `${(bytes / 1024).toFixed(0)} KiB`;
  const row = (name: string, figures: MetricsFigures) =>
    `  ${name.padEnd(7)} /metrics ${kib(figures.bytes).padStart(9)}, ${String(figures.series).padStart(7)} samples, ` +
    `scrape ${figures.scrapeMs.toFixed(0).padStart(5)} ms; controller RSS ${mib(figures.rssBytes).padStart(10)}, ` +
    `heap ${mib(figures.heapBytes).padStart(10)}`;
  return [
    `Metric cardinality: ${suite.reviews} direct reviews with made-up namespaces (half with made-up kinds) in ` +
      `${suite.seconds.toFixed(1)} s, 17 PSS policies; answers ${JSON.stringify(suite.statuses)}`,
    row('before', suite.before),
    row('after', suite.after),
    `  live namespace reads: ${suite.namespaceReads}`,
    '',
  ].join('\n');
}

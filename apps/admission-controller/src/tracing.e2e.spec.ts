/**
 * Tracing (Kyverno's --enableTracing): with an OTLP collector stand-in on loopback (OTLP/HTTP JSON),
 * one admission review produces one trace: the review's ADMISSION span, under it one POLICY span per
 * policy evaluated, under each its RULE spans, with Kyverno's attribute keys; the resource names
 * the controller; the same when a review worker thread evaluates the review (its spans are replayed
 * under the review's). Off (the default), nothing is sent.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { eventually } from '@edict/kube/testing';
import { requireLabelPolicy, testPod, waitForWebhook } from '@edict/controller-runtime/testing';
import { startE2eCluster, type E2eCluster } from './testing/e2e-cluster';
import { ReviewWorkers } from './workers/review-workers';
import { PolicyCache } from '@edict/policy';

interface OtlpValue {
  stringValue?: string;
  boolValue?: boolean;
  intValue?: string | number;
}
interface OtlpSpan {
  traceId: string;
  spanId: string;
  parentSpanId?: string;
  name: string;
  attributes?: Array<{ key: string; value: OtlpValue }>;
}
interface Received {
  service: string | undefined;
  span: OtlpSpan;
}

/** Collects the spans POSTed to /v1/traces (OTLP/HTTP JSON). */
function collector(): Promise<{ server: Server; port: number; spans: Received[]; requests: () => number }> {
  const spans: Received[] = [];
  let requests = 0;
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      requests++;
      if (request.url === '/v1/traces' && request.method === 'POST') {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as {
          resourceSpans?: Array<{
            resource?: { attributes?: Array<{ key: string; value: OtlpValue }> };
            scopeSpans?: Array<{ spans?: OtlpSpan[] }>;
          }>;
        };
        for (const resourceSpans of body.resourceSpans ?? []) {
          const service = resourceSpans.resource?.attributes?.find(({ key }) => key === 'service.name')?.value
            .stringValue;
          for (const scope of resourceSpans.scopeSpans ?? [])
            for (const span of scope.spans ?? []) spans.push({ service, span });
        }
      }
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () =>
      resolve({ server, port: (server.address() as AddressInfo).port, spans, requests: () => requests }),
    ),
  );
}

const attribute = (span: OtlpSpan, key: string) => span.attributes?.find((entry) => entry.key === key)?.value;

describe('tracing over OTLP', () => {
  let cluster: E2eCluster;
  let otlp: Awaited<ReturnType<typeof collector>>;

  beforeAll(async () => {
    otlp = await collector();
    cluster = await startE2eCluster();
  });

  afterAll(async () => {
    await cluster?.stop();
    otlp?.server.close();
  });

  it.each([
    ['on the main thread', '0', 'traced'],
    ['on a review worker (its spans replayed under the review span)', '1', 'traced-by-worker'],
  ])(
    'one review gives one trace: its ADMISSION span, a POLICY span per policy evaluated, their RULE spans, %s',
    async (_where, webhookWorkers, podName) => {
      const controller = await cluster.startReplica({
        enableTracing: true,
        tracingAddress: '127.0.0.1',
        tracingPort: otlp.port,
        tracingProtocol: 'http/json',
        webhookWorkers,
      });
      let stopped = false;
      try {
        const workers = controller.app.get(ReviewWorkers);
        if (webhookWorkers !== '0') await eventually(() => workers.size === 1, 'the review worker ready', 30_000);
        const before = workers.counts();
        if (!cluster.apiServer.get('kyverno.io/v1', 'ClusterPolicy', 'require-team')) {
          await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-team', 'team'));
          await cluster.createClusterPolicy(requireLabelPolicy('Enforce', 'require-app', 'app'));
        }
        await waitForWebhook(cluster.apiServer, 'ValidatingWebhookConfiguration', 'validate.edict.svc-fail', 'pods');
        await eventually(() => controller.app.get(PolicyCache).policies().length === 2, 'both policies in the cache');
        await eventually(() => {
          try {
            return cluster.apiServer
              .list('kyverno.io/v1', 'ClusterPolicy')
              .every((policy) =>
                (
                  (policy as { status?: { conditions?: Array<{ type: string; status: string }> } }).status
                    ?.conditions ?? []
                ).some((condition) => condition.type === 'Ready' && condition.status === 'True'),
              );
          } catch {
            return false;
          }
        }, 'both policies Ready');
        await cluster.core.createNamespacedPod({
          namespace: 'default',
          body: testPod(podName, { team: 'a', app: 'b' }),
        });
        const after = workers.counts();
        // Where the review was decided: the test is about that path.
        expect(after.byWorkers - before.byWorkers).toBe(webhookWorkers === '0' ? 0 : 1);
        // Closing the controller exports what its batch still holds.
        await controller.stop();
        stopped = true;

        const admission = otlp.spans.filter(
          ({ span }) =>
            span.name === 'ADMISSION CREATE /v1, Kind=Pod' &&
            attribute(span, 'admission.request.name')?.stringValue === podName,
        );
        expect(admission).toHaveLength(1);
        const root = admission[0]!.span;
        expect(admission[0]!.service).toBe('edict-admission-controller');
        expect(root.parentSpanId ?? '').toBe('');
        expect(attribute(root, 'admission.request.namespace')?.stringValue).toBe('default');
        expect(attribute(root, 'admission.response.allowed')?.boolValue).toBe(true);

        const trace = otlp.spans.filter(({ span }) => span.traceId === root.traceId).map(({ span }) => span);
        const policies = trace.filter((span) => span.name.startsWith('POLICY '));
        expect(policies.map((span) => span.name).sort()).toEqual(['POLICY /require-app', 'POLICY /require-team']);
        for (const policy of policies) {
          expect(policy.parentSpanId).toBe(root.spanId);
          expect(attribute(policy, 'kyverno.policy.kind')?.stringValue).toBe('ClusterPolicy');
          const rules = trace.filter((span) => span.parentSpanId === policy.spanId);
          expect(rules.map((span) => span.name)).toEqual([
            `RULE check-${attribute(policy, 'kyverno.policy.name')?.stringValue === 'require-app' ? 'app' : 'team'}`,
          ]);
        }
      } finally {
        if (!stopped) await controller.stop();
      }
    },
    90_000,
  );

  it('off by default: a review sends nothing', async () => {
    const before = otlp.requests();
    const controller = await cluster.startReplica();
    await cluster.core.createNamespacedPod({
      namespace: 'default',
      body: testPod('untraced', { team: 'a', app: 'b' }),
    });
    await controller.stop();
    expect(otlp.requests()).toBe(before);
  });
});

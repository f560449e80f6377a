import { describe, expect, it } from 'vitest';
import type { ReadableSpan, SpanExporter } from '@opentelemetry/sdk-trace-base';
import { SpanRecorder } from '@edict/foundation';
import { startOtelTracing } from './otel-tracing';

describe('startOtelTracing replay', () => {
  it('records a recorder’s spans under the current span, with their times, attributes, nesting and status', async () => {
    const spans: ReadableSpan[] = [];
    const exporter: SpanExporter = {
      export: (batch, done) => {
        spans.push(...batch);
        done({ code: 0 });
      },
      shutdown: async () => undefined,
    };
    const tracing = startOtelTracing({ serviceName: 'test', endpoint: 'unused:1', protocol: 'http/json', exporter });
    let clock = Date.UTC(2026, 10, 30);
    const recorder = new SpanRecorder(() => (clock += 5));
    await recorder.span('POLICY /a', { 'kyverno.policy.name': 'a' }, async () => {
      await recorder.span('RULE r', { 'kyverno.rule.name': 'r' }, async () => undefined);
      await recorder.span('RULE bad', {}, async () => Promise.reject(new Error('boom'))).catch(() => undefined);
    });
    const recorded = recorder.take();
    tracing.span('ADMISSION CREATE /v1, Kind=Pod', {}, () => tracing.replay!(recorded));
    await tracing.shutdown();

    const byName = new Map(spans.map((span) => [span.name, span]));
    const root = byName.get('ADMISSION CREATE /v1, Kind=Pod')!;
    const policy = byName.get('POLICY /a')!;
    expect(policy.parentSpanContext?.spanId).toBe(root.spanContext().spanId);
    expect(policy.spanContext().traceId).toBe(root.spanContext().traceId);
    expect(policy.attributes).toEqual({ 'kyverno.policy.name': 'a' });
    expect(policy.startTime).toEqual([Math.floor(recorded[0]!.startMs / 1000), (recorded[0]!.startMs % 1000) * 1e6]);
    for (const name of ['RULE r', 'RULE bad'])
      expect(byName.get(name)!.parentSpanContext?.spanId).toBe(policy.spanContext().spanId);
    expect(byName.get('RULE r')!.status).toEqual({ code: 1 });
    expect(byName.get('RULE bad')!.status).toEqual({ code: 2, message: 'boom' });
  });
});

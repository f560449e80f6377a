import { describe, expect, it } from 'vitest';
import { BackgroundMetrics } from './background-metrics';

describe('BackgroundMetrics', () => {
  it("exposes Kyverno's controller counters with its names, types and labels", async () => {
    const metrics = new BackgroundMetrics();
    metrics.reconciled();
    metrics.reconciled();
    metrics.requeued(1);
    metrics.requeued(2);
    metrics.requeued(2);
    metrics.dropped();
    const text = await metrics.text();
    for (const name of [
      'kyverno_controller_reconcile_total',
      'kyverno_controller_requeue_total',
      'kyverno_controller_drop_total',
    ])
      expect(text).toContain(`# TYPE ${name} counter`);
    expect(text).toContain('kyverno_controller_reconcile_total{controller_name="background"} 2');
    expect(text).toContain('kyverno_controller_requeue_total{controller_name="background",num_requeues="1"} 1');
    expect(text).toContain('kyverno_controller_requeue_total{controller_name="background",num_requeues="2"} 2');
    expect(text).toContain('kyverno_controller_drop_total{controller_name="background"} 1');
  });

  it('prefixes what Kyverno has no metric for with edict_', async () => {
    const metrics = new BackgroundMetrics();
    metrics.processed('completed');
    metrics.queueDepth.set(3);
    const text = await metrics.text();
    expect(text).toContain('edict_update_requests_processed_total{outcome="completed"} 1');
    expect(text).toContain('edict_background_queue_depth 3');
    const own = [...text.matchAll(/^# TYPE (\S+)/gm)].map((match) => match[1]!);
    const unprefixed = own.filter((name) => !/^(kyverno_|edict_|process_|nodejs_)/.test(name));
    expect(unprefixed).toEqual([]);
  });
});

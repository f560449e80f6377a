import { afterEach, describe, expect, it } from 'vitest';
import { KubeApiError } from '../errors/kube-api-error';
import { EventRecorder, type EventRecorderOptions } from './event-recorder';
import type { EventInput, EventSink, KubeEvent } from './event-types';

class FakeSink implements EventSink {
  readonly created: KubeEvent[] = [];
  readonly series: KubeEvent[] = [];
  failures: unknown[] = [];
  drops = 0;
  dropped() {
    this.drops += 1;
  }
  async create(event: KubeEvent) {
    if (this.failures.length > 0) throw this.failures.shift();
    this.created.push(event);
  }
  async updateSeries(event: KubeEvent) {
    if (this.failures.length > 0) throw this.failures.shift();
    this.series.push(event);
  }
}

const violation = (
  name = 'require-team',
  note = 'Pod default/web: [check-team] fail (blocked); label required',
): EventInput => ({
  regarding: { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name, uid: 'pol-uid' },
  related: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default' },
  type: 'Warning',
  reason: 'PolicyViolation',
  action: 'Resource Blocked',
  note,
});

const recorders: EventRecorder[] = [];
function recorder(sink: EventSink, options: Partial<EventRecorderOptions> = {}) {
  const created = new EventRecorder(sink, {
    reportingController: 'kyverno-admission',
    reportingInstance: 'kyverno-admission-host',
    ...options,
  });
  recorders.push(created);
  return created;
}

afterEach(async () => {
  await Promise.all(recorders.splice(0).map((r) => r.stop()));
});

describe('EventRecorder', () => {
  it('writes an events.k8s.io/v1 Event with the controller, references, reason, action, type and note', async () => {
    const sink = new FakeSink();
    const now = new Date('2024-05-01T10:00:00.123Z');
    const events = recorder(sink, { now: () => now });
    expect(events.record(violation())).toBe(true);
    expect(await events.flush(1_000)).toBe(true);
    expect(sink.created).toHaveLength(1);
    const event = sink.created[0]!;
    expect(event).toMatchObject({
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { namespace: 'default' },
      eventTime: '2024-05-01T10:00:00.123000Z',
      reportingController: 'kyverno-admission',
      reportingInstance: 'kyverno-admission-host',
      action: 'Resource Blocked',
      reason: 'PolicyViolation',
      type: 'Warning',
      regarding: { apiVersion: 'kyverno.io/v1', kind: 'ClusterPolicy', name: 'require-team', uid: 'pol-uid' },
      related: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default' },
      note: 'Pod default/web: [check-team] fail (blocked); label required',
    });
    expect(event.metadata.name).toMatch(/^require-team\.[0-9a-f]+$/);
    expect(event.series).toBeUndefined();
  });

  it('puts a namespaced object’s events in its namespace', async () => {
    const sink = new FakeSink();
    const events = recorder(sink);
    events.record({ ...violation(), regarding: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'team-a' } });
    await events.flush(1_000);
    expect(sink.created[0]!.metadata.namespace).toBe('team-a');
  });

  it('aggregates a storm of identical events into one Event with a series count', async () => {
    const sink = new FakeSink();
    const events = recorder(sink, { seriesFlushMs: 60_000 });
    for (let i = 0; i < 500; i += 1) events.record(violation());
    expect(await events.flush(1_000)).toBe(true);
    // One create (with the series already started) and at most one series update: never 500 writes.
    expect(sink.created.length + sink.series.length).toBeLessThanOrEqual(2);
    const last = sink.series.at(-1) ?? sink.created.at(-1)!;
    expect(last.series?.count).toBe(500);
    expect(events.stats()).toMatchObject({ recorded: 500, aggregated: 499, dropped: 0 });
  });

  it('writes later occurrences of a series on flush, as a series update', async () => {
    const sink = new FakeSink();
    const events = recorder(sink, { seriesFlushMs: 60_000 });
    events.record(violation());
    await events.flush(1_000);
    events.record(violation());
    await events.flush(1_000);
    events.record(violation());
    events.record(violation());
    await events.flush(1_000);
    expect(sink.created).toHaveLength(1);
    expect(sink.series.map((e) => e.series?.count)).toEqual([2, 4]);
  });

  it('keeps distinct events apart (another policy, reason or related object)', async () => {
    const sink = new FakeSink();
    const events = recorder(sink);
    events.record(violation('a'));
    events.record(violation('b'));
    events.record({ ...violation('a'), related: { kind: 'Pod', name: 'other', namespace: 'default' } });
    await events.flush(1_000);
    expect(sink.created).toHaveLength(3);
  });

  it('drops and counts new distinct events beyond the pending bound, never queueing without end', () => {
    const sink = new FakeSink();
    const events = recorder(sink, { maxPending: 3, writesPerSecond: 1, burst: 1 });
    const accepted = Array.from({ length: 10 }, (_, i) => events.record(violation(`p${i}`)));
    expect(accepted.filter(Boolean).length).toBeLessThanOrEqual(4);
    expect(events.stats().dropped).toBeGreaterThanOrEqual(6);
  });

  it('rate-limits writes with its token bucket', async () => {
    const sink = new FakeSink();
    // A token every 100 ms: none can come back between the records and the check, even on a busy machine.
    const events = recorder(sink, { writesPerSecond: 10, burst: 2 });
    for (let i = 0; i < 5; i += 1) events.record(violation(`p${i}`));
    await new Promise((resolve) => setImmediate(resolve));
    expect(sink.created.length).toBeLessThanOrEqual(2);
    expect(await events.flush(2_000)).toBe(true);
    expect(sink.created).toHaveLength(5);
  });

  it('retries transient failures, gives up on refusals, and recreates an expired series event', async () => {
    const sink = new FakeSink();
    const failures: unknown[] = [];
    const events = recorder(sink, { onError: (error) => failures.push(error) });
    sink.failures.push(new KubeApiError(503, 'ServiceUnavailable', 'busy'));
    events.record(violation('a'));
    await events.flush(2_000);
    expect(sink.created.map((e) => e.regarding.name)).toEqual(['a']);
    sink.failures.push(new KubeApiError(422, 'Invalid', 'bad event'));
    events.record(violation('b'));
    await events.flush(2_000);
    expect(failures).toHaveLength(1);
    sink.failures.push(new KubeApiError(404, 'NotFound', 'gone'));
    events.record(violation('a'));
    await events.flush(2_000);
    expect(sink.created.filter((e) => e.regarding.name === 'a').at(-1)?.series?.count).toBe(2);
  });

  it("tells its sink of each event it gives up on, as Kyverno's kyverno_events_dropped_total counts them", async () => {
    const sink = new FakeSink();
    const events = recorder(sink, { maxPending: 3, writesPerSecond: 1, burst: 1 });
    const accepted = Array.from({ length: 10 }, (_, i) => events.record(violation(`p${i}`)));
    expect(sink.drops).toBe(accepted.filter((kept) => !kept).length);
    expect(sink.drops).toBeGreaterThan(0);
    // Not written after its retries: dropped; its object gone (404) or no name yet: not counted.
    const failing = new FakeSink();
    const writer = recorder(failing, { attempts: 1 });
    failing.failures.push(new KubeApiError(403, 'Forbidden', 'no'));
    writer.record(violation('refused'));
    await writer.flush(2_000);
    failing.failures.push(new KubeApiError(404, 'NotFound', 'no namespace'));
    writer.record(violation('gone'));
    await writer.flush(2_000);
    writer.record({ ...violation(), regarding: { kind: 'Pod', name: '' } });
    expect(failing.drops).toBe(1);
    expect(writer.stats().failed).toBe(2);
    await events.stop();
    await writer.stop();
  });

  it('skips objects without a name and cuts notes to the API limit', async () => {
    const sink = new FakeSink();
    const events = recorder(sink);
    expect(events.record({ ...violation(), regarding: { kind: 'Pod', name: '' } })).toBe(false);
    events.record(violation('long', 'é'.repeat(2_000)));
    await events.flush(1_000);
    const note = sink.created[0]!.note;
    expect(Buffer.byteLength(note)).toBeLessThanOrEqual(1024);
    expect(note.endsWith('...')).toBe(true);
  });

  it('records nothing after stop', async () => {
    const sink = new FakeSink();
    const events = recorder(sink);
    await events.stop();
    expect(events.record(violation())).toBe(false);
  });
});

// The Event columns of kube's printers, for core v1 Events and the events.k8s.io/v1 view of them.
import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { BUILTIN_TYPES } from '../registry/builtin-types';
import { printerFor } from './table';

const NOW = Date.parse('2026-01-01T00:10:00Z');
const coreType = BUILTIN_TYPES.find((type) => type.group === '' && type.plural === 'events')!;
const v1Type = BUILTIN_TYPES.find((type) => type.group === 'events.k8s.io' && type.plural === 'events')!;

const coreEvent = (fields: JsonObject): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Event',
  metadata: { name: 'web.1', namespace: 'default', creationTimestamp: '2026-01-01T00:00:00Z' },
  involvedObject: { kind: 'Pod', name: 'web', namespace: 'default', fieldPath: 'spec.containers{web}' },
  type: 'Warning',
  reason: 'Failed',
  message: '  Error: ImagePullBackOff\n',
  source: { component: 'kubelet', host: 'node-1' },
  firstTimestamp: '2026-01-01T00:00:00Z',
  lastTimestamp: '2026-01-01T00:09:00Z',
  count: 4,
  ...fields,
});

describe('Event table', () => {
  it("has kube's columns: LAST SEEN, TYPE, REASON, OBJECT, MESSAGE, and the wide ones at priority 1", () => {
    const columns = printerFor(coreType).columns.map((c) => `${c.name}${c.priority ? '*' : ''}`);
    expect(columns).toEqual([
      'Last Seen',
      'Type',
      'Reason',
      'Object',
      'Subobject*',
      'Source*',
      'Message',
      'First Seen*',
      'Count*',
      'Name*',
    ]);
    expect(printerFor(v1Type).columns).toEqual(printerFor(coreType).columns);
  });

  it('prints kind/name in lower case, the source with its host, the trimmed message and the count', () => {
    expect(printerFor(coreType).cells(coreEvent({}), NOW)).toEqual([
      '60s',
      'Warning',
      'Failed',
      'pod/web',
      'spec.containers{web}',
      'kubelet, node-1',
      'Error: ImagePullBackOff',
      '10m',
      4,
      'web.1',
    ]);
  });

  it('falls back to eventTime, the reporting controller, a count of 1 and the kind alone; a series wins', () => {
    const fresh = coreEvent({
      firstTimestamp: null,
      lastTimestamp: null,
      count: undefined as unknown as number,
      source: {},
      eventTime: '2026-01-01T00:08:00.000000Z',
      reportingComponent: 'edict-admission',
      reportingInstance: '',
      involvedObject: { kind: 'ClusterPolicy' },
    });
    const cells = printerFor(coreType).cells(fresh, NOW);
    expect(cells.slice(0, 4)).toEqual(['2m', 'Warning', 'Failed', 'clusterpolicy']);
    expect(cells.slice(5)).toEqual(['edict-admission', 'Error: ImagePullBackOff', '2m', 1, 'web.1']);
    const series = { ...fresh, series: { count: 7, lastObservedTime: '2026-01-01T00:09:30.000000Z' } };
    const withSeries = printerFor(coreType).cells(series, NOW);
    expect([withSeries[0], withSeries[8]]).toEqual(['30s', 7]);
    // Neither timestamp: kube prints <unknown>.
    const timeless = printerFor(coreType).cells({ ...fresh, eventTime: null }, NOW);
    expect([timeless[0], timeless[7]]).toEqual(['<unknown>', '<unknown>']);
  });

  it('prints an events.k8s.io/v1 Event from its regarding, note, deprecated fields and reporting controller', () => {
    const event: JsonObject = {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'cpol.2', namespace: 'default' },
      eventTime: '2026-01-01T00:05:00.000000Z',
      regarding: { kind: 'ClusterPolicy', name: 'require-labels' },
      note: 'policy require-labels/check-team fail',
      reason: 'PolicyViolation',
      type: 'Warning',
      reportingController: 'kyverno-admission',
      reportingInstance: 'kyverno-admission-abc',
      action: 'Resource Blocked',
    };
    expect(printerFor(v1Type).cells(event, NOW)).toEqual([
      '5m',
      'Warning',
      'PolicyViolation',
      'clusterpolicy/require-labels',
      '',
      'kyverno-admission, kyverno-admission-abc',
      'policy require-labels/check-team fail',
      '5m',
      1,
      'cpol.2',
    ]);
  });
});

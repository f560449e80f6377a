import { afterEach, describe, expect, it } from 'vitest';
import { openWatch, startServer, type Running } from '../testing/http';

let running: Running | undefined;
afterEach(async () => {
  await running?.server.stop();
  running = undefined;
});

const CORE = '/api/v1/namespaces/default/events';
const EVENTS_V1 = '/apis/events.k8s.io/v1/namespaces/default/events';
const REGARDING = { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace: 'default', uid: 'u1' };

describe('core v1 and events.k8s.io/v1 Events', () => {
  it('an events.k8s.io Event is served as a core Event with kube’s field mapping, and back', async () => {
    running = await startServer();
    const created = await running.request('POST', EVENTS_V1, {
      apiVersion: 'events.k8s.io/v1',
      kind: 'Event',
      metadata: { name: 'e1' },
      eventTime: '2026-01-01T00:00:00.000000Z',
      series: { count: 2, lastObservedTime: '2026-01-01T00:01:00.000000Z' },
      reportingController: 'kyverno-admission',
      reportingInstance: 'kyverno-admission-1',
      action: 'Resource Blocked',
      reason: 'PolicyViolation',
      regarding: REGARDING,
      note: 'blocked',
      type: 'Warning',
      deprecatedCount: 3,
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ apiVersion: 'events.k8s.io/v1', note: 'blocked', regarding: REGARDING });

    const core = await running.request('GET', `${CORE}/e1`);
    expect(core.body).toMatchObject({
      apiVersion: 'v1',
      kind: 'Event',
      involvedObject: REGARDING,
      message: 'blocked',
      reportingComponent: 'kyverno-admission',
      reportingInstance: 'kyverno-admission-1',
      reason: 'PolicyViolation',
      action: 'Resource Blocked',
      count: 3,
      series: { count: 2 },
      eventTime: '2026-01-01T00:00:00.000000Z',
    });
    expect(core.body.note).toBeUndefined();
    expect(core.body.regarding).toBeUndefined();
  });

  it('a core Event is listed and watched as events.k8s.io/v1', async () => {
    running = await startServer();
    const watch = await openWatch(`${running.url}${EVENTS_V1}?watch=true`);
    await running.request('POST', CORE, {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: { name: 'e2' },
      involvedObject: REGARDING,
      message: 'hello',
      source: { component: 'kubelet' },
      firstTimestamp: '2026-01-01T00:00:00Z',
      type: 'Normal',
      reason: 'Started',
    });
    const list = await running.request('GET', EVENTS_V1);
    expect(list.body.items).toEqual([
      expect.objectContaining({
        regarding: REGARDING,
        note: 'hello',
        deprecatedSource: { component: 'kubelet' },
        deprecatedFirstTimestamp: '2026-01-01T00:00:00Z',
      }),
    ]);
    const [event] = await watch.waitFor(1);
    expect(event).toMatchObject({ type: 'ADDED', object: { apiVersion: 'events.k8s.io/v1', note: 'hello' } });
    watch.close();
  });
});

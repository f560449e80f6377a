import { describe, expect, it } from 'vitest';
import type { AdmissionRequest, UpdateRequestSpec } from '@edict/admission';
import type { KubeObject } from '@edict/foundation';
import { FakeCluster } from '../testing/fake-cluster';
import { awaitsAdmittedChange } from './admitted-change';

const NOW = Date.parse('2026-11-28T12:00:10Z');
const options = { windowMs: 30_000, now: () => NOW };
const namespace = (uid = 'ns-uid', extra: Partial<NonNullable<KubeObject['metadata']>> = {}): KubeObject => ({
  apiVersion: 'v1',
  kind: 'Namespace',
  metadata: { name: 'team-a', uid, ...extra },
});

/** An UpdateRequest from a review of `operation` on Namespace team-a (uid ns-uid), created at `created`. */
function request(
  operation: 'CREATE' | 'UPDATE' | 'DELETE',
  admission: Partial<AdmissionRequest> | null = {},
  created = '2026-11-28T12:00:09Z',
) {
  const resource = { apiVersion: 'v1', kind: 'Namespace', name: 'team-a', uid: 'ns-uid' };
  const spec: UpdateRequestSpec = {
    requestType: 'generate',
    policy: 'default-deny',
    rule: 'deny-all',
    deleteDownstream: false,
    ruleContext: [{ rule: 'deny-all', deleteDownstream: false, trigger: resource }],
    resource,
    context: {
      userInfo: { userInfo: { username: 'alice' } },
      admissionRequestInfo: {
        operation,
        ...(admission ? { admissionRequest: { uid: 'review-1', operation, ...admission } as AdmissionRequest } : {}),
      },
    },
  };
  return { metadata: { creationTimestamp: created }, spec };
}

describe('awaitsAdmittedChange', () => {
  it('CREATE: waits until the trigger with its uid is stored', async () => {
    const cluster = new FakeCluster();
    expect(await awaitsAdmittedChange(request('CREATE'), cluster, options)).toBe(true);
    cluster.put(namespace('an-older-namesake'));
    expect(await awaitsAdmittedChange(request('CREATE'), cluster, options)).toBe(true);
    cluster.put(namespace());
    expect(await awaitsAdmittedChange(request('CREATE'), cluster, options)).toBe(false);
  });

  it('UPDATE: waits while the trigger has the old object resourceVersion', async () => {
    const cluster = new FakeCluster();
    const before = cluster.put(namespace());
    const update = request('UPDATE', { oldObject: before as AdmissionRequest['oldObject'] });
    expect(await awaitsAdmittedChange(update, cluster, options)).toBe(true);
    cluster.put({ ...before, metadata: { ...before.metadata, labels: { tier: 'gold' } } });
    expect(await awaitsAdmittedChange(update, cluster, options)).toBe(false);
  });

  it('DELETE: waits while the trigger is there and not being deleted', async () => {
    const cluster = new FakeCluster();
    cluster.put(namespace());
    expect(await awaitsAdmittedChange(request('DELETE'), cluster, options)).toBe(true);
    cluster.put(namespace('ns-uid', { deletionTimestamp: '2026-11-28T12:00:09Z' }));
    expect(await awaitsAdmittedChange(request('DELETE'), cluster, options)).toBe(false);
    cluster.objects.clear();
    expect(await awaitsAdmittedChange(request('DELETE'), cluster, options)).toBe(false);
  });

  it('stops waiting past the window (a change another webhook refused is never stored)', async () => {
    const cluster = new FakeCluster();
    expect(await awaitsAdmittedChange(request('CREATE', {}, '2026-11-28T11:59:40Z'), cluster, options)).toBe(false);
    expect(await awaitsAdmittedChange(request('CREATE', {}, '2026-11-28T11:59:41Z'), cluster, options)).toBe(true);
  });

  it("never waits for a policy's own request (no admission request), a subresource review, or no creation time", async () => {
    const cluster = new FakeCluster();
    expect(await awaitsAdmittedChange(request('CREATE', null), cluster, options)).toBe(false);
    expect(await awaitsAdmittedChange(request('CREATE', { subResource: 'status' }), cluster, options)).toBe(false);
    expect(await awaitsAdmittedChange({ ...request('CREATE'), metadata: {} }, cluster, options)).toBe(false);
    expect(cluster.reads).toEqual([]);
  });
});

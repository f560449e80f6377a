import { describe, expect, it } from 'vitest';
import type { AdmissionRequest, UpdateRequestSpec } from '@edict/admission';
import { FakeCluster } from '../testing/fake-cluster';
import { backgroundRequest, resolveTrigger, TriggerNotFoundError } from './background-request';

const secret = (name: string, labels: Record<string, string> = {}) => ({
  apiVersion: 'v1',
  kind: 'Secret',
  metadata: { name, namespace: 'shop', labels },
});

function spec(operation: 'CREATE' | 'UPDATE' | 'DELETE', admission?: Partial<AdmissionRequest>): UpdateRequestSpec {
  const resource = { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', name: 'key' };
  return {
    requestType: 'mutate',
    policy: 'p',
    rule: 'r',
    deleteDownstream: false,
    ruleContext: [{ rule: 'r', deleteDownstream: false, trigger: resource }],
    resource,
    context: {
      userInfo: { userInfo: { username: 'alice' }, clusterRoles: ['admin'] },
      admissionRequestInfo: {
        operation,
        ...(admission ? { admissionRequest: { uid: 'u1', operation, ...admission } as AdmissionRequest } : {}),
      },
    },
  };
}

describe('resolveTrigger', () => {
  it('finds a trigger named only by uid (requests made from a downstream object’s labels)', async () => {
    const cluster = new FakeCluster();
    cluster.put({ ...secret('other'), metadata: { ...secret('other').metadata, uid: 'uid-other' } });
    cluster.put({ ...secret('key'), metadata: { ...secret('key').metadata, uid: 'uid-key' } });
    const request = spec('CREATE');
    const byUid = { apiVersion: 'v1', kind: 'Secret', namespace: 'shop', uid: 'uid-key' };
    expect((await resolveTrigger(request, byUid, cluster, { preferCluster: true })).metadata?.name).toBe('key');
    await expect(
      resolveTrigger(request, { ...byUid, uid: 'uid-gone' }, cluster, { preferCluster: true }),
    ).rejects.toBeInstanceOf(TriggerNotFoundError);
  });

  it('reads the trigger as it is now, falling back to the admission request when it is gone', async () => {
    const cluster = new FakeCluster();
    cluster.put(secret('key', { now: 'yes' }));
    const request = spec('CREATE', { object: secret('key', { then: 'yes' }) });
    expect(
      (await resolveTrigger(request, request.resource, cluster, { preferCluster: true })).metadata?.labels,
    ).toEqual({ now: 'yes' });
    cluster.objects.clear();
    expect(
      (await resolveTrigger(request, request.resource, cluster, { preferCluster: true })).metadata?.labels,
    ).toEqual({ then: 'yes' });
  });

  it('takes the old object on DELETE and the admission object on UPDATE unless the cluster is preferred', async () => {
    const cluster = new FakeCluster();
    cluster.put(secret('key', { now: 'yes' }));
    const deleted = spec('DELETE', { oldObject: secret('key', { old: 'yes' }) });
    expect(
      (await resolveTrigger(deleted, deleted.resource, cluster, { preferCluster: true })).metadata?.labels,
    ).toEqual({ old: 'yes' });
    const updated = spec('UPDATE', { object: secret('key', { sent: 'yes' }) });
    expect(
      (await resolveTrigger(updated, updated.resource, cluster, { preferCluster: false })).metadata?.labels,
    ).toEqual({ sent: 'yes' });
  });

  it('fails naming the trigger when neither has it', async () => {
    const request = spec('CREATE');
    await expect(resolveTrigger(request, request.resource, new FakeCluster(), { preferCluster: true })).rejects.toThrow(
      new TriggerNotFoundError('trigger v1/Secret shop/key not found'),
    );
  });
});

describe('backgroundRequest', () => {
  it('puts the trigger in request.object, also on DELETE, with the requester and roles kept', () => {
    const trigger = secret('key');
    const request = backgroundRequest(spec('DELETE', { oldObject: trigger }), trigger, { team: 'a' });
    expect(request.operation).toBe('DELETE');
    expect(request.resource).toEqual(trigger);
    expect(request.oldResource).toEqual(trigger);
    expect((request.admissionRequest as Record<string, unknown>).object).toEqual(trigger);
    expect(request.user).toEqual({ userInfo: { username: 'alice' }, roles: [], clusterRoles: ['admin'] });
    expect(request.namespaceLabels).toEqual({ team: 'a' });
  });

  it('builds the request from the kept user info when there is no admission request', () => {
    const trigger = secret('key');
    const request = backgroundRequest(spec('CREATE'), trigger, undefined);
    expect(request).toEqual({
      operation: 'CREATE',
      resource: trigger,
      user: { userInfo: { username: 'alice' }, roles: [], clusterRoles: ['admin'] },
    });
  });
});

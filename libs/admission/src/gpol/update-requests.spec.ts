import { describe, expect, it } from 'vitest';
import type { AdmissionRequest } from '../review/types';
import { generatingPolicyRequests, type GeneratingPathPolicy } from './update-requests';

const policy = (name: string, extra: Partial<GeneratingPathPolicy> = {}): GeneratingPathPolicy => ({
  name,
  admission: true,
  synchronize: false,
  skipBackgroundRequests: true,
  ...extra,
});

const request = (extra: Partial<AdmissionRequest> = {}): AdmissionRequest => ({
  uid: 'req-1',
  kind: { group: '', version: 'v1', kind: 'ConfigMap' },
  resource: { group: '', version: 'v1', resource: 'configmaps' },
  namespace: 'team-a',
  name: 'cm',
  operation: 'CREATE',
  userInfo: { username: 'alice' },
  object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'team-a', uid: 'cm-uid' } },
  ...extra,
});

describe('generatingPolicyRequests', () => {
  it('makes one cel-generate request per policy the path names, with the trigger and the admission request', () => {
    const specs = generatingPolicyRequests(
      request(),
      [policy('a'), policy('b', { synchronize: true }), policy('c')],
      { names: ['a', 'b'] },
      { roles: { roles: ['team-a:dev'], clusterRoles: [] } },
    );
    expect(specs.map((spec) => spec.policy)).toEqual(['a', 'b']);
    const [first, second] = specs;
    expect(first).toMatchObject({
      requestType: 'cel-generate',
      ruleContext: [
        {
          rule: 'a',
          deleteDownstream: false,
          trigger: { apiVersion: 'v1', kind: 'ConfigMap', namespace: 'team-a', name: 'cm', uid: 'cm-uid' },
        },
      ],
      context: {
        userInfo: { userInfo: { username: 'alice' }, roles: ['team-a:dev'] },
        admissionRequestInfo: { operation: 'CREATE', admissionRequest: { uid: 'req-1' } },
      },
    });
    expect(second?.ruleContext[0]?.synchronize).toBe(true);
  });

  it('names a namespaced policy namespace/name and serves it only in its namespace', () => {
    const tenant = policy('gen', { namespace: 'team-a' });
    expect(generatingPolicyRequests(request(), [tenant], { names: ['gen'] }).map((s) => s.policy)).toEqual([
      'team-a/gen',
    ]);
    const elsewhere = request({
      namespace: 'team-b',
      object: { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cm', namespace: 'team-b' } },
    });
    expect(generatingPolicyRequests(elsewhere, [tenant], { names: ['gen'] })).toEqual([]);
  });

  it('makes none for dry runs, policies off at admission, and the background controller when skipped', () => {
    expect(generatingPolicyRequests(request({ dryRun: true }), [policy('a')], { names: ['a'] })).toEqual([]);
    expect(generatingPolicyRequests(request(), [policy('a', { admission: false })], { names: ['a'] })).toEqual([]);
    const background = request({ userInfo: { username: 'system:serviceaccount:kyverno:background' } });
    const options = { backgroundUsername: 'system:serviceaccount:kyverno:background' };
    expect(generatingPolicyRequests(background, [policy('a')], { names: ['a'] }, options)).toEqual([]);
    expect(
      generatingPolicyRequests(background, [policy('a', { skipBackgroundRequests: false })], { names: ['a'] }, options),
    ).toHaveLength(1);
  });
});

import { ObjectStore } from '@edict/apiserver';
import type { JsonObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { AuditTallyIndex } from './audit-tally';

const NAMESPACE = 'load';

function put(store: ObjectStore, groupResource: string, object: JsonObject): void {
  const metadata = { ...(object.metadata as JsonObject), resourceVersion: String(store.nextResourceVersion()) };
  store.put(groupResource, { ...object, metadata });
}

const pod = (uid: string, namespace = NAMESPACE): JsonObject => ({ metadata: { name: `pod-${uid}`, namespace, uid } });
const report = (uid: string, policies: string[]): JsonObject => ({
  metadata: { name: uid, namespace: NAMESPACE },
  results: policies.map((policy) => ({ policy, result: 'pass' })),
});

describe('AuditTallyIndex', () => {
  it('counts the policies missing from each Pod’s report as reports and Pods come and go', () => {
    const store = new ObjectStore();
    put(store, '/pods', pod('a'));
    put(store, 'wgpolicyk8s.io/policyreports', report('a', ['p1', 'p2', 'p2']));
    const index = new AuditTallyIndex(store, NAMESPACE);
    expect(index.tally()).toEqual({ pods: 1, expectedPolicies: 2, complete: 1, missingResults: 0, reportWrites: 0 });

    put(store, '/pods', pod('b'));
    put(store, '/pods', pod('elsewhere', 'other'));
    expect(index.tally()).toEqual({ pods: 2, expectedPolicies: 2, complete: 1, missingResults: 2, reportWrites: 0 });

    put(store, 'wgpolicyk8s.io/policyreports', report('b', ['p1']));
    put(store, 'wgpolicyk8s.io/policyreports', report('a', ['p1', 'p2', 'p3']));
    expect(index.tally()).toEqual({ pods: 2, expectedPolicies: 3, complete: 1, missingResults: 2, reportWrites: 2 });
    // A rewrite that changes no count still shows as a write.
    put(store, 'wgpolicyk8s.io/policyreports', report('a', ['p1', 'p2', 'p3']));
    expect(index.tally().reportWrites).toBe(3);

    store.remove('/pods', pod('b'));
    expect(index.tally()).toEqual({ pods: 1, expectedPolicies: 3, complete: 1, missingResults: 0, reportWrites: 3 });
    store.remove('wgpolicyk8s.io/policyreports', report('a', []));
    expect(index.tally()).toEqual({ pods: 1, expectedPolicies: 3, complete: 0, missingResults: 3, reportWrites: 4 });
    index.stop();
  });
});

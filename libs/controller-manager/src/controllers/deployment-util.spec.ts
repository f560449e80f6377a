// The Deployment controller's arithmetic: budgets, new ReplicaSet growth, proportions, hashes, annotations.
import type { JsonObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import {
  equalIgnoringHash,
  maxSurge,
  maxUnavailable,
  newReplicaSetAnnotations,
  newReplicaSetReplicas,
  proportion,
  templateHash,
} from './deployment-util';

function deployment(replicas: number, strategy?: JsonObject, annotations: Record<string, string> = {}): JsonObject {
  return { metadata: { name: 'web', annotations }, spec: { replicas, ...(strategy ? { strategy } : {}) } };
}

function replicaSet(name: string, replicas: number, annotations: Record<string, string> = {}): JsonObject {
  return {
    metadata: { name, annotations, creationTimestamp: `2020-01-0${name.length}T00:00:00Z` },
    spec: { replicas },
  };
}

const rolling = (maxSurge: number | string, maxUnavailable: number | string) => ({
  type: 'RollingUpdate',
  rollingUpdate: { maxSurge, maxUnavailable },
});

describe('Deployment budgets', () => {
  it('rounds the default 25% surge up and unavailability down', () => {
    expect([maxSurge(deployment(2)), maxUnavailable(deployment(2))]).toEqual([1, 0]);
    expect([maxSurge(deployment(10)), maxUnavailable(deployment(10))]).toEqual([3, 2]);
  });

  it('allows one unavailable replica when both budgets are zero, none for Recreate or zero replicas', () => {
    expect(maxUnavailable(deployment(3, rolling(0, 0)))).toBe(1);
    expect(maxUnavailable(deployment(3, rolling('0%', '0%')))).toBe(1);
    expect([
      maxSurge(deployment(3, { type: 'Recreate' })),
      maxUnavailable(deployment(3, { type: 'Recreate' })),
    ]).toEqual([0, 0]);
    expect(maxUnavailable(deployment(0))).toBe(0);
    expect(maxUnavailable(deployment(2, rolling(1, 5)))).toBe(2);
  });

  it('grows the new ReplicaSet only within the surge', () => {
    const d = deployment(10, rolling(3, 2));
    const old = replicaSet('old', 10);
    const fresh = replicaSet('fresh', 0);
    expect(newReplicaSetReplicas(d, [old, fresh], fresh)).toBe(3);
    expect(newReplicaSetReplicas(d, [replicaSet('old', 8), replicaSet('fresh', 3)], replicaSet('fresh', 3))).toBe(5);
    expect(newReplicaSetReplicas(deployment(4, { type: 'Recreate' }), [old, fresh], fresh)).toBe(4);
  });

  it('spreads a scale-up over active ReplicaSets in proportion to their sizes', () => {
    // kube's documented example: 8 old and 5 new replicas (10 + surge 3), scaled to 15.
    const d = deployment(15, rolling(3, 2));
    const annotations = { 'deployment.kubernetes.io/max-replicas': '13' };
    const old = replicaSet('old', 8, annotations);
    const fresh = replicaSet('fresh', 5, annotations);
    const toAdd = 15 + 3 - 13;
    const oldShare = proportion(old, d, toAdd, 0);
    expect([oldShare, proportion(fresh, d, toAdd, oldShare)]).toEqual([3, 2]);
    expect(proportion(old, deployment(0), -8, 0)).toBe(-8);
  });
});

describe('pod-template-hash', () => {
  const template = { metadata: { labels: { app: 'web' } }, spec: { containers: [{ name: 'c', image: 'nginx' }] } };

  it("is stable, in kube's safe alphabet, independent of key order and moved by the collision count", () => {
    const hash = templateHash(template, undefined);
    expect(hash).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]{1,10}$/);
    expect(templateHash({ spec: template.spec, metadata: template.metadata }, undefined)).toBe(hash);
    expect(templateHash(template, 1)).not.toBe(hash);
    expect(templateHash({ ...template, spec: { containers: [{ name: 'c', image: 'nginx:2' }] } }, undefined)).not.toBe(
      hash,
    );
  });

  it('compares templates without the hash label, empty and absent parts alike', () => {
    const hashed = { ...template, metadata: { labels: { app: 'web', 'pod-template-hash': 'abc' }, annotations: {} } };
    expect(equalIgnoringHash(hashed, template)).toBe(true);
    expect(equalIgnoringHash(hashed, { ...template, metadata: { labels: { app: 'api' } } })).toBe(false);
  });
});

describe('new ReplicaSet annotations', () => {
  it("copies the Deployment's annotations but its bookkeeping, and sets revision and replica annotations", () => {
    const d = deployment(2, undefined, {
      team: 'a',
      'deployment.kubernetes.io/revision': '4',
      'kubectl.kubernetes.io/last-applied-configuration': '{}',
    });
    expect(newReplicaSetAnnotations(d, replicaSet('rs', 0), 5, false)).toEqual({
      team: 'a',
      'deployment.kubernetes.io/revision': '5',
      'deployment.kubernetes.io/desired-replicas': '2',
      'deployment.kubernetes.io/max-replicas': '3',
    });
  });

  it('remembers the previous revision of a ReplicaSet rolled back to', () => {
    const rs = replicaSet('rs', 2, { 'deployment.kubernetes.io/revision': '1' });
    expect(newReplicaSetAnnotations(deployment(2), rs, 3, true)).toEqual({
      'deployment.kubernetes.io/revision': '3',
      'deployment.kubernetes.io/revision-history': '1',
    });
    expect(newReplicaSetAnnotations(deployment(2), rs, 1, true)).toEqual({ 'deployment.kubernetes.io/revision': '1' });
  });
});

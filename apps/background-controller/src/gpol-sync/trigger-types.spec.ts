import { describe, expect, it } from 'vitest';
import type { ServedType } from '@edict/kube';
import { triggerTypes } from './trigger-types';

const served = (apiVersion: string, resource: string, kind: string, namespaced: boolean): ServedType => {
  const slash = apiVersion.indexOf('/');
  return {
    apiVersion,
    group: slash < 0 ? '' : apiVersion.slice(0, slash),
    version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
    resource,
    kind,
    namespaced,
    verbs: [],
  };
};

const SERVED = [
  served('v1', 'namespaces', 'Namespace', false),
  served('v1', 'configmaps', 'ConfigMap', true),
  served('apps/v1', 'deployments', 'Deployment', true),
];

const rule = (
  apiGroups: string[],
  apiVersions: string[],
  resources: string[],
  scope?: '*' | 'Cluster' | 'Namespaced',
) => ({
  apiGroups,
  apiVersions,
  resources,
  operations: ['CREATE'],
  ...(scope ? { scope } : {}),
});

describe('triggerTypes', () => {
  it('names the served resources of the rules, by group, version and resource', () => {
    expect(triggerTypes({ resourceRules: [rule(['apps'], ['v1'], ['deployments'])] }, SERVED)).toEqual([
      { apiVersion: 'apps/v1', kind: 'Deployment', namespaced: true },
    ]);
    expect(triggerTypes({ resourceRules: [rule([''], ['v2'], ['configmaps'])] }, SERVED)).toEqual([]);
  });

  it('resolves wildcards and the scope, once per type; a subresource names none', () => {
    const all = triggerTypes(
      { resourceRules: [rule(['*'], ['*'], ['*']), rule([''], ['v1'], ['configmaps'])] },
      SERVED,
    );
    expect(all.map((type) => type.kind)).toEqual(['Namespace', 'ConfigMap', 'Deployment']);
    const namespaced = triggerTypes({ resourceRules: [rule(['*'], ['*'], ['*'], 'Namespaced')] }, SERVED);
    expect(namespaced.map((type) => type.kind)).toEqual(['ConfigMap', 'Deployment']);
    expect(triggerTypes({ resourceRules: [rule([''], ['v1'], ['pods/exec'])] }, SERVED)).toEqual([]);
  });
});

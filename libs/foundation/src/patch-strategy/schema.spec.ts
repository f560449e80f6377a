import { describe, expect, it } from 'vitest';
import { listStrategyFor, mergeKeyFor, schemaForResource } from './schema';

describe('mergeKeyFor', () => {
  it.each([
    ['v1', 'Pod', ['spec', 'containers'], 'name'],
    ['v1', 'Pod', ['spec', 'initContainers'], 'name'],
    ['v1', 'Pod', ['spec', 'ephemeralContainers'], 'name'],
    ['v1', 'Pod', ['spec', 'volumes'], 'name'],
    ['v1', 'Pod', ['spec', 'imagePullSecrets'], 'name'],
    ['v1', 'Pod', ['spec', 'hostAliases'], 'ip'],
    ['v1', 'Pod', ['spec', 'topologySpreadConstraints'], 'topologyKey'],
    ['v1', 'Pod', ['spec', 'containers', 'env'], 'name'],
    ['v1', 'Pod', ['spec', 'containers', '0', 'env'], 'name'],
    ['v1', 'Pod', ['spec', 'containers', 'ports'], 'containerPort'],
    ['v1', 'Pod', ['spec', 'containers', 'volumeMounts'], 'mountPath'],
    ['v1', 'Pod', ['spec', 'initContainers', 'volumeDevices'], 'devicePath'],
    ['v1', 'Pod', ['metadata', 'ownerReferences'], 'uid'],
    ['v1', 'Service', ['spec', 'ports'], 'port'],
    ['apps/v1', 'Deployment', ['spec', 'template', 'spec', 'containers'], 'name'],
    ['apps/v1', 'StatefulSet', ['spec', 'template', 'spec', 'volumes'], 'name'],
    ['apps/v1', 'DaemonSet', ['spec', 'template', 'spec', 'containers', 'env'], 'name'],
    ['batch/v1', 'Job', ['spec', 'template', 'spec', 'initContainers'], 'name'],
    [
      'batch/v1',
      'CronJob',
      ['spec', 'jobTemplate', 'spec', 'template', 'spec', 'containers', 'volumeMounts'],
      'mountPath',
    ],
  ])('%s %s %j merges by %s', (apiVersion, kind, path, key) => {
    expect(mergeKeyFor(apiVersion, kind, path)).toBe(key);
  });

  it.each([
    ['v1', 'Pod', ['spec', 'tolerations']],
    ['v1', 'Pod', ['spec', 'containers', 'envFrom']],
    ['v1', 'Pod', ['spec', 'containers', 'args']],
    ['v1', 'Pod', ['metadata', 'finalizers']],
    ['apps/v1', 'StatefulSet', ['spec', 'volumeClaimTemplates']],
    ['example.com/v1', 'Widget', ['spec', 'containers']],
    ['v1', 'Pod', ['spec', 'template', 'spec', 'containers']],
  ])('%s %s %j has no merge key', (apiVersion, kind, path) => {
    expect(mergeKeyFor(apiVersion, kind, path)).toBeUndefined();
  });

  it('describes sets of primitives and multi-key lists', () => {
    expect(listStrategyFor('v1', 'Pod', ['metadata', 'finalizers'])).toEqual({
      strategy: 'merge',
      mergeKey: undefined,
      keys: [],
      merges: true,
    });
    expect(listStrategyFor('v1', 'Pod', ['spec', 'containers', 'ports'])?.keys).toEqual(['containerPort', 'protocol']);
    expect(listStrategyFor('v1', 'Pod', ['spec', 'volumes'])).toMatchObject({
      strategy: 'merge,retainKeys',
      merges: true,
    });
  });

  it('knows only the built-in kinds', () => {
    expect(schemaForResource('v1', 'ConfigMap')).toBeDefined();
    expect(schemaForResource('kyverno.io/v1', 'ClusterPolicy')).toBeUndefined();
    expect(schemaForResource(undefined, 'Pod')).toBeUndefined();
  });
});

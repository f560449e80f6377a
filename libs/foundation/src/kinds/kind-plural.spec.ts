import { describe, expect, it } from 'vitest';
import { pluralOfKind } from './kind-plural';

describe('pluralOfKind', () => {
  it('follows the resource names of the usual kinds', () => {
    const kinds = ['Pod', 'Ingress', 'NetworkPolicy', 'Endpoints', 'Gateway', 'ConfigMap', 'StorageClass'];
    expect(kinds.map(pluralOfKind)).toEqual([
      'pods',
      'ingresses',
      'networkpolicies',
      'endpoints',
      'gateways',
      'configmaps',
      'storageclasses',
    ]);
  });

  // The admin evaluation input once left a kind ending in one `s` as it was and gave `z` a plain `s`;
  // the CLI's fake API server added `es`, as Kubernetes names ComponentStatus, Prometheus and the like.
  it('adds es to a kind ending in a single s, x, z, ch or sh', () => {
    const kinds = ['ComponentStatus', 'Prometheus', 'Quiz', 'Box', 'Patch', 'Mesh'];
    expect(kinds.map(pluralOfKind)).toEqual([
      'componentstatuses',
      'prometheuses',
      'quizes',
      'boxes',
      'patches',
      'meshes',
    ]);
  });

  it('keeps a kind ending in endpoints, and a vowel before y', () => {
    expect(['Endpoints', 'ServiceEndpoints', 'Key', 'Policy'].map(pluralOfKind)).toEqual([
      'endpoints',
      'serviceendpoints',
      'keys',
      'policies',
    ]);
  });
});

import { describe, expect, it } from 'vitest';
import type { ResolvedResource } from './resource-resolver';
import type { DiscoverySource } from './discovery-resolver';
import { servedTypes } from './served-types';

const served = (group: string, version: string, resource: string, kind: string): ResolvedResource => ({
  group,
  version,
  resource,
  kind,
  subresource: '',
  namespaced: true,
  verbs: ['get', 'list'],
});

/** Discovery that answers every selector with `found`, in order. */
function discoveryOf(found: readonly ResolvedResource[]): DiscoverySource {
  return { resolver: async () => () => found, invalidate: () => undefined };
}

describe('servedTypes', () => {
  it('gives one type per resource, in the first (preferred) version discovery names', async () => {
    const types = await servedTypes(
      discoveryOf([
        served('autoscaling', 'v2', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler'),
        served('autoscaling', 'v1', 'horizontalpodautoscalers', 'HorizontalPodAutoscaler'),
        served('', 'v1', 'pods', 'Pod'),
      ]),
      '*',
    );
    expect(types.map((type) => type.apiVersion)).toEqual(['autoscaling/v2', 'v1']);
    expect(types[1]).toEqual({
      apiVersion: 'v1',
      group: '',
      version: 'v1',
      resource: 'pods',
      kind: 'Pod',
      namespaced: true,
      verbs: ['get', 'list'],
    });
  });

  it('names nothing for a subresource selector', async () => {
    expect(await servedTypes(discoveryOf([served('', 'v1', 'pods', 'Pod')]), 'Pod/binding')).toEqual([]);
  });
});

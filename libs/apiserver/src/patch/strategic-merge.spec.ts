import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { dig } from '../testing/http';
import { applyStrategicMerge } from './strategic-merge';

const pod = (): JsonObject => ({
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', finalizers: ['a'], labels: { x: '1', y: '2' } },
  spec: {
    containers: [
      { name: 'app', image: 'app:1', ports: [{ containerPort: 80 }], args: ['--a'] },
      { name: 'side', image: 'side:1' },
    ],
    volumes: [{ name: 'v', emptyDir: {} }],
  },
});

const merge = (patch: unknown) => applyStrategicMerge(pod(), patch as never, 'v1', 'Pod');

describe('applyStrategicMerge (API server flavour)', () => {
  it('merges keyed lists by merge key, appending new elements and replacing unkeyed lists', () => {
    const result = merge({
      spec: {
        containers: [
          { name: 'app', image: 'app:2', args: ['--b'] },
          { name: 'new', image: 'n' },
        ],
      },
    });
    expect(result.spec).toMatchObject({
      containers: [
        { name: 'app', image: 'app:2', ports: [{ containerPort: 80 }], args: ['--b'] },
        { name: 'side', image: 'side:1' },
        { name: 'new', image: 'n' },
      ],
    });
  });

  it('deletes map keys with null and list elements with $patch: delete', () => {
    const result = merge({
      metadata: { labels: { x: null } },
      spec: { containers: [{ name: 'side', $patch: 'delete' }] },
    });
    expect(dig<Array<{ name: string }>>(result, 'metadata.labels')).toEqual({ y: '2' });
    expect(dig<Array<{ name: string }>>(result, 'spec.containers').map((c) => c.name)).toEqual(['app']);
  });

  it('honours $patch: replace on lists and maps', () => {
    const lists = merge({ spec: { containers: [{ name: 'only', image: 'o' }, { $patch: 'replace' }] } });
    expect(dig<Array<{ name: string }>>(lists, 'spec.containers')).toEqual([{ name: 'only', image: 'o' }]);
    const maps = merge({ metadata: { labels: { z: '3', $patch: 'replace' } } });
    expect(dig<Array<{ name: string }>>(maps, 'metadata.labels')).toEqual({ z: '3' });
    const deleted = merge({ metadata: { labels: { $patch: 'delete' } } });
    expect(dig<Array<{ name: string }>>(deleted, 'metadata.labels')).toBeUndefined();
  });

  it('takes the union of primitive merge lists and removes with $deleteFromPrimitiveList', () => {
    expect(dig(merge({ metadata: { finalizers: ['b', 'a'] } }), 'metadata.finalizers')).toEqual(['a', 'b']);
    expect(dig(merge({ metadata: { '$deleteFromPrimitiveList/finalizers': ['a'] } }), 'metadata.finalizers')).toEqual(
      [],
    );
  });

  it('ignores $setElementOrder, applies $retainKeys, and replaces lists of custom kinds', () => {
    const ordered = merge({
      spec: {
        '$setElementOrder/containers': [{ name: 'side' }, { name: 'app' }],
        containers: [{ name: 'app', image: 'x' }],
      },
    });
    expect(dig<Array<{ name: string }>>(ordered, 'spec.containers').map((c) => c.name)).toEqual(['app', 'side']);
    const retained = merge({
      spec: { volumes: [{ name: 'v', configMap: { name: 'c' }, $retainKeys: ['name', 'configMap'] }] },
    });
    expect(dig<Array<{ name: string }>>(retained, 'spec.volumes')).toEqual([{ name: 'v', configMap: { name: 'c' } }]);
    const custom = applyStrategicMerge(
      { spec: { items: [{ name: 'a' }] } },
      { spec: { items: [{ name: 'b' }] } },
      'example.com/v1',
      'Widget',
    );
    expect(custom).toEqual({ spec: { items: [{ name: 'b' }] } });
  });

  it('rejects unknown directives and non-object patches with 400', () => {
    expect(() => merge({ $patch: 'explode' })).toThrow('Unknown patch type: explode');
    expect(() => merge([1])).toThrow('strategic merge patch must be a JSON object');
  });
});

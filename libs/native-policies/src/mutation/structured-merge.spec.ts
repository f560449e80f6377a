import { describe, expect, it } from 'vitest';
import type { JsonObject } from '@edict/foundation';
import { atomicPaths, DEDUCED_SHAPE, schemaShape, structuredMerge, StructuredMergeError } from '../index';

const schema = schemaShape({
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['port', 'protocol'],
          items: { type: 'object', properties: { port: { type: 'integer' }, protocol: { type: 'string' } } },
        },
        order: { type: 'array', items: { type: 'string' } },
        target: { type: 'object', 'x-kubernetes-map-type': 'atomic' },
      },
    },
  },
});

const live: JsonObject = {
  spec: {
    tags: ['a', 'b'],
    ports: [
      { port: 80, protocol: 'TCP', name: 'http' },
      { port: 53, protocol: 'UDP', name: 'dns' },
    ],
    order: ['x', 'y'],
    target: { name: 'a', kind: 'b' },
  },
};

describe('structuredMerge', () => {
  it('unions sets and merges map lists by all their keys, keeping live order', () => {
    const out = structuredMerge(
      live,
      {
        spec: {
          tags: ['c', 'a'],
          ports: [
            { port: 53, protocol: 'TCP', name: 'dns-tcp' },
            { port: 80, protocol: 'TCP', name: 'web' },
          ],
        },
      },
      schema,
    );
    const spec = out.spec as JsonObject;
    expect(spec.tags).toEqual(['c', 'a', 'b']);
    expect(spec.ports).toEqual([
      { port: 53, protocol: 'TCP', name: 'dns-tcp' },
      { port: 80, protocol: 'TCP', name: 'web' },
      { port: 53, protocol: 'UDP', name: 'dns' },
    ]);
    expect(spec.order).toEqual(['x', 'y']);
  });

  it('replaces atomic lists and objects whole, and reports them as kube refuses them in apply configurations', () => {
    const patch: JsonObject = { spec: { order: ['z'], target: { name: 'c' } } };
    const out = structuredMerge(live, patch, schema);
    expect((out.spec as JsonObject).order).toEqual(['z']);
    expect((out.spec as JsonObject).target).toEqual({ name: 'c' });
    expect(atomicPaths(patch, schema)).toEqual(['.spec.order', '.spec.target']);
    expect(atomicPaths(patch, DEDUCED_SHAPE)).toEqual([]);
  });

  it('refuses duplicate keys in the configuration', () => {
    expect(() =>
      structuredMerge(
        live,
        {
          spec: {
            ports: [
              { port: 1, protocol: 'TCP' },
              { port: 1, protocol: 'TCP' },
            ],
          },
        },
        schema,
      ),
    ).toThrow(StructuredMergeError);
  });

  it('does not let a key named __proto__ reach the prototype', () => {
    const patch = JSON.parse('{"spec": {"__proto__": {"polluted": true}}}') as JsonObject;
    const out = structuredMerge(live, patch, DEDUCED_SHAPE);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    expect(Object.hasOwn(out.spec as object, '__proto__')).toBe(true);
  });
});

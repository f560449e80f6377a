import type { JsonObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { pruneBySchema } from './prune';
import { pruneBuiltin } from './prune-builtin';

const SCHEMA: JsonObject = {
  type: 'object',
  properties: {
    spec: {
      type: 'object',
      properties: {
        mode: { type: 'string', default: 'Audit' },
        rules: {
          type: 'array',
          items: { type: 'object', properties: { name: { type: 'string' }, message: { type: 'string' } } },
        },
        ports: {
          type: 'array',
          'x-kubernetes-list-type': 'map',
          'x-kubernetes-list-map-keys': ['name'],
          items: { type: 'object', properties: { name: { type: 'string' } } },
        },
        labels: { type: 'object', additionalProperties: { type: 'object', properties: { v: { type: 'string' } } } },
        free: { type: 'object', 'x-kubernetes-preserve-unknown-fields': true, properties: { n: { type: 'object' } } },
        template: {
          type: 'object',
          'x-kubernetes-embedded-resource': true,
          properties: { spec: { type: 'object', properties: { a: { type: 'string' } } } },
        },
      },
    },
  },
};

describe('pruneBySchema', () => {
  it('drops what the structural schema does not specify, and says where', () => {
    const { value, unknown } = pruneBySchema(
      {
        apiVersion: 'example.com/v1',
        kind: 'Widget',
        metadata: { name: 'w', labels: { a: 'b' }, colour: 'red' },
        top: 1,
        spec: {
          mode: 'Enforce',
          rules: [{ name: 'r', mesage: 'typo' }],
          ports: [{ name: 'http', port: 80 }],
          labels: { x: { v: '1', w: '2' } },
          free: { anything: { deep: true }, n: { gone: 1 } },
          template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p', bogus: 1 }, spec: { a: 'x', b: 'y' } },
        },
      },
      SCHEMA,
    );
    expect(value).toEqual({
      apiVersion: 'example.com/v1',
      kind: 'Widget',
      metadata: { name: 'w', labels: { a: 'b' } },
      spec: {
        mode: 'Enforce',
        rules: [{ name: 'r' }],
        ports: [{ name: 'http' }],
        labels: { x: { v: '1' } },
        free: { anything: { deep: true }, n: {} },
        template: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec: { a: 'x' } },
      },
    });
    expect(unknown.map((path) => path.strict)).toEqual([
      'top',
      'spec.rules[0].mesage',
      'spec.ports[0].port',
      'spec.labels.x.w',
      'spec.free.n.gone',
      'spec.template.spec.b',
      'spec.template.metadata.bogus',
      'metadata.colour',
    ]);
    expect(unknown[2]!.typed).toBe('.spec.ports[name="http"].port');
  });

  it('keeps everything under x-kubernetes-preserve-unknown-fields at the root', () => {
    const object = { apiVersion: 'a/v1', kind: 'K', metadata: { name: 'n' }, spec: { any: [1, { x: 2 }] } };
    expect(pruneBySchema(object, { type: 'object', 'x-kubernetes-preserve-unknown-fields': true })).toEqual({
      value: object,
      unknown: [],
    });
  });
});

describe('pruneBuiltin', () => {
  it('drops fields a built-in type does not have, inline structs and opaque types included', () => {
    const { value, unknown } = pruneBuiltin('v1', 'Pod', {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'nginx',
            imagePullPolicyy: 'Always',
            resources: { limits: { cpu: '1' } },
            livenessProbe: { httpGet: { port: 'http', path: '/' } },
          },
        ],
        volumes: [{ name: 'v', configMap: { name: 'cm', optional: true } }],
        nodeSelectr: { a: 'b' },
      },
    });
    expect(unknown.map((path) => [path.strict, path.typed])).toEqual([
      ['spec.containers[0].imagePullPolicyy', '.spec.containers[name="c"].imagePullPolicyy'],
      ['spec.nodeSelectr', '.spec.nodeSelectr'],
    ]);
    expect(value).toEqual({
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: { name: 'p', creationTimestamp: '2026-01-01T00:00:00Z' },
      spec: {
        containers: [
          {
            name: 'c',
            image: 'nginx',
            resources: { limits: { cpu: '1' } },
            livenessProbe: { httpGet: { port: 'http', path: '/' } },
          },
        ],
        volumes: [{ name: 'v', configMap: { name: 'cm', optional: true } }],
      },
    });
  });

  it('keeps kinds whose fields it does not know whole (CustomResourceDefinition)', () => {
    const crd = { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition', spec: { x: 1 } };
    expect(pruneBuiltin('apiextensions.k8s.io/v1', 'CustomResourceDefinition', crd)).toEqual({
      value: crd,
      unknown: [],
    });
  });
});

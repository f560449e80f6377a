import type { JsonObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { InMemoryApiServer } from '../api-server';
import { ApiError } from '../status';
import { withDefaults } from './schema-defaults';
import { validateBySchema } from './schema-validation';

const lines = (object: JsonObject, schema: JsonObject): string[] =>
  validateBySchema(object, schema).map((cause) => `${cause.field}: ${cause.message}`);

const objectWith = (properties: JsonObject, extra: JsonObject = {}): JsonObject => ({
  type: 'object',
  properties: { spec: { type: 'object', properties, ...extra } },
});

describe('validateBySchema', () => {
  it('reports types, enums, bounds and required fields as kube words them', () => {
    const schema = objectWith(
      {
        replicas: { type: 'integer', minimum: 0 },
        mode: { type: 'string', enum: ['Audit', 'Enforce'] },
        name: { type: 'string', maxLength: 3, pattern: '^[a-z]+$' },
        items: { type: 'array', maxItems: 1, items: { type: 'object', required: ['key'] } },
        port: { 'x-kubernetes-int-or-string': true },
      },
      { required: ['kind'] },
    );
    expect(
      lines({ spec: { replicas: 'two', mode: 'Warn', name: 'ABCD', items: [{}, { key: 1 }], port: true } }, schema),
    ).toEqual([
      'spec.kind: Required value',
      'spec.replicas: Invalid value: "string": spec.replicas in body must be of type integer: "string"',
      'spec.mode: Unsupported value: "Warn": supported values: "Audit", "Enforce"',
      'spec.name: Too long: may not be more than 3 bytes',
      `spec.name: Invalid value: "ABCD": spec.name in body should match '^[a-z]+$'`,
      'spec.items: Too many: 2: must have at most 1 item',
      'spec.items[0].key: Required value',
      'spec.port: Invalid value: "boolean": spec.port in body must be of type integer,string: "boolean"',
    ]);
    expect(lines({ spec: { kind: 'x', replicas: -1 } }, schema)).toEqual([
      'spec.replicas: Invalid value: -1: spec.replicas in body should be greater than or equal to 0',
    ]);
    expect(lines({ spec: { kind: 'x', replicas: 2, mode: 'Audit', port: '80' } }, schema)).toEqual([]);
  });

  it('reports a oneOf without a field, then the closest alternative', () => {
    const schema = objectWith(
      { a: { type: 'object' }, b: { type: 'object' } },
      { oneOf: [{ required: ['a'] }, { required: ['b'] }] },
    );
    expect(lines({ spec: { a: {}, b: {} } }, schema)).toEqual([
      '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found 2 valid alternatives',
    ]);
    expect(lines({ spec: {} }, schema)).toEqual([
      '<nil>: Invalid value: "": "spec" must validate one and only one schema (oneOf). Found none valid',
      'spec.a: Required value',
    ]);
    expect(lines({ spec: { b: {} } }, schema)).toEqual([]);
  });

  it('checks anyOf, allOf and not', () => {
    const schema = objectWith(
      { n: { type: 'integer' } },
      {
        anyOf: [{ required: ['n'] }, { required: ['m'] }],
        not: { required: ['forbidden'] },
      },
    );
    expect(lines({ spec: { forbidden: 1 } }, schema)).toEqual([
      '<nil>: Invalid value: "": "spec" must validate at least one schema (anyOf)',
      'spec.n: Required value',
      '<nil>: Invalid value: "": "spec" must not validate the schema (not)',
    ]);
    const both = objectWith({}, { allOf: [{ required: ['x'] }, { required: ['y'] }] });
    expect(lines({ spec: { x: 1 } }, both)).toEqual([
      'spec.y: Required value',
      '<nil>: Invalid value: "": "spec" must validate all the schemas (allOf)',
    ]);
  });

  it('lets null through only where nullable, and keeps set and map lists unique', () => {
    const schema = objectWith({
      note: { type: 'string', nullable: true },
      count: { type: 'integer' },
      tags: { type: 'array', 'x-kubernetes-list-type': 'set', items: { type: 'string' } },
      ports: {
        type: 'array',
        'x-kubernetes-list-type': 'map',
        'x-kubernetes-list-map-keys': ['name'],
        items: { type: 'object' },
      },
    });
    expect(
      lines(
        { spec: { note: null, count: null, tags: ['a', 'a'], ports: [{ name: 'x', n: 1 }, { name: 'x' }] } },
        schema,
      ),
    ).toEqual([
      'spec.count: Invalid value: "null": spec.count in body must be of type integer: "null"',
      'spec.tags[1]: Duplicate value: "a"',
      'spec.ports[1]: Duplicate value: {"name":"x"}',
    ]);
  });

  it('leaves metadata to the object-meta checks', () => {
    const schema = { type: 'object', properties: { metadata: { type: 'object', required: ['labels'] } } };
    expect(lines({ metadata: { name: 'a' } }, schema)).toEqual([]);
  });
});

describe('withDefaults', () => {
  it('fills missing and non-nullable null properties, down through items and maps', () => {
    const schema: JsonObject = {
      type: 'object',
      properties: {
        spec: {
          type: 'object',
          default: {},
          properties: {
            mode: { type: 'string', default: 'Audit' },
            rules: { type: 'array', items: { type: 'object', properties: { on: { type: 'boolean', default: true } } } },
            limits: { type: 'object', additionalProperties: { type: 'object', properties: { n: { default: 1 } } } },
          },
        },
      },
    };
    const input: JsonObject = { spec: { mode: null, rules: [{}, { on: false }], limits: { a: {} } } };
    expect(withDefaults(input, schema)).toEqual({
      spec: { mode: 'Audit', rules: [{ on: true }, { on: false }], limits: { a: { n: 1 } } },
    });
    expect(input.spec).toEqual({ mode: null, rules: [{}, { on: false }], limits: { a: {} } });
    expect(withDefaults({}, schema)).toEqual({ spec: { mode: 'Audit' } });
  });
});

describe('custom resources against their schema', () => {
  const crd = (schema: JsonObject): JsonObject => ({
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: { name: 'widgets.example.com' },
    spec: {
      group: 'example.com',
      scope: 'Cluster',
      names: { plural: 'widgets', kind: 'Widget' },
      versions: [{ name: 'v1', served: true, storage: true, schema: { openAPIV3Schema: schema } }],
    },
  });
  const schema = objectWith({ size: { type: 'integer', default: 1 }, name: { type: 'string' } }, { default: {} });
  const widget = (spec?: JsonObject): JsonObject => ({
    apiVersion: 'example.com/v1',
    kind: 'Widget',
    metadata: { name: 'w' },
    ...(spec ? { spec } : {}),
  });

  it("stores defaults and refuses creates and updates that do not fit, with kube's Invalid status", () => {
    const server = new InMemoryApiServer({ admission: false });
    server.create(crd(schema));
    expect(server.create(widget()).spec).toEqual({ size: 1 });
    const refused = (write: () => unknown): ApiError => {
      try {
        write();
      } catch (error) {
        if (error instanceof ApiError) return error;
        throw error;
      }
      throw new Error('the write was accepted');
    };
    const onCreate = refused(() => server.create({ ...widget({ name: 5 }), metadata: { name: 'w2' } }));
    expect(onCreate.code).toBe(422);
    expect(onCreate.message).toBe(
      'Widget.example.com "w2" is invalid: spec.name: Invalid value: "integer": spec.name in body must be of type string: "integer"',
    );
    const stored = server.get('example.com/v1', 'Widget', 'w')!;
    const onUpdate = refused(() => server.update({ ...stored, spec: { size: 'big' } }));
    expect(onUpdate.message).toContain('spec.size in body must be of type integer');
  });
});

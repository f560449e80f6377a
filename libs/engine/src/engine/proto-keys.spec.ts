/**
 * `__proto__` is a legal key in Kubernetes data (a ConfigMap key, a label): JSON.parse keeps it as an
 * own property, and the engine must treat it as data everywhere: read it, patch it, copy it, diff
 * it, and never turn it into a prototype change.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { cloneJson, setOwn, type JsonObject, type KubeObject } from '@edict/foundation';
import type { Rule } from '../policy/types';
import { admissionPatch } from '../mutate/admission-patch';
import { Engine } from './engine';

const engine = new Engine();

/** A ConfigMap as the API server sends it, `data.__proto__` included (parsed, as on the wire). */
function configMap(proto: string): KubeObject {
  return JSON.parse(
    `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"cm","namespace":"team"},"data":{"__proto__":"${proto}","a":"1"}}`,
  ) as KubeObject;
}

function compile(rule: Rule) {
  return engine.compile({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p' },
    spec: { rules: [rule] },
  });
}

const match = { any: [{ resources: { kinds: ['ConfigMap'] } }] };

afterEach(() => {
  expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
  expect(Object.getPrototypeOf(Object.getPrototypeOf({}))).toBeNull();
});

describe('keys named __proto__ are data', () => {
  it('a validate rule reads data.__proto__: denied or admitted as the policy says', async () => {
    const policy = compile({
      name: 'no-forbidden',
      match,
      validate: {
        message: 'forbidden',
        deny: {
          conditions: {
            any: [{ key: "{{ request.object.data.__proto__ || '' }}", operator: 'Equals', value: 'forbidden' }],
          },
        },
      },
    } as Rule);
    const denied = await engine.validate(policy, { resource: configMap('forbidden'), operation: 'CREATE' });
    expect(denied.rules.map((r) => r.status)).toEqual(['fail']);
    const admitted = await engine.validate(policy, { resource: configMap('fine'), operation: 'CREATE' });
    expect(admitted.rules.map((r) => r.status)).toEqual(['pass']);
  });

  it('a pattern on data.__proto__ checks the key, not the prototype', async () => {
    // Parsed, as an object literal's `__proto__:` would set the prototype instead.
    const pattern = JSON.parse('{"data":{"__proto__":"ok-*"}}') as JsonObject;
    const policy = compile({ name: 'pattern', match, validate: { pattern } } as Rule);
    const statusFor = async (value: string) =>
      (await engine.validate(policy, { resource: configMap(value), operation: 'CREATE' })).rules[0]?.status;
    expect(await statusFor('ok-1')).toBe('pass');
    expect(await statusFor('bad')).toBe('fail');
  });

  it('a strategic merge patch keeps data.__proto__ as data, adds one, and the admission patch says so', async () => {
    const resource = configMap('kept');
    const patch = JSON.parse('{"data":{"b":"2"},"metadata":{"labels":{"__proto__":{"polluted":"yes"}}}}') as JsonObject;
    const policy = compile({ name: 'smp', match, mutate: { patchStrategicMerge: patch } } as Rule);
    const response = await engine.mutate(policy, { resource, operation: 'CREATE' });
    expect(response.rules.map((r) => r.status)).toEqual(['pass']);
    const patched = response.patchedResource!;
    expect(Object.hasOwn(patched.data as JsonObject, '__proto__')).toBe(true);
    expect((patched.data as JsonObject)['__proto__']).toBe('kept');
    expect(Object.hasOwn(patched.metadata.labels!, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(patched.metadata.labels)).toBe(Object.prototype);
    // Compared as JSON text: the matcher does not see `__proto__` own keys.
    expect(JSON.stringify(admissionPatch(resource, patched))).toBe(
      JSON.stringify([
        { op: 'add', path: '/data/b', value: '2' },
        { op: 'add', path: '/metadata/labels', value: JSON.parse('{"__proto__":{"polluted":"yes"}}') },
      ]),
    );
  });

  it('patchesJson6902 adds and replaces data.__proto__ as a key', async () => {
    const resource = configMap('old');
    const policy = compile({
      name: 'json6902',
      match,
      mutate: {
        patchesJson6902: [
          '- op: replace',
          '  path: /data/__proto__',
          '  value: new',
          '- op: add',
          '  path: /metadata/annotations',
          '  value: {}',
          '- op: add',
          '  path: /metadata/annotations/__proto__',
          '  value: {polluted: "yes"}',
        ].join('\n'),
      },
    } as Rule);
    const response = await engine.mutate(policy, { resource, operation: 'CREATE' });
    expect(response.rules.map((r) => [r.status, r.message])).toEqual([
      ['pass', 'mutated ConfigMap/cm in namespace team'],
    ]);
    const patched = response.patchedResource!;
    expect((patched.data as JsonObject)['__proto__']).toBe('new');
    const annotations = patched.metadata.annotations as JsonObject;
    expect(Object.keys(annotations)).toEqual(['__proto__']);
    expect(Object.getPrototypeOf(annotations)).toBe(Object.prototype);
    expect(JSON.stringify(admissionPatch(resource, patched))).toBe(
      JSON.stringify([
        { op: 'replace', path: '/data/__proto__', value: 'new' },
        { op: 'add', path: '/metadata/annotations', value: JSON.parse('{"__proto__":{"polluted":"yes"}}') },
      ]),
    );
  });

  it('JMESPath merge() keeps a __proto__ key', async () => {
    const policy = compile({
      name: 'merge',
      match,
      mutate: {
        patchStrategicMerge: {
          metadata: { annotations: { merged: '{{ to_string(merge(`{}`, request.object.data)) }}' } },
        },
      },
    } as Rule);
    const response = await engine.mutate(policy, { resource: configMap('v'), operation: 'CREATE' });
    expect(response.patchedResource?.metadata.annotations).toEqual({ merged: '{"__proto__":"v","a":"1"}' });
  });

  it('cloneJson and setOwn store __proto__ as an own key', () => {
    const parsed = JSON.parse('{"__proto__":{"x":1}}') as JsonObject;
    const copy = cloneJson(parsed);
    expect(Object.hasOwn(copy, '__proto__')).toBe(true);
    expect(Object.getPrototypeOf(copy)).toBe(Object.prototype);
    const target: JsonObject = {};
    setOwn(target, '__proto__', { polluted: true });
    expect(JSON.stringify(target)).toBe('{"__proto__":{"polluted":true}}');
    expect(Object.getPrototypeOf(target)).toBe(Object.prototype);
  });
});

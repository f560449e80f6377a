import { describe, expect, it } from 'vitest';
import { cloneJson, type JsonObject, type JsonValue } from '@edict/foundation';
import { applyJson6902 } from './json6902';

const base: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'p', labels: { app: 'web' } },
  spec: {
    containers: [
      { name: 'a', image: 'a:1' },
      { name: 'b', image: 'b:1' },
    ],
  },
};

function run(patches: string | JsonValue, resource: JsonObject = base) {
  const before = cloneJson(resource);
  const outcome = applyJson6902(resource, patches);
  expect(resource).toEqual(before);
  return outcome;
}

function patched(patches: string | JsonValue, resource: JsonObject = base): JsonObject {
  const outcome = run(patches, resource);
  if (outcome.status !== 'pass') throw new Error(`expected pass, got ${JSON.stringify(outcome)}`);
  return outcome.resource;
}

function errorOf(patches: string | JsonValue, resource: JsonObject = base): string {
  const outcome = run(patches, resource);
  if (outcome.status !== 'error') throw new Error(`expected error, got ${JSON.stringify(outcome)}`);
  return outcome.message;
}

describe('applyJson6902: operations', () => {
  it('adds, replaces and removes, sharing untouched branches', () => {
    const out = patched([
      { op: 'add', path: '/metadata/labels/tier', value: 'front' },
      { op: 'replace', path: '/spec/containers/0/image', value: 'a:2' },
      { op: 'remove', path: '/metadata/labels/app' },
    ]);
    expect(out.metadata).toEqual({ name: 'p', labels: { tier: 'front' } });
    expect((out.spec as JsonObject).containers).toEqual([
      { name: 'a', image: 'a:2' },
      { name: 'b', image: 'b:1' },
    ]);
    expect(((out.spec as JsonObject).containers as JsonValue[])[1]).toBe(
      ((base.spec as JsonObject).containers as JsonValue[])[1],
    );
  });

  it('moves and copies', () => {
    const out = patched([
      { op: 'copy', from: '/metadata/labels', path: '/metadata/annotations' },
      { op: 'move', from: '/spec/containers/1', path: '/spec/initContainers' },
    ]);
    expect(out.metadata).toEqual({ name: 'p', labels: { app: 'web' }, annotations: { app: 'web' } });
    expect(out.spec).toEqual({
      containers: [{ name: 'a', image: 'a:1' }],
      initContainers: { name: 'b', image: 'b:1' },
    });
  });

  it('appends with "-" and inserts at an index', () => {
    const out = patched([
      { op: 'add', path: '/spec/containers/-', value: { name: 'c' } },
      { op: 'add', path: '/spec/containers/0', value: { name: 'z' } },
    ]);
    expect(((out.spec as JsonObject).containers as JsonObject[]).map((c) => c.name)).toEqual(['z', 'a', 'b', 'c']);
  });

  it('accepts negative indices: -1 is the last element, or the end for add', () => {
    const out = patched([
      { op: 'replace', path: '/spec/containers/-1/image', value: 'b:2' },
      { op: 'add', path: '/spec/containers/-1', value: { name: 'end' } },
      { op: 'remove', path: '/spec/containers/-3' },
    ]);
    expect((out.spec as JsonObject).containers).toEqual([{ name: 'b', image: 'b:2' }, { name: 'end' }]);
  });

  it('creates missing parents on add: objects, or arrays before an index', () => {
    const out = patched([
      { op: 'add', path: '/spec/securityContext/seccompProfile/type', value: 'RuntimeDefault' },
      { op: 'add', path: '/spec/tolerations/-', value: { key: 'k' } },
      { op: 'add', path: '/spec/extra/2', value: 'x' },
    ]);
    expect(out.spec).toMatchObject({
      securityContext: { seccompProfile: { type: 'RuntimeDefault' } },
      tolerations: [{ key: 'k' }],
      extra: [null, null, 'x'],
    });
  });

  it('replaces a null parent when creating a path', () => {
    const resource = { ...base, metadata: { name: 'p', annotations: null } };
    expect(patched([{ op: 'add', path: '/metadata/annotations/a', value: 'b' }], resource).metadata).toEqual({
      name: 'p',
      annotations: { a: 'b' },
    });
  });

  it('tolerates removing what is not there', () => {
    expect(run([{ op: 'remove', path: '/metadata/annotations/x' }])).toEqual({
      status: 'skip',
      message: 'no patches applied',
    });
    expect(run([{ op: 'remove', path: '/spec/containers/9' }]).status).toBe('skip');
    expect(run([{ op: 'remove', path: '/spec/containers/-9' }]).status).toBe('skip');
  });

  it('unescapes ~1 and ~0 in paths', () => {
    const out = patched([
      { op: 'add', path: '/metadata/labels/app.kubernetes.io~1name', value: 'web' },
      { op: 'add', path: '/metadata/labels/a~0b', value: 'tilde' },
      { op: 'remove', path: '/metadata/labels/app' },
    ]);
    expect((out.metadata as JsonObject).labels).toEqual({ 'app.kubernetes.io/name': 'web', 'a~b': 'tilde' });
  });

  it('passes and fails tests', () => {
    expect(run([{ op: 'test', path: '/metadata/labels/app', value: 'web' }]).status).toBe('skip');
    expect(run([{ op: 'test', path: '/metadata/labels/none', value: null }]).status).toBe('skip');
    expect(
      errorOf([
        { op: 'test', path: '/metadata/labels/app', value: 'db' },
        { op: 'add', path: '/x', value: 1 },
      ]),
    ).toBe('failed to patch resource: testing value /metadata/labels/app failed: test failed');
  });

  it('treats an unchanged result as a skip', () => {
    expect(run([{ op: 'replace', path: '/metadata/labels/app', value: 'web' }])).toEqual({
      status: 'skip',
      message: 'no patches applied',
    });
  });
});

describe('applyJson6902: errors', () => {
  it.each<[string, JsonValue, string]>([
    [
      'replace of a missing key',
      [{ op: 'replace', path: '/metadata/labels/none', value: 'x' }],
      'replace operation does not apply: doc is missing key: /metadata/labels/none: missing value',
    ],
    [
      'replace under a missing parent',
      [{ op: 'replace', path: '/status/phase', value: 'x' }],
      'replace operation does not apply: doc is missing path: /status/phase: missing value',
    ],
    [
      'add past the end',
      [{ op: 'add', path: '/spec/containers/5', value: {} }],
      "error in add for path: '/spec/containers/5': Unable to access invalid index: 5: invalid index referenced",
    ],
    [
      'add with a word as index',
      [{ op: 'add', path: '/spec/containers/x', value: {} }],
      `error in add for path: '/spec/containers/x': value was not a proper array index: 'x': strconv.Atoi: parsing "x": invalid syntax`,
    ],
    ['add through a scalar', [{ op: 'add', path: '/metadata/name/x', value: 1 }], 'invalid state detected'],
    [
      'move from a missing path',
      [{ op: 'move', from: '/a/b', path: '/c' }],
      'move operation does not apply: doc is missing from path: /a/b: missing value',
    ],
    [
      'copy to a missing parent',
      [{ op: 'copy', from: '/metadata/name', path: '/a/b' }],
      'copy operation does not apply: doc is missing destination path: /a/b: missing value',
    ],
    [
      'an unknown operation',
      [{ op: 'merge', path: '/a' }],
      'failed to decode patches: invalid operation {"op":"merge","path":"/a"}: unsupported operation',
    ],
    [
      'add without value',
      [{ path: '/a', op: 'add' }],
      `failed to decode patches: invalid operation {"op":"add","path":"/a"}: failed to decode 'value': operation, missing value field: missing value`,
    ],
    [
      'remove without path',
      [{ op: 'remove' }],
      `failed to decode patches: invalid operation {"op":"remove"}: failed to decode 'path': operation missing path field: missing value`,
    ],
    [
      'move without from',
      [{ op: 'move', path: '/a' }],
      `failed to decode patches: invalid operation {"op":"move","path":"/a"}: failed to decode 'from': operation, missing from field: missing value`,
    ],
    [
      'a map instead of a list',
      { op: 'add' },
      'failed to decode patches: json: cannot unmarshal object into Go value of type jsonpatch.Patch',
    ],
    ['invalid JSON text', '[{"op": "add",', 'failed to decode patches: invalid state detected'],
  ])('reports %s', (_what, patches, message) => {
    expect(errorOf(patches)).toBe(`failed to patch resource: ${message}`);
  });
});

describe('applyJson6902: text input', () => {
  it('reads YAML, as written in policies', () => {
    const out = patched(`
- path: "/metadata/labels/tier"
  op: add
  value: front
- op: add
  path: /spec/containers/0/securityContext
  value: {"runAsNonRoot": true}
`);
    expect((out.metadata as JsonObject).labels).toEqual({ app: 'web', tier: 'front' });
    expect(((out.spec as JsonObject).containers as JsonObject[])[0]).toEqual({
      name: 'a',
      image: 'a:1',
      securityContext: { runAsNonRoot: true },
    });
  });

  it('reads JSON text and caches it', () => {
    const text = '[{"op":"add","path":"/metadata/labels/x","value":"1"}]';
    expect(patched(text).metadata).toEqual({ name: 'p', labels: { app: 'web', x: '1' } });
    expect(patched(text).metadata).toEqual({ name: 'p', labels: { app: 'web', x: '1' } });
  });

  it('does not let results share values with the cached patch', () => {
    const text = '[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]';
    const first = patched(text);
    ((first.metadata as JsonObject).annotations as JsonObject).a = 'changed';
    expect((patched(text).metadata as JsonObject).annotations).toEqual({ a: 'b' });
  });

  it('reports YAML syntax errors', () => {
    expect(errorOf('- op: add\n  path: [')).toMatch(
      /^failed to patch resource: failed to convert patchesJSON6902 to JSON: /,
    );
  });
});

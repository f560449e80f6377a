import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJson } from './go-json';
import { resourceHash } from './resource-hash';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

describe('goJson', () => {
  it('sorts keys at every level and writes no spaces', () => {
    expect(goJson({ b: 1, a: { d: [true, null], c: 'x' } })).toBe('{"a":{"c":"x","d":[true,null]},"b":1}');
  });

  it('escapes HTML characters and line separators as Go does', () => {
    expect(goJson('<a&b>\u2028')).toBe('"\\u003ca\\u0026b\\u003e\\u2028"');
  });

  it('writes any string as JSON does, with the HTML characters and line separators escaped', () => {
    expect(goJson('say "hi"\\\n\u0001')).toBe('"say \\"hi\\"\\\\\\n\\u0001"');
    fc.assert(
      fc.property(fc.string({ unit: 'binary' }), (text) => {
        const expected = JSON.stringify(text).replace(
          /[<>&\u2028\u2029]/g,
          (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`,
        );
        expect(goJson(text)).toBe(expected);
      }),
    );
  });

  it('writes undefined and non-finite numbers as null and skips undefined fields', () => {
    expect(goJson({ a: undefined, b: Number.NaN })).toBe('{"b":null}');
    expect(goJson(undefined)).toBe('null');
  });
});

describe('resourceHash', () => {
  const pod = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'web', namespace: 'default', uid: 'u1', resourceVersion: '5', labels: { team: 'a' } },
    spec: { containers: [{ name: 'app', image: 'nginx' }], nodeName: 'node-1' },
    status: { phase: 'Running' },
  };

  it('hashes [labels, annotations, object without metadata/status/scale/spec.nodeName] as Go JSON', () => {
    const expected = md5(
      '[{"team":"a"},null,{"apiVersion":"v1","kind":"Pod","spec":{"containers":[{"image":"nginx","name":"app"}]}}]',
    );
    expect(resourceHash(pod)).toBe(expected);
  });

  it('ignores bookkeeping changes but not label or spec changes', () => {
    const base = resourceHash(pod);
    expect(resourceHash({ ...pod, metadata: { ...pod.metadata, resourceVersion: '9', uid: 'u2' } })).toBe(base);
    expect(resourceHash({ ...pod, status: { phase: 'Failed' } })).toBe(base);
    expect(resourceHash({ ...pod, spec: { ...pod.spec, nodeName: 'node-2' } })).toBe(base);
    expect(resourceHash({ ...pod, metadata: { ...pod.metadata, labels: { team: 'b' } } })).not.toBe(base);
    expect(resourceHash({ ...pod, spec: { containers: [] } })).not.toBe(base);
  });

  it('does not change the object it hashes and is empty for no object', () => {
    const copy = structuredClone(pod);
    resourceHash(pod);
    expect(pod).toEqual(copy);
    expect(resourceHash(undefined)).toBe('');
  });

  it('hashes a top-level __proto__ field as data', () => {
    const object = JSON.parse('{"apiVersion":"v1","kind":"X","metadata":{},"__proto__":{"a":1}}') as Record<
      string,
      unknown
    >;
    expect(resourceHash(object)).toBe(md5('[null,null,{"__proto__":{"a":1},"apiVersion":"v1","kind":"X"}]'));
  });
});

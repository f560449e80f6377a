import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { resourceHash } from './resource-hash';

const md5 = (text: string) => createHash('md5').update(text).digest('hex');

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

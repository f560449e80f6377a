import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { goJson, setOwn } from '@edict/foundation';
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

  it('gives the hash of a copy without the left-out fields (the way it was computed before), on varied objects', () => {
    const text = fc.string({ unit: fc.constantFrom('a', 'z', '<', '&', '"', 'é', '\u2028', '\u{1F600}') });
    const value = fc.letrec((tie) => ({
      json: fc.oneof(
        { depthSize: 'small' },
        text,
        fc.double(),
        fc.boolean(),
        fc.constant(null),
        fc.array(tie('json'), { maxLength: 4 }),
        fc.dictionary(text, tie('json'), { maxKeys: 5 }),
      ),
    })).json;
    const field = fc.constantFrom('metadata', 'status', 'scale', 'spec', 'kind', 'apiVersion', 'data', '__proto__');
    const resource = fc.record({
      top: fc.dictionary(field, value, { maxKeys: 6 }),
      labels: fc.option(fc.dictionary(text, text, { maxKeys: 4 })),
      annotations: fc.option(fc.dictionary(text, text, { maxKeys: 4 })),
      spec: fc.option(fc.oneof(fc.dictionary(fc.constantFrom('nodeName', 'containers', 'b'), value), value)),
    });
    fc.assert(
      fc.property(resource, ({ top, labels, annotations, spec }) => {
        const object: Record<string, unknown> = { ...top };
        if (labels !== null || annotations !== null)
          object.metadata = { name: 'x', labels: labels ?? undefined, annotations: annotations ?? undefined };
        if (spec !== null) object.spec = spec;
        expect(resourceHash(object)).toBe(copyingResourceHash(object));
      }),
      { numRuns: 300 },
    );
  });
});

/** The hash as first written: copy the object without the left-out fields, then hash its Go JSON. */
function copyingResourceHash(object: Record<string, unknown>): string {
  const metadata = (object.metadata ?? {}) as Record<string, unknown>;
  const rest: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(object)) {
    if (key !== 'metadata' && key !== 'status' && key !== 'scale') setOwn(rest, key, value);
  }
  const spec = rest.spec;
  if (spec && typeof spec === 'object' && !Array.isArray(spec) && 'nodeName' in spec) {
    const { nodeName: _dropped, ...others } = spec as Record<string, unknown>;
    rest.spec = others;
  }
  return md5(goJson([metadata.labels ?? null, metadata.annotations ?? null, rest]));
}

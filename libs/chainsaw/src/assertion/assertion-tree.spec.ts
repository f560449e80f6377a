import type { JsonObject } from '@edict/foundation';
import { describe, expect, it } from 'vitest';
import { Bindings } from '../expressions/bindings';
import { AssertionInternalError, assertTree, formatFailure } from './assertion-tree';
import { diffExpectedActual } from './diff';

const none = Bindings.empty();
const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'ns', labels: { app: 'web', tier: 'front' } },
  spec: {
    containers: [
      { name: 'a', image: 'nginx:1.27', ports: [{ containerPort: 80 }] },
      { name: 'b', image: 'busybox:1.36' },
    ],
  },
  data: { one: '1', two: '2' },
};

describe('assertTree (kyverno-json semantics)', () => {
  it('matches maps partially', () => {
    expect(assertTree({ metadata: { labels: { app: 'web' } } }, pod, none)).toEqual([]);
  });

  it('reports a missing field with its path', () => {
    const failures = assertTree({ metadata: { annotations: { x: 'y' } } }, pod, none);
    expect(failures.map(formatFailure)).toEqual([
      'metadata.annotations: Required value: field not found in the input object',
    ]);
  });

  it('reports a different value with both values', () => {
    const failures = assertTree(
      { spec: { containers: [{ image: 'nginx:1.27' }, { image: 'busybox:latest' }] } },
      pod,
      none,
    );
    expect(failures).toEqual([
      { path: 'spec.containers[1].image', message: 'Invalid value: "busybox:1.36": Expected value: "busybox:latest"' },
    ]);
  });

  it('compares arrays element by element and needs the same length', () => {
    expect(assertTree({ spec: { containers: [{ name: 'a' }, { name: 'b' }] } }, pod, none)).toEqual([]);
    const failures = assertTree({ spec: { containers: [{ name: 'a' }] } }, pod, none);
    expect(failures[0]!.path).toBe('spec.containers');
    expect(failures[0]!.message).toContain("lengths of slices don't match");
  });

  it('evaluates a key in parentheses as JMESPath on the node', () => {
    expect(assertTree({ spec: { '(length(containers))': 2 } }, pod, none)).toEqual([]);
    expect(assertTree({ spec: { "(containers[?name == 'b'])": [{ image: 'busybox:1.36' }] } }, pod, none)).toEqual([]);
    expect(assertTree({ spec: { '(length(containers))': 3 } }, pod, none)).toHaveLength(1);
  });

  it('evaluates a value in parentheses with the actual value as @ and the bindings', () => {
    const bindings = Bindings.of({ namespace: 'ns' });
    expect(assertTree({ metadata: { namespace: '($namespace)' } }, pod, bindings)).toEqual([]);
    expect(assertTree({ metadata: { name: "(join('', ['we', 'b']))" } }, pod, bindings)).toEqual([]);
    // The value's result is compared with the field: a boolean against a string cannot be compared.
    expect(() => assertTree({ metadata: { name: "(starts_with(@, 'we'))" } }, pod, bindings)).toThrow(/not comparable/);
    expect(assertTree({ metadata: { "(starts_with(name, 'we'))": true } }, pod, bindings)).toEqual([]);
  });

  it('iterates with ~ over every element, binding the index', () => {
    expect(assertTree({ spec: { '~.(containers)': { "(contains(image, ':'))": true } } }, pod, none)).toEqual([]);
    const failures = assertTree({ spec: { '~i.(containers)': { name: "($i == `0` && 'a' || 'x')" } } }, pod, none);
    expect(failures.map((f) => f.path)).toEqual(['spec.~i.(containers)[1].name']);
  });

  it('iterates over a map, binding the key', () => {
    expect(assertTree({ '~k.(data)': { '(to_number(@) > `0`)': true } }, pod, none)).toEqual([]);
    expect(assertTree({ '~k.(data)': "($k == 'one' && '1' || '2')" }, pod, none)).toEqual([]);
  });

  it('binds a projection with ->', () => {
    expect(assertTree({ '(metadata.name) -> n': 'web', metadata: { labels: { app: '($n)' } } }, pod, none)).toEqual([]);
  });

  it('takes an escaped key literally', () => {
    expect(assertTree({ '\\(x)\\': 1 }, { '(x)': 1 }, none)).toEqual([]);
  });

  it('compares numbers by value and refuses incomparable types', () => {
    expect(assertTree({ spec: { containers: [{ ports: [{ containerPort: 80.0 }] }, {}] } }, pod, none)).toEqual([]);
    expect(() => assertTree({ data: { one: 1 } }, pod, none)).toThrow(AssertionInternalError);
  });

  it('treats an empty map as "present and not null"', () => {
    expect(assertTree({ metadata: {} }, pod, none)).toEqual([]);
    expect(assertTree({ status: {} }, { status: null }, none)).toHaveLength(1);
  });

  it('checks bindings alone against a null document ($error, $stdout)', () => {
    const bindings = Bindings.of({ error: null, stdout: '  hello\n' });
    expect(assertTree({ '($error)': null, '(trim_space($stdout))': 'hello' }, null, bindings)).toEqual([]);
    expect(assertTree({ '($error != null)': true }, null, bindings)).toHaveLength(1);
  });

  it('decodes and parses with chainsaw functions', () => {
    const object = { data: { config: Buffer.from('{"a":1}').toString('base64'), raw: '{"b":[1,2]}' } };
    expect(
      assertTree(
        { data: { '(json_parse(base64_decode(config)))': { a: 1 }, raw: { '(json_parse(@))': { b: [1, 2] } } } },
        object,
        none,
      ),
    ).toEqual([]);
  });

  it('refuses a bad expression as an internal error naming the path', () => {
    expect(() => assertTree({ metadata: { '(name ==)': true } }, pod, none)).toThrow(/metadata\.\(name ==\)/);
    expect(() => assertTree({ '(x_k8s_get(@, `v1`, `Pod`, `ns`, `x`))': {} }, pod, none)).toThrow(/not supported/);
  });
});

describe('diffExpectedActual', () => {
  it('shows expected against the matching part of actual', () => {
    const diff = diffExpectedActual({ metadata: { name: 'web', labels: { app: 'api' } } }, pod);
    expect(diff).toContain('-     app: api');
    expect(diff).toContain('+     app: web');
    expect(diff).toContain('    name: web');
    expect(diff).not.toContain('tier');
  });
});

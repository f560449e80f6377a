import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { EvaluationBudget, EvaluationDeadlineExceeded, type JsonValue } from '@edict/foundation';
import { compilePattern } from './compiled';
import { matchPattern } from './match';

function expectSameAsInterpreter(resource: JsonValue, pattern: JsonValue): void {
  expect(compilePattern(pattern)(resource), JSON.stringify({ resource, pattern })).toEqual(
    matchPattern(resource, pattern),
  );
}

const pod = (spec: JsonValue): JsonValue => ({ apiVersion: 'v1', kind: 'Pod', metadata: { name: 'p' }, spec });

// Each pattern against each resource: missing fields, nulls, arrays, wildcards, anchors, negation, ranges.
const patterns: JsonValue[] = [
  { spec: { containers: [{ image: '!*:latest' }] } },
  { spec: { containers: [{ name: '*' }] } },
  { spec: { '=(hostNetwork)': false, '=(hostPID)': 'false' } },
  { spec: { containers: [{ '=(securityContext)': { '=(privileged)': 'false' } }] } },
  {
    spec: {
      '=(initContainers)': [{ '=(ports)': [{ '=(hostPort)': 0 }] }],
      containers: [{ '=(ports)': [{ '=(hostPort)': 0 }] }],
    },
  },
  { spec: { containers: [{ '(image)': '*:latest', imagePullPolicy: 'Always' }] } },
  { spec: { '<(runtimeClassName)': 'gvisor', containers: [{ name: 'x*' }] } },
  { spec: { 'X(hostIPC)': 'null' } },
  { spec: { '^(containers)': [{ name: 'b' }] } },
  { spec: { '^(containers)': [{ name: 'zz' }] } },
  { spec: { '^(containers)': 'notalist' } },
  { spec: { '^(containers)': [{ name: 'a' }, 'x'] } },
  { spec: { '^(replicas)': [{ a: 1 }] } },
  { spec: { replicas: '1-3', priority: '>=10 & <100', weight: '5!-9' } },
  { spec: { replicas: '<2 | >4' } },
  { spec: { memory: '<=1Gi', timeout: '>30s' } },
  { spec: { tags: ['a'] } },
  { spec: { tags: [] } },
  { spec: { matrix: [[1, 2], [3]] } },
  { spec: { matrix: [['*'], ['?']] } },
  { spec: { containers: [{ ports: [{ containerPort: '>1000' }] }] } },
  { spec: { nothing: null, flag: true, count: 2, ratio: 0.5, obj: {} } },
  { spec: { '+(added)': 'x', plain: '?*' } },
  { spec: { containers: [{ '(name)': 'a', '=(image)': 'nginx*' }, { ignored: 'yes' }] } },
  { spec: { '(missing)': 'x', '=(other)': 'y' } },
  { spec: { containers: [{ 'X(securityContext)': {} }] } },
  { spec: { containers: { name: 'a' } } },
  { spec: 'scalar' },
  ['not', 'a', 'map'],
  '*',
  null,
  {},
];

const resources: JsonValue[] = [
  pod({
    containers: [
      { name: 'a', image: 'nginx:latest', imagePullPolicy: 'Never', ports: [{ containerPort: 80, hostPort: 0 }] },
      {
        name: 'b',
        image: 'redis:7',
        securityContext: { privileged: true },
        ports: [{ containerPort: 8080, hostPort: 8080 }],
      },
    ],
    initContainers: [{ name: 'init', image: 'busybox', ports: [] }],
    hostNetwork: false,
    hostIPC: null,
    replicas: 2,
    priority: '50',
    weight: 7,
    memory: '512Mi',
    timeout: '1m',
    tags: ['a', 'a'],
    matrix: [[1, 2], [3], [4]],
    nothing: 0,
    flag: true,
    count: '2',
    ratio: 0.5,
    obj: { any: 1 },
    plain: '',
    other: 'y',
    runtimeClassName: 'gvisor',
  }),
  pod({ containers: [] }),
  pod({ containers: null, replicas: '5', tags: 'a', matrix: [[1]] }),
  pod({ containers: [null, 'x', { name: 'a' }], hostPID: true, runtimeClassName: 'runc' }),
  pod(null),
  pod([1, 2]),
  { spec: { containers: [{ name: 'a', securityContext: {} }] } },
  [],
  'text',
  null,
];

describe('compilePattern', () => {
  it.each(patterns.map((pattern) => [JSON.stringify(pattern), pattern] as const))(
    'gives what matchPattern gives: %s',
    (_name, pattern) => {
      for (const resource of resources) expectSameAsInterpreter(resource, pattern);
    },
  );

  it('leaves patterns with metadata wildcards to the interpreter, which expands them per resource', () => {
    const pattern = { metadata: { annotations: { '=(apparmor.io/*)': 'runtime/default' } } };
    expectSameAsInterpreter({ metadata: { annotations: { 'apparmor.io/c': 'x' } } }, pattern);
    expectSameAsInterpreter({ metadata: { annotations: { 'apparmor.io/c': 'runtime/default' } } }, pattern);
  });

  it('reports an anchor key never seen as an execution error, as the interpreter does', () => {
    const pattern = { spec: { containers: [{ '(name)': 'a', image: 'x' }] } };
    const result = compilePattern(pattern)(pod({ containers: [{ image: 'y' }] }));
    expect(result).toEqual(matchPattern(pod({ containers: [{ image: 'y' }] }), pattern));
    expect(result.status).toBe('skip');
    const failing = { spec: { containers: [{ '(name)': 'a', image: 'x' }], other: 'z' } };
    expect(compilePattern(failing)(pod({ containers: [{ name: 'b' }], other: 'q' }))).toMatchObject({
      status: 'skip',
    });
    const negated = { spec: { '(absent)': 'a', x: 'y' } };
    expectSameAsInterpreter(pod({ x: 'n' }), negated);
  });

  it('lets a failing anchor outrank a skip set aside before it, and a skip outrank a later plain failure', () => {
    // kyverno#8731: every container skipped, then a failing `=(initContainers)`.
    const pattern = {
      spec: { '=(containers)': [{ '(name)': 'x', image: 'y' }], '=(initContainers)': [{ image: 'ok' }] },
    };
    const resource = pod({ containers: [{ name: 'n', image: 'z' }], initContainers: [{ image: 'bad' }] });
    expect(compilePattern(pattern)(resource)).toMatchObject({ status: 'fail', path: '/spec/initContainers/0/image/' });
    expectSameAsInterpreter(resource, pattern);
    const plainAfter = { spec: { '=(containers)': [{ '(name)': 'x', image: 'y' }], zone: 'a' } };
    const plainResource = pod({ containers: [{ name: 'n' }], zone: 'b' });
    expect(compilePattern(plainAfter)(plainResource).status).toBe('skip');
    expectSameAsInterpreter(plainResource, plainAfter);
  });

  it('looks at the deadline along the walk', () => {
    let asked = 0;
    const budget = new EvaluationBudget({}, { expired: () => ++asked > 2 });
    const containers = Array.from({ length: 5000 }, (_, i) => ({ name: `c${i}`, image: 'nginx:1' }));
    expect(() =>
      compilePattern({ spec: { containers: [{ image: '!*:latest' }] } })(pod({ containers }), budget),
    ).toThrow(EvaluationDeadlineExceeded);
    expect(asked).toBe(3);
  });

  it('agrees with matchPattern on random patterns and resources', () => {
    const leaf = fc.constantFrom<JsonValue>(
      '*',
      '?*',
      'a',
      '!a',
      'a | b',
      '>1',
      '1-3',
      '<=2 & >0',
      'null',
      null,
      1,
      true,
      false,
    );
    const patternKey = fc.constantFrom('a', 'b', '(a)', '=(b)', 'X(c)', '<(a)', '+(b)', '^(c)');
    const pattern: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        leaf,
        fc.dictionary(patternKey, tie('value'), { maxKeys: 3 }),
        fc.array(tie('value'), { maxLength: 2 }),
      ),
    })).value;
    const resource: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom<JsonValue>('a', 'b', '', '2', 0, 1, 5, true, false, null),
        fc.dictionary(fc.constantFrom('a', 'b', 'c'), tie('value'), { maxKeys: 3 }),
        fc.array(tie('value'), { maxLength: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(pattern, resource, (p, r) => {
        expectSameAsInterpreter(r, p);
      }),
      { numRuns: 3000 },
    );
  });
});

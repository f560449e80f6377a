import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  EvaluationBudget,
  EvaluationDeadlineExceeded,
  EvaluationLimitExceeded,
  type JsonValue,
} from '@edict/foundation';
import { compileDirectJmesPath, compileJmesPath, JmesPathNotFoundError } from './index';
import { flattenOnce } from './interpreter';

/** What a query gives: its value, or the error's class and message. */
function outcome(run: () => JsonValue): unknown {
  try {
    return { value: run() };
  } catch (error) {
    return { error: (error as Error).name, message: (error as Error).message };
  }
}

function expectSameAsInterpreter(expression: string, data: JsonValue, budget?: () => EvaluationBudget): void {
  const direct = compileDirectJmesPath(expression);
  const interpreted = compileJmesPath(expression);
  expect(
    outcome(() => direct.search(data, budget?.())),
    expression,
  ).toEqual(outcome(() => interpreted.search(data, budget?.())));
  expect(direct.evaluate(data), expression).toEqual(interpreted.evaluate(data));
}

const pod: JsonValue = {
  request: {
    operation: 'CREATE',
    object: {
      metadata: { name: 'web', labels: { app: 'web', empty: '' }, annotations: null },
      spec: {
        initContainers: [{ name: 'init', securityContext: null }],
        containers: [
          { name: 'a', image: 'nginx', securityContext: { capabilities: { add: ['NET_RAW'], drop: ['ALL'] } } },
          { name: 'b', image: 'redis', securityContext: { capabilities: { add: null } } },
          { name: 'c', securityContext: { capabilities: {} } },
          'not a map',
          null,
          { name: 'd', ports: [[1, 2], [3], 4] },
        ],
        volumes: [{ name: 'v', hostPath: { path: '/' } }, { name: 'w' }],
      },
    },
  },
  element: { securityContext: { capabilities: { add: [] } } },
  list: [1, null, [null, [2]], 'x', { a: 1 }],
  scalar: 7,
};

// Field paths, projections and the other nodes the closure compiler takes, over missing fields,
// nulls, non-objects, nested arrays and empty values.
const expressions = [
  'request.operation',
  "request.operation || 'BACKGROUND'",
  'request.missing',
  'request.missing.deeper',
  'missing',
  'scalar.field',
  'request.object.metadata.annotations.x',
  'request.object.metadata.labels.empty',
  'request.object.spec.containers[].name',
  'request.object.spec.containers[*].name',
  'request.object.spec.containers[*].missing',
  'request.object.spec.containers[].securityContext.capabilities.add[]',
  'request.object.spec.[ephemeralContainers, initContainers, containers][]',
  'request.object.spec.[ephemeralContainers, initContainers, containers][].securityContext.capabilities.add[]',
  'request.object.spec.containers[0].image',
  'request.object.spec.containers[-1].ports[0]',
  'request.object.spec.containers[99]',
  'request.object.spec.containers[5].ports[]',
  'request.object.spec.containers[5].ports[][]',
  'request.object.spec.volumes[].hostPath.path',
  'request.object.spec.volumes[?hostPath].name',
  "request.object.spec.containers[?name == 'a'].image",
  'request.object.spec.containers[?missing].name',
  'request.object.metadata.labels.*',
  'request.object.metadata.*.app',
  'scalar.*',
  'scalar[*]',
  'scalar[]',
  'list[]',
  'list[][]',
  'list[*]',
  'list[0]',
  '`[]`',
  'element.securityContext.capabilities.add[] || `[]`',
  'element.securityContext.capabilities.drop[] || `[]`',
  'request.missing || request.operation',
  'request.operation && request.missing',
  'request.missing && request.operation',
  '!request.missing',
  '!request.operation',
  'request.object | metadata.name',
  'request | missing',
  '{ name: request.object.metadata.name, gone: request.gone }',
  '[request.operation, request.gone]',
  'scalar > `3`',
  "scalar < 'x'",
  'scalar == `7`',
  'request.object.spec.containers[0] != request.object.spec.containers[1]',
  '$.request.operation',
  '@.scalar',
  '@',
];

describe('compileDirectJmesPath', () => {
  it.each(expressions)('gives what the interpreter gives: %s', (expression) => {
    expectSameAsInterpreter(expression, pod);
    expectSameAsInterpreter(expression, null);
    expectSameAsInterpreter(expression, [pod, 1]);
  });

  it('compiles field paths and projections, and leaves functions, slices and variables to the interpreter', () => {
    expect(compileDirectJmesPath('a.b[].c')).not.toBe(compileJmesPath('a.b[].c'));
    expect(compileDirectJmesPath('a.b[].c')).toBe(compileDirectJmesPath('a.b[].c'));
    for (const expression of ['length(a)', 'a[1:2]', 'let $x = a in $x', 'a + b', 'a.keys(@)[]']) {
      expect(compileDirectJmesPath(expression), expression).toBe(compileJmesPath(expression));
    }
  });

  it('reports a key missing at the end of a path as the interpreter does', () => {
    expect(() => compileDirectJmesPath('request.object.nope').search(pod)).toThrow(JmesPathNotFoundError);
    expect(() => compileDirectJmesPath('request.object.nope').search(pod)).toThrow('Unknown key "nope" in path');
    expect(compileDirectJmesPath('request.nope.more').evaluate(pod)).toEqual({ found: false, missingKey: 'nope' });
  });

  it('does not read inherited properties as fields', () => {
    for (const expression of ['constructor', 'toString', '__proto__', 'a.constructor.name', 'a[*].hasOwnProperty']) {
      expectSameAsInterpreter(expression, { a: [{}, { constructor: 1 }] });
    }
  });

  it('checks what projections, flattens and multi-selects build against the result size limit', () => {
    const budget = () => new EvaluationBudget({ maxResultSize: 100 });
    const data = { items: Array.from({ length: 30 }, (_, i) => ({ name: `item-${i}`, list: [i, i] })) };
    for (const expression of ['items[].name', 'items[*].list[]', '[items, items]', '{a: items}', 'items[?name].name'])
      expectSameAsInterpreter(expression, data, budget);
    expect(() => compileDirectJmesPath('items[*].name').search(data, budget())).toThrow(EvaluationLimitExceeded);
    expect(() => compileDirectJmesPath('items[*].name').search(data, budget())).toThrow(
      'a projection exceeds the 100 bytes JMESPath result size limit in "items[*].name"',
    );
    expect(() => compileDirectJmesPath('items[].name').search(data, budget())).toThrow(/^a flatten exceeds/);
  });

  it('looks at the deadline along the walk', () => {
    let asked = 0;
    const budget = new EvaluationBudget({}, { expired: () => ++asked > 2 });
    const items = Array.from({ length: 100_000 }, (_, i) => ({ name: `n${i}` }));
    expect(() => compileDirectJmesPath("[?name == 'x'].name").search(items, budget)).toThrow(
      EvaluationDeadlineExceeded,
    );
    expect(asked).toBe(3);
  });

  it('agrees with the interpreter on random documents', () => {
    const key = fc.constantFrom('a', 'b', 'c');
    const json: fc.Arbitrary<JsonValue> = fc.letrec<{ value: JsonValue }>((tie) => ({
      value: fc.oneof(
        { depthSize: 'small' },
        fc.constantFrom<JsonValue>(null, true, false, 0, 1, '', 'x'),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(key, tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    const step = fc.constantFrom('.a', '.b', '.c', '[]', '[*]', '[0]', '[-1]', '.*', '[?a]', '[?b == `1`]');
    const expression = fc
      .tuple(key, fc.array(step, { maxLength: 5 }), fc.constantFrom('', ' || `"d"`', ' | [0]', ' && a'))
      .map(([first, steps, tail]) => first + steps.join('') + tail);
    fc.assert(
      fc.property(expression, json, (text, data) => {
        expectSameAsInterpreter(text, data);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('flattenOnce', () => {
  it('flattens one level as Array.prototype.flat(1) does on JSON arrays', () => {
    const json = fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<JsonValue>;
    fc.assert(
      fc.property(fc.array(json, { maxLength: 6 }), (array) => {
        expect(flattenOnce(array)).toEqual(array.flat(1));
      }),
    );
    expect(flattenOnce([[1, [2]], 3, [], [null]])).toEqual([1, [2], 3, null]);
  });
});

import { describe, expect, it } from 'vitest';
import {
  EvaluationBudget,
  EvaluationDeadlineExceeded,
  EvaluationLimitExceeded,
  type JsonValue,
} from '@edict/foundation';
import { compileJmesPath, JmesPathError, JmesPathNotFoundError, kyvernoFunctionNames } from './index';

const search = (expression: string, data: JsonValue = {}) => compileJmesPath(expression).search(data);

const pod: JsonValue = {
  metadata: { name: 'web', labels: { app: 'web', empty: '' }, annotations: null },
  spec: {
    containers: [
      { name: 'a', image: 'nginx', ports: [{ containerPort: 80 }] },
      { name: 'b', image: 'redis' },
    ],
  },
};

describe('compileJmesPath', () => {
  it('caches compiled queries by expression text', () => {
    expect(compileJmesPath('spec.containers[0].name')).toBe(compileJmesPath('spec.containers[0].name'));
    expect(compileJmesPath('a').expression).toBe('a');
  });

  it('names the expression and the problem on syntax errors', () => {
    expect(() => compileJmesPath('spec.[')).toThrow(JmesPathError);
    expect(() => compileJmesPath('spec.[')).toThrow(/invalid JMESPath expression "spec\.\[": .*Syntax error/);
    expect(() => compileJmesPath('`{bad json`')).toThrow(JmesPathError);
  });

  it('lists every Kyverno custom function once', () => {
    const names = kyvernoFunctionNames();
    expect(new Set(names).size).toBe(names.length);
    for (const name of [
      'compare',
      'x509_decode',
      'time_truncate',
      'image_normalize',
      'sha256',
      'is_external_url',
      'items',
    ]) {
      expect(names).toContain(name);
    }
    expect(names.length).toBe(50);
  });
});

describe('Kyverno missing-key semantics', () => {
  it('reports an unknown key of the whole expression as JmesPathNotFoundError', () => {
    expect(() => search('metadata.labels.missing', pod)).toThrow(JmesPathNotFoundError);
    expect(() => search('metadata.labels.missing', pod)).toThrow('Unknown key "missing" in path');
    expect(() => search('nope.deeper.still', pod)).toThrow('Unknown key "nope" in path');
    expect(() => search('spec.containers[0].missing', pod)).toThrow('Unknown key "missing" in path');
  });

  it('evaluate() reports the missing key without throwing', () => {
    expect(compileJmesPath('metadata.missing').evaluate(pod)).toEqual({ found: false, missingKey: 'missing' });
    expect(compileJmesPath('metadata.name').evaluate(pod)).toEqual({ found: true, value: 'web' });
  });

  it('treats a present null, or a field of a non-object, as null rather than missing', () => {
    expect(search('metadata.annotations', pod)).toBeNull();
    expect(search('metadata.annotations.foo', pod)).toBeNull();
    expect(search('metadata.name.length', pod)).toBeNull();
    expect(search('spec.containers.name', pod)).toBeNull();
  });

  it('turns a missing key into null inside ||, !, comparisons, functions, pipes and projections', () => {
    expect(search("metadata.labels.missing || 'default'", pod)).toBe('default');
    expect(search('metadata.labels.missing || metadata.other', pod)).toBeNull();
    expect(search('!(metadata.labels.missing)', pod)).toBe(true);
    expect(search('metadata.labels.missing == null', pod)).toBe(true);
    expect(search('not_null(metadata.missing, `1`)', pod)).toBe(1);
    expect(search('metadata.missing | @', pod)).toBeNull();
    expect(search('metadata | missing', pod)).toBeNull();
    expect(search('spec.containers[*].ports[0].containerPort', pod)).toEqual([80]);
    expect(search('spec.containers[?ports].name', pod)).toEqual(['a']);
    expect(search('{x: metadata.missing}', pod)).toEqual({ x: null });
    expect(search('[metadata.missing]', pod)).toEqual([null]);
    expect(search('missing[*]', pod)).toBeNull();
    expect(search('missing[]', pod)).toBeNull();
  });

  it('propagates a missing key on the right of && (as Kyverno does)', () => {
    expect(() => search('metadata.name && metadata.missing', pod)).toThrow(JmesPathNotFoundError);
    expect(search('metadata.missing && metadata.name', pod)).toBeNull();
  });
});

describe('expression semantics', () => {
  it('supports the usual selections, slices, filters and flattening', () => {
    expect(search('spec.containers[].image', pod)).toEqual(['nginx', 'redis']);
    expect(search('spec.containers[-1].name', pod)).toBe('b');
    expect(search('spec.containers[5]', pod)).toBeNull();
    expect(search('spec.containers[::-1].name', pod)).toEqual(['b', 'a']);
    expect(search("spec.containers[?image=='redis'].name | [0]", pod)).toBe('b');
    expect(search('[[`1`, `2`], `3`][]')).toEqual([1, 2, 3]);
    expect(search("'abcdef'[1:3]")).toBe('bc');
    expect(search('metadata.labels.*', pod)).toEqual(['web', '']);
    expect(search('$.metadata.name', pod)).toBe('web');
    expect(() => search('[`1`][::0]')).toThrow('Invalid slice, step cannot be 0');
  });

  it('evaluates arithmetic on numbers and yields null for other operands', () => {
    expect(search('`7` + `3`')).toBe(10);
    expect(search('`7` - `3` * `2`')).toBe(1);
    expect(search('`7` % `3`')).toBe(1);
    expect(search('`7` // `2`')).toBe(3);
    expect(search('`7` / `2`')).toBe(3.5);
    expect(search("'a' + `1`")).toBeNull();
    expect(search("-'a'")).toBeNull();
    expect(search('-`2`')).toBe(-2);
    expect(() => search('`1` / `0`')).toThrow(JmesPathError);
  });

  it('orders numbers only; equality is structural', () => {
    expect(search('`2` > `1`')).toBe(true);
    expect(search("'b' > 'a'")).toBeNull();
    expect(search('`{"a":[1,2]}` == `{"a":[1,2]}`')).toBe(true);
    expect(search('`1` != `1.0`')).toBe(false);
  });

  it('supports let bindings, also inside expression references', () => {
    expect(search('let $n = metadata.name in spec.containers[*].[$n, name]', pod)).toEqual([
      ['web', 'a'],
      ['web', 'b'],
    ]);
    expect(search('let $m = `1` in map(&[@, $m], [`1`, `2`])')).toEqual([
      [1, 1],
      [2, 1],
    ]);
    expect(() => search('$undefined')).toThrow(/variable not defined/);
  });

  it('lets built-ins with expression arguments see Kyverno semantics', () => {
    expect(search('sort_by(spec.containers, &image)[].name', pod)).toEqual(['a', 'b']);
    expect(search('max_by(spec.containers, &length(name)).name', pod)).toBe('a');
    expect(search('map(&missing, spec.containers)', pod)).toEqual([null, null]);
  });

  it('wraps function errors as JmesPathError with the runtime message', () => {
    expect(() => search('unknown_fn(@)')).toThrow(JmesPathError);
    expect(() => search('unknown_fn(@)')).toThrow(/Unknown function: unknown_fn/);
    expect(() => search('to_upper(`1`)')).toThrow(/to_upper\(\) expected argument 1 to be type \(string\)/);
    expect(() => search("compare('a')")).toThrow(/Invalid arity/);
  });

  it('does not leak Kyverno functions into the library-global runtime', async () => {
    const jmespath = await import('@jmespath-community/jmespath');
    expect(jmespath.search({}, "split('a,b', ',')")).toEqual(['a', 'b']);
    expect(() => jmespath.search({}, "to_upper('a')")).toThrow();
  });
});

describe('compileJmesPath budget', () => {
  const big = 'x'.repeat(1_500_000);

  it('refuses a built value past the result size limit, naming what built it and where', () => {
    expect(() => search("join('', [@, @])", big)).toThrow(EvaluationLimitExceeded);
    expect(() => search("join('', [@, @])", big)).toThrow(
      `a multi-select list exceeds the 2 MiB JMESPath result size limit in "join('', [@, @])"`,
    );
    expect(() => search('[@, @, @]', 'y'.repeat(1_000_000))).toThrow(/a multi-select list exceeds/);
    expect(() => search('[*].[@, @]', ['y'.repeat(600_000), 'z'.repeat(600_000)])).toThrow(/a projection exceeds/);
    expect(() => search('to_string([[@, @], [@, @]])', 'y'.repeat(600_000))).toThrow(/exceeds the 2 MiB/);
    expect(search("length(join('', [@, @]))", 'y'.repeat(1000))).toBe(2000);
  });

  it('checks builders whose output length is known before they build it', () => {
    const tiny = new EvaluationBudget({ maxResultSize: 1000 });
    expect(() => compileJmesPath("pad_left('a', `100000000`)").search({}, tiny)).toThrow(
      'the result of pad_left() exceeds the 1000 bytes JMESPath result size limit',
    );
    expect(() => compileJmesPath('join(@, `["", "", "", "", ""]`)').search('s'.repeat(300), tiny)).toThrow(
      /the result of join\(\) exceeds/,
    );
    expect(compileJmesPath("pad_right('a', `3`, '-')").search({}, tiny)).toBe('a--');
  });

  it('measures shared values once: a value doubled by reference 40 times is refused at once', () => {
    // [[v, v], [v, v]]... is 2^40 copies of v as JSON text, but only 40 arrays in memory.
    const nested =
      'let $v = @ in ' +
      Array.from(
        { length: 40 },
        (_, i) => `let $v${i} = [$v${i === 0 ? '' : i - 1}, $v${i === 0 ? '' : i - 1}] in`,
      ).join(' ') +
      ' length($v39)';
    expect(() => search(nested, 'abc')).toThrow(/a multi-select list exceeds the 2 MiB/);
  });

  it('stops at the deadline every few hundred nodes, even inside a filter whose errors Kyverno ignores', () => {
    let asked = 0;
    const budget = new EvaluationBudget({}, { expired: () => ++asked > 2 });
    const items = Array.from({ length: 100_000 }, (_, i) => ({ name: `n${i}` }));
    expect(() => compileJmesPath("[?contains(name, '7')].name | length(@)").search(items, budget)).toThrow(
      EvaluationDeadlineExceeded,
    );
    expect(asked).toBe(3);
    expect(budget.expired).toBe(true);
  });
});

describe('JmesPathQuery.dataOnly', () => {
  it('holds for expressions without function calls, at any depth', () => {
    expect(compileJmesPath("request.object.spec.[initContainers, containers][] || 'x'").dataOnly).toBe(true);
    expect(compileJmesPath('a[?b == `1`].c | [0]').dataOnly).toBe(true);
    expect(compileJmesPath('time_now_utc()').dataOnly).toBe(false);
    expect(compileJmesPath('a[?contains(b, `"x"`)].c').dataOnly).toBe(false);
    expect(compileJmesPath('{ n: length(a) }').dataOnly).toBe(false);
  });
});

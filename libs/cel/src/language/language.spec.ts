import { describe, expect, it } from 'vitest';
import { CelCompileError, celEnvironment, compileCel, parseCel } from '../compile';
import { CEL_LIMITS } from '../limits';
import { CelLimitExceeded, CelMeter } from '../meter';
import { toCel } from '../values';

const run = (expression: string, activation: Record<string, unknown> = {}, meter = new CelMeter()): unknown =>
  meter.run(() => compileCel(expression, { params: false, authorizer: false }, 'any').evaluate(activation));

const compiles = (expression: string): string => {
  try {
    compileCel(expression, { params: false, authorizer: false }, 'any');
    return 'compiled';
  } catch (error) {
    expect(error).toBeInstanceOf(CelCompileError);
    return (error as Error).message;
  }
};

describe("Edict's fixes of cel-js 8.0.0 in policies' CEL environment", () => {
  it('has() tests a key of any map, a literal one too, and the value of an optional', () => {
    expect(run("has({'a': 1}.a)")).toBe(true);
    expect(run("has({'a': 1}.b)")).toBe(false);
    expect(run("has(optional.of({'c': 1}).c) && !has(optional.of({'c': 1}).d)")).toBe(true);
    expect(run('has({}.?x.y)')).toBe(false);
    expect(run('has(object.metadata.labels.app)', { object: toCel({ metadata: { labels: { app: 'x' } } }) })).toBe(
      true,
    );
    expect(() => run('has(object.spec.x)', { object: toCel({ metadata: {} }) })).toThrow('No such key: spec');
    expect(compiles('has(1.a)')).toContain("has() cannot test a field of 'int'");
  });

  it('quantifiers over [] and macros over int-keyed maps bind what CEL binds', () => {
    expect(run('[].all(e, e > 0)')).toBe(true);
    expect(run("{6: 'six', 7: 'seven', 8: 'eight'}.exists_one(k, k % 5 == 2)")).toBe(true);
    expect(run("{1: 'a', 2: 'b'}.map(k, k * 10)")).toEqual([10n, 20n]);
    expect(run("{1u: 'a'}[1] + {1: 'b'}[1.0]")).toBe('ab');
    expect(() => run("{'a': 1, 'a': 2}")).toThrow('repeated map key: a');
    expect(() => run("{1.5: 'a'}")).toThrow('unsupported map key type: double');
  });

  it('two-variable comprehensions of cel-go (Kubernetes since 1.32)', () => {
    expect(run("['a', 'b'].all(i, v, i < 2 && v != '')")).toBe(true);
    expect(run("{'a': 1, 'b': 2}.exists(k, v, k == 'b' && v == 2)")).toBe(true);
    expect(run('[10, 20, 30].transformList(i, v, i > 0, v + i)')).toEqual([21n, 32n]);
    expect(run("{'a': 1, 'b': 2}.transformMap(k, v, v * 2)")).toEqual({ a: 2n, b: 4n });
    expect(run("{'a': 1}.transformMapEntry(k, v, {v: k})")).toEqual(new Map([[1n, 'a']]));
    expect(compiles('[1].all(i, i, true)')).toContain('variables must differ');
  });

  it('timestamps need a zone and stay within years 1 to 9999; offsets work as zones', () => {
    expect(() => run("timestamp('2023-01-01T00:00:00.123')")).toThrow('requires an RFC 3339 timestamp with a zone');
    expect(run("timestamp('2023-01-01T00:00:00.123Z') == timestamp('2023-01-01T01:00:00.123+01:00')")).toBe(true);
    expect(() => run("timestamp('9999-12-31T23:59:59Z') + duration('1s')")).toThrow('timestamp out of range');
    expect(run("timestamp('2009-02-13T23:31:30Z').getHours('+02:00')")).toBe(1n);
    expect(run("string(timestamp('2009-02-13T23:31:30Z'))")).toBe('2009-02-13T23:31:30Z');
  });

  it('int64 and uint64 overflow are errors', () => {
    expect(() => run('-(-9223372036854775808)')).toThrow('integer overflow');
    expect(() => run('(-9223372036854775808) / -1')).toThrow('integer overflow');
    expect(() => run('int(1e99)')).toThrow('integer overflow');
    expect(() => run('uint(-1.0)')).toThrow('unsigned integer overflow');
    expect(run('int(18446744073709551615u / 2u)')).toBe(9223372036854775807n);
  });

  it('equality is defined across types; numbers compare by value', () => {
    expect(run('dyn(1) == 1.0 && dyn(2u) == 2 && [1, 2] == [1.0, 2u]')).toBe(true);
    expect(run("dyn(1) == 'a'")).toBe(false);
    expect(run("dyn(1) != 'a'")).toBe(true);
    expect(run('dyn(3u) in [1, 2, 3] && 3.0 in {1: 1, 3u: 3}')).toBe(true);
    expect(run('dyn(9223372036854775807) < 9223372036854775808.0')).toBe(false);
    expect(run("b'a' < b'b'")).toBe(true);
  });

  it('optional syntax and functions: [?x], {?k: v}, optMap, optFlatMap, ofNonZeroValue, ==', () => {
    expect(run('[1, ?optional.none(), ?optional.of(2)]')).toEqual([1n, 2n]);
    expect(run("{'a': 1, ?'b': optional.none(), ?'c': optional.of(3)}")).toEqual({ a: 1n, c: 3n });
    expect(run('optional.of(41).optMap(x, x + 1).value()')).toBe(42n);
    expect(run("{'k': {'s': 1}}.?k.optFlatMap(m, m.?s).orValue(0)")).toBe(1n);
    expect(run("optional.ofNonZeroValue('').hasValue()")).toBe(false);
    expect(run('optional.of(1) == optional.of(1) && optional.none() != optional.of(1)')).toBe(true);
    expect(run('type(optional.none()) == optional_type')).toBe(true);
    expect(() => run("{'k': dyn(null)}.?k.f.hasValue()")).toThrow('no such key: f');
    expect(run("{'k': {}}.?k.f.hasValue()")).toBe(false);
    expect(compiles('[1, ?2]')).toContain("'?' needs an optional");
    expect(compiles('?1')).toContain("'?' marks only list elements and map keys");
  });

  it('or()/orValue() on a value that is not optional at run time answer it, as cel-go does', () => {
    // A ValidatingPolicy variable holding `object.spec.?x` is typed dyn; read later with orValue().
    const spec = toCel({ spec: { initContainers: [{ name: 'a' }], add: ['NET_RAW'] } });
    expect(run("dyn({'a': 1}.?a).orValue(2) + dyn({'a': 1}.?b).orValue(2)")).toBe(3n);
    expect(run('object.spec.initContainers.orValue([]).size()', { object: spec })).toBe(1n);
    expect(run('object.spec.?initContainers.orValue([]).size()', { object: spec })).toBe(1n);
    expect(run('dyn(object.spec).?ephemeralContainers.orValue([]).size()', { object: spec })).toBe(0n);
    expect(run('dyn(5).or(optional.of(3))')).toBe(5n);
    expect(run("dyn({'a': 1}.?b).or(optional.of(3)).value()")).toBe(3n);
    // The alternative is not evaluated when the receiver answers (short-circuit), and errors pass through.
    expect(run('dyn(1).orValue(1 / 0)')).toBe(1n);
    expect(() => run('object.spec.missing.orValue([])', { object: spec })).toThrow('No such key: missing');
    expect(() => run('dyn({}.?a).or(dyn(1))')).toThrow('optional.or(optional) argument must be optional');
    // value() and hasValue() have no overload for a plain value (cel-go: no such overload).
    expect(() => run('dyn(1).value()')).toThrow('no matching overload');
    expect(() => run('dyn(1).hasValue()')).toThrow('no matching overload');
    // A receiver typed neither optional nor dyn is still refused when checked.
    expect(compiles('1.orValue(2)')).toContain('must be optional');
  });

  it('has() tests a field selected from any expression: a call, a macro, an index', () => {
    const env = celEnvironment({ params: false, authorizer: false }).clone();
    env.registerFunction('meta(string): map<string, dyn>', (name: string) => toCel({ config: { [name]: {} } }), {
      async: false,
    });
    const evaluate = (expression: string) => parseCel(env, expression)({});
    expect(evaluate("has(meta('Volumes').config.Volumes)")).toBe(true);
    expect(evaluate("has(meta('Env').config.Volumes)")).toBe(false);
    expect(evaluate("has([{'a': {'b': 1}}][0].a.b) && has(['x'].map(v, {v: 1})[0].x)")).toBe(true);
    expect(() => evaluate("has(meta('x').absent.Volumes)")).toThrow('No such key: absent');
    expect(compiles("has(['x'].map(v, v).a)")).toContain("has() cannot test a field of 'list<");
  });

  it('syntax cel-js did not parse: raw bytes, .5, backquoted fields; UTF-8 in bytes literals', () => {
    expect(run("br'\\x'")).toEqual(new TextEncoder().encode('\\x'));
    expect(run('.5 + 0.5')).toBe(1);
    expect(run("{'foo.txt': 3}.`foo.txt`")).toBe(3n);
    expect(run("b'ÿ' == b'\\303\\277'")).toBe(true);
  });

  it('fails its macros clearly on asynchronous functions, which they do not await', () => {
    const env = celEnvironment({ params: false, authorizer: false }).clone();
    env.registerFunction('later(): bool', async () => Promise.resolve(true));
    const evaluate = (expression: string) => () => parseCel(env, expression)({});
    expect(evaluate('[1].all(i, v, later())')).toThrow('all() cannot use asynchronous functions');
    expect(evaluate('optional.of(1).optMap(x, later())')).toThrow('optMap() cannot use asynchronous functions');
  });

  it('keeps metering: the fixed constructs charge their steps and stop at the budget', () => {
    const big = `[${Array.from({ length: 200 }, (_, i) => i).join(',')}]`;
    const meter = new CelMeter(undefined, { ...CEL_LIMITS, maxSteps: 20_000 });
    expect(() => run(`${big}.all(i, v, ${big}.all(j, w, i + j + v + w >= 0))`, {}, meter)).toThrow(
      'CEL evaluation exceeded its budget of 20000 steps',
    );
    expect(meter.exceeded).toBeInstanceOf(CelLimitExceeded);
    const lists = new CelMeter(undefined, { ...CEL_LIMITS, maxListLength: 100 });
    expect(() => run(`${big}.transformList(i, v, v)`, {}, lists)).toThrow('a CEL list exceeds the limit of 100');
  });
});

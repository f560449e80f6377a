import { describe, expect, it, vi } from 'vitest';
import { Bindings } from './bindings';
import { parseExpression } from './expression';
import { evaluateJmesPath, ExpressionError, rewriteFunctions } from './jmespath';
import { templateValue } from './template';

describe('parseExpression', () => {
  it('recognises expressions, iteration, bindings and escapes', () => {
    expect(parseExpression('(a.b)')).toMatchObject({ engine: 'jp', statement: 'a.b', foreach: false });
    expect(parseExpression('~i.(items)')).toMatchObject({
      foreach: true,
      foreachName: 'i',
      engine: 'jp',
      statement: 'items',
    });
    expect(parseExpression('(x) -> y')).toMatchObject({ binding: 'y', engine: 'jp', statement: 'x' });
    expect(parseExpression('\\(x)\\')).toMatchObject({ engine: undefined, statement: '(x)' });
    expect(parseExpression('plain')).toMatchObject({ engine: undefined, statement: 'plain' });
  });
});

describe('evaluateJmesPath', () => {
  it('reads bindings as variables and returns null for a missing field', () => {
    const bindings = Bindings.of({ namespace: 'ns', test: { metadata: { name: 't' } } });
    expect(evaluateJmesPath("join('/', [$namespace, $test.metadata.name])", null, bindings)).toBe('ns/t');
    expect(evaluateJmesPath('missing.field', { a: 1 }, bindings)).toBeNull();
    expect(evaluateJmesPath('$v', null, Bindings.of({ v: 'with `backtick`' }))).toBe('with `backtick`');
  });

  it('maps chainsaw functions onto Kyverno ones, leaving string literals alone', () => {
    expect(rewriteFunctions("json_parse('trim_space(x)')").text).toBe("parse_json('trim_space(x)')");
    expect(evaluateJmesPath('trim_space(@)', ' \t hi \n', Bindings.empty())).toBe('hi');
    expect(evaluateJmesPath("trim_space(join('', [' a', 'b ']))", null, Bindings.empty())).toBe('ab');
    vi.stubEnv('EDICT_CHAINSAW_SPEC', 'set');
    expect(evaluateJmesPath("env('EDICT_CHAINSAW_SPEC')", null, Bindings.empty())).toBe('set');
    vi.unstubAllEnvs();
  });

  it('fails with the expression in the message', () => {
    expect(() => evaluateJmesPath('$nope', null, Bindings.empty())).toThrow(ExpressionError);
    expect(() => evaluateJmesPath('a ==', null, Bindings.empty())).toThrow(/a ==/);
  });
});

describe('templateValue', () => {
  it('replaces expression leaves and keeps keys (Kyverno anchors) as written', () => {
    const bindings = Bindings.of({ namespace: 'ns' });
    expect(
      templateValue(
        { metadata: { name: "(join('-', [$namespace, 'x']))" }, spec: { '(name)': 'keep', list: ['($namespace)', 3] } },
        bindings,
      ),
    ).toEqual({ metadata: { name: 'ns-x' }, spec: { '(name)': 'keep', list: ['ns', 3] } });
  });
});

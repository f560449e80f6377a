import { describe, expect, it } from 'vitest';
import { CelCompileError, compileCel, type CelVariables } from './compile';
import { CEL_LIMITS } from './limits';
import { CelMeter } from './meter';
import { toCel } from './values';

const plain: CelVariables = { params: false, authorizer: false };

function run(expression: string, activation: Record<string, unknown> = {}, variables = plain): unknown {
  const program = compileCel(expression, variables, 'any');
  return new CelMeter().run(() => program.evaluate({ object: null, oldObject: null, request: null, ...activation }));
}

describe('compileCel', () => {
  it('declares the admission variables; params and authorizer only when asked for', () => {
    expect(run('object.spec.replicas <= 3', { object: toCel({ spec: { replicas: 3 } }) })).toBe(true);
    expect(() => compileCel('params.max', plain, 'any')).toThrow('Unknown variable: params');
    expect(() => compileCel('authorizer.path("/").check("get")', plain, 'any')).toThrow('Unknown variable: authorizer');
    expect(run('params.max', { params: toCel({ max: 2 }) }, { params: true, authorizer: false })).toBe(2n);
  });

  it('refuses what does not parse or type-check, and a result of the wrong type, with a one-line reason', () => {
    const reason = (expression: string, type: 'bool' | 'string' = 'bool') => {
      try {
        compileCel(expression, plain, type);
        return 'compiled';
      } catch (error) {
        expect(error).toBeInstanceOf(CelCompileError);
        return (error as Error).message;
      }
    };
    expect(reason('object.spec ==')).toBe('Unexpected token: EOF (at character 15)');
    expect(reason('1 + "a"')).toContain('no such overload: int + string');
    expect(reason('"text"')).toBe('expression must evaluate to bool, not string');
    expect(reason('object.x', 'string')).toBe('compiled');
    expect(reason('')).toBe('expression is empty');
    expect(reason(`${'1 + '.repeat(CEL_LIMITS.maxExpressionLength / 4)}1 == 2`)).toBe(
      `expression is longer than ${CEL_LIMITS.maxExpressionLength} characters`,
    );
  });

  it('evaluates JSON as Kubernetes hands it to CEL: whole numbers are ints, maps keep odd keys', () => {
    const object = toCel({ spec: { replicas: 2, ratio: 0.5 }, data: { __proto__: 'x' } } as never);
    expect(run('object.spec.replicas + 1', { object })).toBe(3n);
    expect(run('object.spec.ratio * 2.0', { object })).toBe(1);
    expect(run('has(object.spec.missing)', { object })).toBe(false);
    expect(run('object.?spec.?missing.orValue("none")', { object })).toBe('none');
    expect(run('[1, "mixed"].size()')).toBe(2n);
  });

  it('runs `matches` on RE2: Go syntax, and no backtracking on patterns that explode in JavaScript', () => {
    expect(run('"app-123".matches("^app-\\\\d+$")')).toBe(true);
    expect(run('"Ab".matches("(?i)^ab$")')).toBe(true);
    const started = Date.now();
    expect(run(`"${'a'.repeat(5000)}!".matches("^(a+)+$")`)).toBe(false);
    // RE2 answers in milliseconds; JavaScript's backtracking would not finish in minutes.
    expect(Date.now() - started).toBeLessThan(5_000);
    expect(() => run('"a".matches("(")')).toThrow('error parsing regexp');
  });

  it("has Kubernetes' string, list, regex, URL and quantity libraries", () => {
    expect(run('"héllo".charAt(1)')).toBe('é');
    expect(run('"a-b-c".replace("-", "+", 1)')).toBe('a+b-c');
    expect(run('"abc".reverse()')).toBe('cba');
    expect(run('[1, 2, 3].isSorted() && ![2, 1].isSorted()')).toBe(true);
    expect(run('[3, 1, 2].min() == 1 && [3, 1, 2].max() == 3 && [1, 2].sum() == 3')).toBe(true);
    expect(run('["a", "b", "a"].lastIndexOf("a")')).toBe(2n);
    expect(run('"v1.2.3".find("[0-9]+")')).toBe('1');
    expect(run('"a1b22c333".findAll("[0-9]+", 2)')).toEqual(['1', '22']);
    expect(run('url("https://example.com:8443/path?x=1&x=2").getPort()')).toBe('8443');
    expect(run('url("https://[::1]:80/").getHostname()')).toBe('::1');
    expect(run('url("/just/a/path").getEscapedPath()')).toBe('/just/a/path');
    expect(run('isURL("not a url")')).toBe(false);
    expect(run('quantity("1Gi").isGreaterThan(quantity("1000Mi"))')).toBe(true);
    expect(run('quantity("1.5").add(quantity("500m")).asInteger()')).toBe(2n);
    expect(run('isQuantity("12x")')).toBe(false);
    expect(() => run('[].min()')).toThrow('min called on an empty list');
  });
});

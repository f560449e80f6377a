import { describe, expect, it } from 'vitest';
import { BoundedCache } from '@edict/foundation';
import { EvaluationContext } from './context';
import { currentValueExpression, parsePath, toJmesPath } from './current-path';
import { substituteVariables } from './substitute';

describe('{{@}} path conversion', () => {
  it('parses traversal paths with escaped slashes', () => {
    expect(parsePath('/a/b\\/c/0')).toEqual(['a', 'b/c', '0']);
  });

  it('writes JMESPath with indexes and quoted keys', () => {
    expect(toJmesPath(['request', 'object', 'spec', 'containers', '0', 'image'])).toBe(
      'request.object.spec.containers[0].image',
    );
    expect(toJmesPath(['a', 'app.kubernetes.io/name', '9lives', 'q"x'])).toBe(
      'a."app.kubernetes.io/name"."9lives"."q\\"x"',
    );
  });

  it('skips the first two components, and everything up to foreach', () => {
    expect(currentValueExpression('/validate/pattern/metadata/name', ['request', 'object'])).toBe(
      'request.object.metadata.name',
    );
    expect(currentValueExpression('/mutate/foreach/1/patchStrategicMerge/spec', ['target'])).toBe('target.spec');
    expect(currentValueExpression('/metadata/name', ['request', 'object'])).toBe('request.object');
  });
});

describe('BoundedCache', () => {
  it('evicts the least recently used entry', () => {
    const cache = new BoundedCache<number>(2);
    cache.set('a', 1);
    cache.set('b', 2);
    cache.get('a');
    cache.set('c', 3);
    expect([cache.get('a'), cache.get('b'), cache.get('c'), cache.size]).toEqual([1, undefined, 3, 2]);
  });

  it('keeps no entry for a key over its length bound, and remembers what getOrCreate made', () => {
    const cache = new BoundedCache<number>(10, 4);
    let made = 0;
    const make = (key: string) => ((made += 1), key.length);
    expect([cache.getOrCreate('abcd', make), cache.getOrCreate('abcd', make)]).toEqual([4, 4]);
    expect([cache.getOrCreate('abcde', make), cache.getOrCreate('abcde', make)]).toEqual([5, 5]);
    expect([made, cache.size]).toEqual([3, 1]);
  });
});

describe('non-terminating substitution', () => {
  it('stops where Kyverno would loop forever', () => {
    const ctx = new EvaluationContext({ a: 'x{{a}}' });
    expect(() => substituteVariables('y{{a}}', ctx)).toThrow(/does not terminate/);
  });
});

import { describe, expect, it } from 'vitest';
import { compileCel } from '../compile';

const MUTATION = { params: false, authorizer: false, patchTypes: true } as const;

describe('a null branch of a conditional', () => {
  it('joins a typed object branch, as cel-go lets null join messages', () => {
    const program = compileCel(
      '[1, 2].map(i, i == 1 ? JSONPatch{op: "add", path: "/a", value: i} : null).filter(p, p != null)',
      MUTATION,
      'list<JSONPatch>',
    );
    const value = program.evaluate({}) as { path: string }[];
    expect(value).toHaveLength(1);
    expect(value[0]?.path).toBe('/a');
    expect(compileCel('false ? [1] : null', MUTATION, 'any').evaluate({})).toBeNull();
  });

  it('leaves other mismatched branches refused', () => {
    expect(() => compileCel('true ? 1 : "one"', MUTATION, 'any')).toThrow(/Ternary branches/);
  });
});

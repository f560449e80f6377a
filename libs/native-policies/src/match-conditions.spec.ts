import { describe, expect, it } from 'vitest';
import { AccessReviews, CelAuthorizer, toCel } from '@edict/cel';
import {
  compileMatchConditions,
  evaluateMatchConditions,
  matchConditionErrors,
  MatchConditionError,
  type MatchCondition,
} from './match-conditions';

const VARS = { params: false, authorizer: true };
const activation = (object: unknown) => ({
  object: toCel(object as never),
  oldObject: null,
  request: toCel({ operation: 'CREATE' }),
});
const compiled = (conditions: MatchCondition[]) => compileMatchConditions(conditions, VARS, 'spec.matchConditions');

describe('compileMatchConditions', () => {
  it('names every field kube would refuse', () => {
    const errors = matchConditionErrors(
      [
        { name: '', expression: 'true' },
        { name: 'a', expression: 'object.x' },
        { name: 'a', expression: '1 + 1' },
        { name: 'bad name!', expression: '' },
        { name: 'c', expression: 'object.(' },
      ],
      VARS,
      'spec.matchConditions',
    );
    const fields = errors.map((e) => e.field);
    expect(fields).toEqual([
      'spec.matchConditions[0].name',
      'spec.matchConditions[2].name',
      'spec.matchConditions[2].expression',
      'spec.matchConditions[3].name',
      'spec.matchConditions[3].expression',
      'spec.matchConditions[4].expression',
    ]);
    expect(errors[1]!.message).toBe('Duplicate value: "a"');
    expect(errors[2]!.message).toMatch(/^Invalid value: "1 \+ 1": compilation failed: .*bool/);
    expect(errors[3]!.message).toMatch(/name part must consist of alphanumeric characters/);
    expect(errors[4]!.message).toBe('Required value');
  });

  it('refuses more than 64 conditions', () => {
    const many = Array.from({ length: 65 }, (_, i) => ({ name: `c${i}`, expression: 'true' }));
    expect(matchConditionErrors(many, VARS, 'spec.matchConditions')[0]).toEqual({
      field: 'spec.matchConditions',
      message: 'Too many: 65: must have at most 64 items',
    });
  });

  it('throws MatchConditionError naming the field', () => {
    expect(() => compiled([{ name: 'x', expression: 'params.a' }])).toThrow(MatchConditionError);
    try {
      compiled([{ name: 'x', expression: 'params.a' }]);
    } catch (error) {
      expect((error as MatchConditionError).field).toBe('spec.matchConditions[0].expression');
    }
  });
});

describe('evaluateMatchConditions', () => {
  it('matches when all are true', async () => {
    const c = compiled([
      { name: 'a', expression: 'object.kind == "Pod"' },
      { name: 'b', expression: 'request.operation == "CREATE"' },
    ]);
    expect(await evaluateMatchConditions(c, activation({ kind: 'Pod' }))).toEqual({ matches: true });
  });

  it('does not match when one is false, even if another errors', async () => {
    const c = compiled([
      { name: 'errors', expression: 'object.missing.field == 1' },
      { name: 'false', expression: 'object.kind == "Deployment"' },
    ]);
    expect(await evaluateMatchConditions(c, activation({ kind: 'Pod' }))).toEqual({
      matches: false,
      failedCondition: 'false',
    });
  });

  it('reports errors (joined) when none is false', async () => {
    const one = compiled([
      { name: 'errors', expression: 'object.missing == 1' },
      { name: 'true', expression: 'true' },
    ]);
    const result = await evaluateMatchConditions(one, activation({ kind: 'Pod' }));
    expect(result).toEqual({ error: expect.stringMatching(/^expression 'object.missing == 1' resulted in error: /) });
    const two = compiled([
      { name: 'e1', expression: 'object.a == 1' },
      { name: 'e2', expression: 'object.b == 1' },
    ]);
    const joined = await evaluateMatchConditions(two, activation({}));
    expect('error' in joined && joined.error).toMatch(
      /^\[expression 'object.a == 1' .*, expression 'object.b == 1' .*\]$/,
    );
  });

  it('answers authorizer checks through the given reviewer; without one every check is an errored decision (not allowed)', async () => {
    const c = compiled([
      { name: 'can', expression: "authorizer.group('').resource('pods').check('create').allowed()" },
    ]);
    const withAuthorizer = () => ({
      ...activation({}),
      authorizer: new CelAuthorizer(new AccessReviews(8), { user: 'alice' }),
    });
    const asked: unknown[] = [];
    const allowed = await evaluateMatchConditions(c, withAuthorizer(), {
      authorize: (question) => {
        asked.push(question);
        return { allowed: question.user === 'alice' };
      },
    });
    expect(allowed).toEqual({ matches: true });
    expect(asked).toEqual([{ user: 'alice', resourceAttributes: { group: '', resource: 'pods', verb: 'create' } }]);
    expect(await evaluateMatchConditions(c, withAuthorizer(), { authorize: () => ({ allowed: false }) })).toEqual({
      matches: false,
      failedCondition: 'can',
    });
    const closed = await evaluateMatchConditions(c, withAuthorizer());
    expect(closed).toEqual({ matches: false, failedCondition: 'can' });
  });

  it("ends a runaway expression with kube's cost error", async () => {
    const c = compiled([{ name: 'big', expression: 'object.items.all(a, object.items.all(b, a + b >= 0))' }]);
    const items = Array.from({ length: 2000 }, (_, i) => i);
    const result = await evaluateMatchConditions(c, activation({ items }), {
      bounds: { perExpressionSteps: 10_000, perCallSteps: 1_000_000 },
    });
    expect(result).toEqual({ error: expect.stringContaining('operation cancelled: actual cost limit exceeded') });
  });
});

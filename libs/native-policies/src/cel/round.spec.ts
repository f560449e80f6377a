import { describe, expect, it } from 'vitest';
import { AccessReviews, CelAuthorizer, compileCel, toCel } from '@edict/cel';
import { EvaluationDeadlineExceeded } from '@edict/foundation';
import { CallBudgetExceeded, CelRound, inRounds, OUT_OF_BUDGET, PENDING } from './round';

const VARS = { params: false, authorizer: true };
const program = (source: string) => compileCel(source, VARS, 'any');
const items = { object: toCel({ items: Array.from({ length: 200 }, (_, i) => i) }) };
const QUADRATIC = 'object.items.all(a, object.items.all(b, a + b >= 0))';

describe('CelRound', () => {
  it('evaluates to a value, or to kube-worded errors', () => {
    const round = new CelRound(new AccessReviews(4));
    expect(round.evaluate(program('1 + 2'), {})).toEqual({ value: 3n });
    expect(round.evaluate(program('object.missing'), { object: toCel({}) })).toEqual({
      error: expect.stringMatching(/^expression 'object.missing' resulted in error: /),
    });
  });

  it('limits each expression', () => {
    const round = new CelRound(new AccessReviews(4), { perExpressionSteps: 1_000, perCallSteps: 1_000_000 });
    expect(round.evaluate(program(QUADRATIC), items)).toEqual({
      error: `expression '${QUADRATIC}' resulted in error: operation cancelled: actual cost limit exceeded`,
    });
    // The next expression has a limit of its own.
    expect(round.evaluate(program('true'), {})).toEqual({ value: true });
  });

  it('stops the whole call once its budget is spent, even if CEL would absorb the error', () => {
    const round = new CelRound(new AccessReviews(4), { perExpressionSteps: 1_000_000, perCallSteps: 50_000 });
    expect(() => round.evaluate(program(`${QUADRATIC} || true`), items)).toThrow(CallBudgetExceeded);
    expect(() => round.evaluate(program('true'), {})).toThrow(OUT_OF_BUDGET);
  });

  it('stops at the deadline', () => {
    const round = new CelRound(new AccessReviews(4), undefined, { expired: () => true });
    expect(() => round.evaluate(program(QUADRATIC), items)).toThrow(EvaluationDeadlineExceeded);
  });

  it('ends a round that met an unanswered authorizer check, and runs it again once answered', async () => {
    const reviews = new AccessReviews(4);
    const check = program("authorizer.path('/healthz').check('get').allowed()");
    const activation = { authorizer: new CelAuthorizer(reviews, { user: 'u' }) };
    expect(() => new CelRound(reviews).evaluate(check, activation)).toThrow();
    let rounds = 0;
    const result = await inRounds(
      reviews,
      () => ({ allowed: true }),
      () => {
        rounds++;
        return new CelRound(reviews).evaluate(check, activation);
      },
    );
    expect(result).toEqual({ value: true });
    expect(rounds).toBe(2);
    const fresh = new AccessReviews(4);
    let thrown: unknown;
    try {
      new CelRound(fresh).evaluate(check, { authorizer: new CelAuthorizer(fresh, { user: 'u' }) });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBe(PENDING);
  });

  it('composes variables lazily, once each, and refuses a variable that reads itself', () => {
    const round = new CelRound(new AccessReviews(4));
    const activation: Record<string, unknown> = { object: toCel({ n: 2 }) };
    let evaluated = 0;
    const counted = {
      source: 'object.n * 10',
      evaluate: (a: Readonly<Record<string, unknown>>) => (evaluated++, program('object.n * 10').evaluate(a)),
    };
    activation.variables = round.lazyVariables(
      [
        { name: 'tens', program: counted },
        { name: 'loop', program: program('variables.loop + 1') },
      ],
      activation,
    );
    expect(round.evaluate(program('variables.tens + variables.tens'), activation)).toEqual({ value: 40n });
    expect(evaluated).toBe(1);
    expect(round.evaluate(program('variables.loop'), activation)).toEqual({
      error: expect.stringMatching(/refers to itself/),
    });
  });
});

import { compile } from '@jmespath-community/jmespath';
import { EvaluationBudget, EvaluationLimitExceeded } from '../budget';
import type { JsonValue } from '../json';
import { JmesPathError, JmesPathNotFoundError } from './errors';
import { Missing, type AstNode } from './interpreter';
import { evaluate } from './runtime';
import './functions/register';
import { BoundedCache } from '../variables/bounded-cache';

/** Outcome of a search that does not throw for an unresolved key. */
export type JmesPathResult =
  { readonly found: true; readonly value: JsonValue } | { readonly found: false; readonly missingKey: string };

export interface JmesPathQuery {
  readonly expression: string;
  /**
   * Kyverno semantics: throws `JmesPathNotFoundError` (`Unknown key "x" in path`) when the
   * expression's value is a key missing from its object, `JmesPathError` on any other failure.
   * The budget bounds the evaluation (deadline, result sizes): EvaluationDeadlineExceeded or
   * EvaluationLimitExceeded when passed; without one, the default size limits apply.
   */
  search(data: JsonValue, budget?: EvaluationBudget): JsonValue;
  /** Like `search`, but reports an unresolved key as `{ found: false }` instead of throwing. */
  evaluate(data: JsonValue, budget?: EvaluationBudget): JmesPathResult;
}

class CompiledQuery implements JmesPathQuery {
  constructor(
    readonly expression: string,
    private readonly ast: AstNode,
  ) {}

  search(data: JsonValue, budget = new EvaluationBudget()): JsonValue {
    const result = this.run(data, budget);
    if (result instanceof Missing) throw new JmesPathNotFoundError(result.key);
    return result;
  }

  evaluate(data: JsonValue, budget = new EvaluationBudget()): JmesPathResult {
    const result = this.run(data, budget);
    return result instanceof Missing ? { found: false, missingKey: result.key } : { found: true, value: result };
  }

  private run(data: JsonValue, budget: EvaluationBudget) {
    try {
      return evaluate(this.ast, data, budget);
    } catch (error) {
      if (error instanceof EvaluationLimitExceeded) error.locate(this.expression);
      throw error;
    }
  }
}

const cache = new BoundedCache<CompiledQuery>(2000, 8 * 1024);

/** Parses once per distinct expression (bounded LRU cache); throws JmesPathError on bad syntax. */
export function compileJmesPath(expression: string): JmesPathQuery {
  return cache.getOrCreate(expression, () => {
    let ast: AstNode;
    try {
      ast = compile(expression) as unknown as AstNode;
    } catch (error) {
      const problem = error instanceof Error ? error.message : String(error);
      throw new JmesPathError(`invalid JMESPath expression "${expression}": ${problem}`);
    }
    return new CompiledQuery(expression, ast);
  });
}

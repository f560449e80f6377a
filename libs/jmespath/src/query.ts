import { compile } from '@jmespath-community/jmespath';
import {
  EvaluationBudget,
  EvaluationLimitExceeded,
  BoundedCache,
  errorMessage,
  type JsonValue,
} from '@edict/foundation';
import { JmesPathError, JmesPathNotFoundError } from './errors';
import { compileDirect, type DirectNode } from './direct';
import { Missing, type AstNode } from './interpreter';
import { evaluate } from './runtime';
import './functions/register';

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
  /**
   * Whether the result depends on the data alone: the expression calls no function (some read the
   * clock or draw random numbers), so searching the same data again gives the same result.
   */
  readonly dataOnly: boolean;
}

class CompiledQuery implements JmesPathQuery {
  readonly dataOnly: boolean;

  constructor(
    readonly expression: string,
    private readonly ast: AstNode,
    /** Set for a query compiled to closures (`compileDirectJmesPath`); the interpreter runs the others. */
    private readonly direct?: DirectNode,
  ) {
    this.dataOnly = !callsFunction(ast);
  }

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
      return this.direct ? this.direct(data, data, budget) : evaluate(this.ast, data, budget);
    } catch (error) {
      if (error instanceof EvaluationLimitExceeded) error.locate(this.expression);
      throw error;
    }
  }
}

/** Whether any node of the tree is a function call (a literal that merely looks like one counts too). */
function callsFunction(node: unknown): boolean {
  if (node === null || typeof node !== 'object') return false;
  if (Array.isArray(node)) return node.some(callsFunction);
  const fields = node as Record<string, unknown>;
  if (fields['type'] === 'Function') return true;
  return Object.keys(fields).some((key) => callsFunction(fields[key]));
}

const cache = new BoundedCache<CompiledQuery>(2000, 8 * 1024);

/** Parses once per distinct expression (bounded LRU cache); throws JmesPathError on bad syntax. */
export function compileJmesPath(expression: string): JmesPathQuery {
  return cache.getOrCreate(expression, () => new CompiledQuery(expression, parse(expression)));
}

const directCache = new BoundedCache<JmesPathQuery>(2000, 8 * 1024);

/**
 * `compileJmesPath` for a policy's compiled steps: an expression the closure compiler handles
 * (see `direct.ts`) runs as closures, with the same results, errors and budget; any other is the
 * interpreter's query itself. Cached by text, so rules of many policies asking the same question
 * share one query object (and its shared results, see `EvaluationContext`).
 */
export function compileDirectJmesPath(expression: string): JmesPathQuery {
  return directCache.getOrCreate(expression, () => {
    const ast = parse(expression);
    const direct = compileDirect(ast);
    return direct ? new CompiledQuery(expression, ast, direct) : compileJmesPath(expression);
  });
}

function parse(expression: string): AstNode {
  try {
    return compile(expression) as unknown as AstNode;
  } catch (error) {
    const problem = errorMessage(error);
    throw new JmesPathError(`invalid JMESPath expression "${expression}": ${problem}`);
  }
}

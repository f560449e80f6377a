import {
  isBudgetError,
  type EvaluationBudget,
  deepEqual,
  isObject,
  type JsonObject,
  type JsonValue,
} from '@edict/foundation';
import { JmesPathError } from './errors';

/**
 * A tree-walking evaluator over the community parser's AST with Kyverno's semantics, which differ
 * from the community interpreter in a few observable ways:
 * - a field missing from an object yields a "not found" marker (Kyverno: NotFoundError) that
 *   propagates through sub-expressions and index expressions; `||`, `!`, comparisons, function
 *   arguments, pipes, projections, multi-selects and `let` bindings turn it into null;
 * - arithmetic and ordering comparisons on non-numbers yield null instead of failing;
 * - a projection over a sliced string returns the sliced string itself;
 * - flatten, filter and value projections swallow any error of their left side (return null).
 *
 * Every node is a step of the evaluation's budget (its deadline), and every value a node builds
 * (function results, projections, flatten, multi-selects) is checked against its size limit.
 */

/** Marker for an unresolved key; never escapes this module's callers except as `Missing`. */
export class Missing {
  constructor(readonly key: string) {}
}

export type EvalResult = JsonValue | Missing;

/** Calls a registered function; exprefs arrive as `{ expref: true, ...node }` like the library. */
export type FunctionCaller = (name: string, args: unknown[]) => JsonValue;

// Local mirror of the community parser's node shapes (the package does not export them).
export interface AstNode {
  readonly type: string;
  readonly [field: string]: unknown;
}
interface Binary extends AstNode {
  readonly left: AstNode;
  readonly right: AstNode;
}

type Scope = ReadonlyMap<string, JsonValue>;
const EMPTY_SCOPE: Scope = new Map();

export class KyvernoInterpreter {
  constructor(
    private readonly root: JsonValue,
    private readonly callFunction: FunctionCaller,
    readonly budget: EvaluationBudget,
    private scope: Scope = EMPTY_SCOPE,
  ) {}

  evaluate(node: AstNode, value: JsonValue): EvalResult {
    this.budget.step();
    switch (node.type) {
      case 'Field':
        return extractField(value, node['name'] as string);
      case 'Subexpression':
      case 'IndexExpression': {
        const { left, right } = node as Binary;
        const base = this.evaluate(left, value);
        if (base instanceof Missing || base === null) return base;
        return this.evaluate(right, base);
      }
      case 'Index':
        return indexArray(value, node['value'] as number);
      case 'Slice':
        return sliceValue(value, node);
      case 'Projection':
        return this.projection(node as Binary, value);
      case 'FilterProjection':
        return this.filterProjection(node as Binary & { condition: AstNode }, value);
      case 'ValueProjection':
        return this.valueProjection(node as Binary, value);
      case 'Flatten': {
        const base = this.swallowAll(node['child'] as AstNode, value);
        if (!Array.isArray(base)) return null;
        return this.built(flattenOnce(base), 'a flatten');
      }
      case 'Identity':
      case 'Current':
        return value;
      case 'Root':
        return this.root;
      case 'Literal':
        return node['value'] as JsonValue;
      case 'MultiSelectList':
        return this.built(
          (node['children'] as AstNode[]).map((child) => this.lenient(child, value)),
          'a multi-select list',
        );
      case 'MultiSelectHash': {
        const out: JsonObject = {};
        for (const pair of node['children'] as Array<{ name: string; value: AstNode }>) {
          out[pair.name] = this.lenient(pair.value, value);
        }
        return this.built(out, 'a multi-select hash');
      }
      case 'OrExpression': {
        const { left, right } = node as Binary;
        const first = this.lenient(left, value);
        return isFalse(first) ? this.lenient(right, value) : first;
      }
      case 'AndExpression': {
        const { left, right } = node as Binary;
        const first = this.lenient(left, value);
        // Kyverno evaluates the right side as is: a missing key there still propagates.
        return isFalse(first) ? first : this.evaluate(right, value);
      }
      case 'NotExpression':
        return isFalse(this.lenient(node['child'] as AstNode, value));
      case 'Pipe': {
        const { left, right } = node as Binary;
        return this.lenient(right, this.lenient(left, value));
      }
      case 'Comparator':
        return this.compare(node as Binary & { name: string }, value);
      case 'Arithmetic':
        return this.arithmetic(node as Binary & { operator: string }, value);
      case 'Unary': {
        const operand = this.lenient(node['operand'] as AstNode, value);
        if (typeof operand !== 'number') return null;
        return node['operator'] === 'Minus' ? -operand : operand;
      }
      case 'Function': {
        const name = node['name'] as string;
        const result = this.callFunction(
          name,
          (node['children'] as AstNode[]).map((child) =>
            child.type === 'ExpressionReference'
              ? { expref: true, ...(child['child'] as AstNode) }
              : this.lenient(child, value),
          ),
        );
        return this.built(result, name);
      }
      case 'ExpressionReference':
        return { expref: true, ...(node['child'] as AstNode) } as unknown as JsonValue;
      case 'LetExpression':
        return this.letExpression(node, value);
      case 'Variable': {
        const name = node['name'] as string;
        const bound = this.scope.get(name);
        if (bound === undefined) throw new JmesPathError(`variable not defined: $${name}`);
        return bound;
      }
      case 'Ternary': {
        const condition = this.lenient(node['condition'] as AstNode, value);
        return this.evaluate((isFalse(condition) ? node['falseExpr'] : node['trueExpr']) as AstNode, value);
      }
      default:
        throw new JmesPathError(`unsupported JMESPath node: ${node.type}`);
    }
  }

  /** Evaluates with "not found" read as null (what most composite nodes do in Kyverno). */
  lenient(node: AstNode, value: JsonValue): JsonValue {
    const result = this.evaluate(node, value);
    return result instanceof Missing ? null : result;
  }

  /** Kyverno ignores every error of the left side of flatten/filter/value projections (not the budget's). */
  private swallowAll(node: AstNode, value: JsonValue): JsonValue {
    try {
      return this.lenient(node, value);
    } catch (error) {
      if (isBudgetError(error)) throw error;
      return null;
    }
  }

  /**
   * A value this evaluation built, once it is known to fit the result size limit. `source` is a
   * function name or what else built it ('a projection'), for the error message.
   */
  private built<T extends JsonValue>(value: T, source: string): T {
    if (typeof value === 'object' && value !== null) this.budget.checkResult(value, source);
    else if (typeof value === 'string') this.budget.checkLength(value.length, source);
    return value;
  }

  private projection(node: Binary, value: JsonValue): EvalResult {
    const { left, right } = node;
    const base = this.lenient(left, value);
    if (!Array.isArray(base)) {
      const slicesString = left.type === 'IndexExpression' && (left as Binary).right.type === 'Slice';
      return slicesString && typeof base === 'string' ? base : null;
    }
    const collected: JsonValue[] = [];
    for (const element of base) {
      const current = this.lenient(right, element);
      if (current !== null) collected.push(current);
    }
    return this.built(collected, 'a projection');
  }

  private filterProjection(node: Binary & { condition: AstNode }, value: JsonValue): EvalResult {
    const base = this.swallowAll(node.left, value);
    if (!Array.isArray(base)) return null;
    const collected: JsonValue[] = [];
    for (const element of base) {
      if (isFalse(this.lenient(node.condition, element))) continue;
      const current = this.lenient(node.right, element);
      if (current !== null) collected.push(current);
    }
    return this.built(collected, 'a projection');
  }

  private valueProjection(node: Binary, value: JsonValue): EvalResult {
    const base = this.swallowAll(node.left, value);
    if (!isObject(base)) return null;
    const collected: JsonValue[] = [];
    for (const element of Object.values(base)) {
      const current = this.lenient(node.right, element);
      if (current !== null) collected.push(current);
    }
    return this.built(collected, 'a projection');
  }

  private compare(node: Binary & { name: string }, value: JsonValue): EvalResult {
    return compareValues(node.name, this.lenient(node.left, value), this.lenient(node.right, value));
  }

  private arithmetic(node: Binary & { operator: string }, value: JsonValue): EvalResult {
    const left = this.lenient(node.left, value);
    const right = this.lenient(node.right, value);
    if (typeof left !== 'number' || typeof right !== 'number') return null;
    switch (node.operator) {
      case 'Plus':
        return left + right;
      case 'Minus':
        return left - right;
      case 'Multiply':
      case 'Star':
        return left * right;
      case 'Modulo':
        return finite(left % right);
      case 'Divide':
        return finite(left / right);
      case 'Div':
        return finite(Math.floor(left / right));
    }
    throw new JmesPathError(`unknown arithmetic operator: ${node.operator}`);
  }

  private letExpression(node: AstNode, value: JsonValue): EvalResult {
    const saved = this.scope;
    try {
      const scope = new Map(this.scope);
      for (const binding of node['bindings'] as Array<{ variable: string; reference: AstNode }>) {
        scope.set(binding.variable, this.lenient(binding.reference, value));
      }
      this.scope = scope;
      return this.lenient(node['expression'] as AstNode, value);
    } finally {
      this.scope = saved;
    }
  }
}

/** JSON cannot carry Infinity/NaN; Go would fail later when encoding them, so fail here. */
function finite(n: number): number {
  if (!Number.isFinite(n)) throw new JmesPathError('arithmetic result is not a finite number (division by zero)');
  return n;
}

function extractField(value: JsonValue, key: string): EvalResult {
  if (!isObject(value)) return null;
  return Object.prototype.hasOwnProperty.call(value, key) ? (value[key] as JsonValue) : new Missing(key);
}

function indexArray(value: JsonValue, index: number): JsonValue {
  if (!Array.isArray(value)) return null;
  const position = index < 0 ? index + value.length : index;
  return position >= 0 && position < value.length ? (value[position] as JsonValue) : null;
}

function sliceValue(value: JsonValue, node: AstNode): JsonValue {
  const isString = typeof value === 'string';
  if (!Array.isArray(value) && !isString) return null;
  const items: JsonValue[] = isString ? [...value] : value;
  const step = (node['step'] as number | null) ?? 1;
  if (step === 0) throw new JmesPathError('Invalid slice, step cannot be 0');
  const length = items.length;
  const start = sliceBound(node['start'] as number | null, length, step, step < 0 ? length - 1 : 0);
  const stop = sliceBound(node['stop'] as number | null, length, step, step < 0 ? -1 : length);
  const out: JsonValue[] = [];
  if (step > 0) for (let i = start; i < stop; i += step) out.push(items[i] as JsonValue);
  else for (let i = start; i > stop; i += step) out.push(items[i] as JsonValue);
  return isString ? out.join('') : out;
}

function sliceBound(bound: number | null, length: number, step: number, fallback: number): number {
  if (bound === null) return fallback;
  if (bound < 0) {
    const shifted = bound + length;
    return shifted < 0 ? (step < 0 ? -1 : 0) : shifted;
  }
  return bound >= length ? (step < 0 ? length - 1 : length) : bound;
}

/**
 * `array.flat(1)` for JSON arrays (no holes), written out: V8's `flat` costs several times more,
 * and foreach lists and condition keys flatten on every request.
 */
export function flattenOnce(array: readonly JsonValue[]): JsonValue[] {
  const out: JsonValue[] = [];
  for (const item of array) {
    if (Array.isArray(item)) for (const inner of item) out.push(inner);
    else out.push(item);
  }
  return out;
}

/** JMESPath falsiness: null, false, "", [], {}. */
export function isFalse(value: JsonValue): boolean {
  if (value === null || value === false || value === '') return true;
  if (Array.isArray(value)) return value.length === 0;
  if (isObject(value)) return Object.keys(value).length === 0;
  return false;
}

/** A comparator's result: equality on any values, order on numbers only (null otherwise, as in JMESPath). */
export function compareValues(comparator: string, left: JsonValue, right: JsonValue): JsonValue {
  switch (comparator) {
    case 'EQ':
      return deepEqual(left, right);
    case 'NE':
      return !deepEqual(left, right);
  }
  if (typeof left !== 'number' || typeof right !== 'number') return null;
  switch (comparator) {
    case 'GT':
      return left > right;
    case 'GTE':
      return left >= right;
    case 'LT':
      return left < right;
    case 'LTE':
      return left <= right;
  }
  return null;
}

/**
 * Assertion trees with kyverno-json's semantics: a map asserts each of its keys (partial match),
 * an array asserts element by element (same length), a leaf compares after evaluating an
 * expression value. Keys may be expressions projecting the node (`(expr)`), iterate (`~.(expr)`),
 * or bind the projection (`(expr) -> name`).
 *
 * Two kinds of problems: `AssertionFailure`s (the value does not match; retried by assert/error)
 * and `AssertionInternalError` (the tree cannot be evaluated: a bad expression, incomparable types;
 * chainsaw stops the operation at once).
 */
import { isObject, type JsonValue } from '@edict/foundation';
import type { Bindings } from '../expressions/bindings';
import { parseExpression } from '../expressions/expression';
import { ExpressionError, evaluateJmesPath } from '../expressions/jmespath';

export interface AssertionFailure {
  /** The field path, kyverno-json style: `spec.containers[0].image`, `data[key]`. */
  readonly path: string;
  readonly message: string;
}

export class AssertionInternalError extends Error {
  override readonly name = 'AssertionInternalError';
  constructor(
    readonly path: string,
    detail: string,
  ) {
    super(path ? `${path}: ${detail}` : detail);
  }
}

/** Longest nesting accepted, so that a hostile or broken tree cannot overflow the stack. */
const MAX_DEPTH = 200;

export function assertTree(expected: JsonValue, actual: JsonValue, bindings: Bindings): AssertionFailure[] {
  const failures: AssertionFailure[] = [];
  assertNode(expected, actual, bindings, '', failures, 0);
  return failures;
}

/** `AssertionFailure` as Kubernetes' field errors print: `path: Invalid value: ...`. */
export function formatFailure(failure: AssertionFailure): string {
  return failure.path ? `${failure.path}: ${failure.message}` : failure.message;
}

function child(path: string, key: string): string {
  return path === '' ? key : `${path}.${key}`;
}

function assertNode(
  expected: JsonValue,
  actual: JsonValue,
  bindings: Bindings,
  path: string,
  failures: AssertionFailure[],
  depth: number,
): void {
  if (depth > MAX_DEPTH) throw new AssertionInternalError(path, `assertion deeper than ${MAX_DEPTH} levels`);
  if (Array.isArray(expected)) return assertArray(expected, actual, bindings, path, failures, depth);
  if (isObject(expected)) return assertMap(expected, actual, bindings, path, failures, depth);
  return assertScalar(expected, actual, bindings, path, failures);
}

function assertArray(
  expected: JsonValue[],
  actual: JsonValue,
  bindings: Bindings,
  path: string,
  failures: AssertionFailure[],
  depth: number,
): void {
  if (actual === null) {
    failures.push({ path, message: 'Invalid value: "null": value is null' });
    return;
  }
  if (!Array.isArray(actual)) throw new AssertionInternalError(path, `expected a slice, found ${kindOf(actual)}`);
  if (actual.length !== expected.length) {
    failures.push({
      path,
      message: `Invalid value: lengths of slices don't match (expected ${expected.length}, found ${actual.length})`,
    });
    return;
  }
  expected.forEach((item, i) => assertNode(item, actual[i]!, bindings, `${path}[${i}]`, failures, depth + 1));
}

function assertMap(
  expected: Record<string, JsonValue>,
  actual: JsonValue,
  bindings: Bindings,
  path: string,
  failures: AssertionFailure[],
  depth: number,
): void {
  const entries = Object.entries(expected);
  if (entries.length === 0) {
    if (actual === null) failures.push({ path, message: 'Invalid value: "null": invalid value, must not be null' });
    return;
  }
  let scope = bindings;
  for (const [key, value] of entries) {
    const keyPath = child(path, key);
    const projection = parseExpression(key);
    let projected: JsonValue;
    if (projection.engine !== undefined) {
      if (projection.engine !== 'jp') {
        throw new AssertionInternalError(keyPath, `the ${projection.engine} expression engine is not supported`);
      }
      try {
        projected = evaluateJmesPath(projection.statement, actual, scope);
      } catch (error) {
        throw new AssertionInternalError(keyPath, (error as Error).message);
      }
    } else {
      if (actual === null) {
        failures.push({ path: keyPath, message: 'Required value: field not found in the input object' });
        continue;
      }
      if (!isObject(actual)) {
        throw new AssertionInternalError(keyPath, `projection not recognized: ${kindOf(actual)} has no fields`);
      }
      if (!Object.prototype.hasOwnProperty.call(actual, projection.statement)) {
        failures.push({ path: keyPath, message: 'Required value: field not found in the input object' });
        continue;
      }
      projected = actual[projection.statement]!;
    }
    if (projection.binding) scope = scope.with(projection.binding, projected);
    if (!projection.foreach) {
      assertNode(value, projected, scope, keyPath, failures, depth + 1);
      continue;
    }
    if (Array.isArray(projected)) {
      projected.forEach((item, i) => {
        const inner = projection.foreachName ? scope.with(projection.foreachName, i) : scope;
        assertNode(value, item, inner, `${keyPath}[${i}]`, failures, depth + 1);
      });
    } else if (isObject(projected)) {
      for (const [itemKey, item] of Object.entries(projected)) {
        const inner = projection.foreachName ? scope.with(projection.foreachName, itemKey) : scope;
        assertNode(value, item, inner, `${keyPath}[${itemKey}]`, failures, depth + 1);
      }
    } else {
      throw new AssertionInternalError(keyPath, `expected a slice or a map to iterate, found ${kindOf(projected)}`);
    }
  }
}

function assertScalar(
  expected: JsonValue,
  actual: JsonValue,
  bindings: Bindings,
  path: string,
  failures: AssertionFailure[],
): void {
  let wanted = expected;
  if (typeof expected === 'string') {
    const expression = parseExpression(expected);
    if (expression.engine !== undefined) {
      if (expression.engine !== 'jp') {
        throw new AssertionInternalError(path, `the ${expression.engine} expression engine is not supported`);
      }
      try {
        wanted = evaluateJmesPath(expression.statement, actual, bindings);
      } catch (error) {
        if (error instanceof ExpressionError) throw new AssertionInternalError(path, error.message);
        throw error;
      }
    } else {
      wanted = expression.statement;
    }
  }
  if (!matches(wanted, actual, path)) {
    failures.push({ path, message: `Invalid value: ${show(actual)}: Expected value: ${show(wanted)}` });
  }
}

/** kyverno-json's match: maps partially, arrays by length and element, scalars by equality. */
export function matches(expected: JsonValue, actual: JsonValue, path = ''): boolean {
  if (expected !== null && Array.isArray(expected)) {
    if (!Array.isArray(actual))
      throw new AssertionInternalError(path, `invalid actual value, must be a slice, found ${kindOf(actual)}`);
    return expected.length === actual.length && expected.every((item, i) => matches(item, actual[i]!, path));
  }
  if (isObject(expected)) {
    if (!isObject(actual))
      throw new AssertionInternalError(path, `invalid actual value, must be a map, found ${kindOf(actual)}`);
    return Object.entries(expected).every(
      ([key, item]) => Object.prototype.hasOwnProperty.call(actual, key) && matches(item, actual[key]!, path),
    );
  }
  return scalarEqual(expected, actual, path);
}

function scalarEqual(expected: JsonValue, actual: JsonValue, path: string): boolean {
  if (expected === null || actual === null) return expected === actual;
  if (typeof expected === typeof actual) {
    if (typeof expected === 'object') return JSON.stringify(expected) === JSON.stringify(actual);
    return expected === actual;
  }
  throw new AssertionInternalError(path, `types are not comparable, ${kindOf(expected)} - ${kindOf(actual)}`);
}

function kindOf(value: JsonValue): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'slice';
  if (typeof value === 'object') return 'map';
  return typeof value;
}

function show(value: JsonValue): string {
  const text = JSON.stringify(value);
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

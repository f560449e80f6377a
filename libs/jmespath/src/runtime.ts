import { TreeInterpreter, type InputSignature, type JSONValue } from '@jmespath-community/jmespath';
import { EvaluationBudget, isBudgetError, errorMessage, type JsonValue } from '@edict/foundation';
import { JmesPathError } from './errors';
import { KyvernoInterpreter, type AstNode } from './interpreter';

/** A Kyverno function: receives already type-checked arguments. */
export type KyvernoFunction = (args: JsonValue[]) => JsonValue;

/** A type name of `jp function`'s signatures (go-jmespath's JpType names; Kyverno writes booleans `bool`). */
export type JpType =
  | 'number'
  | 'string'
  | 'bool'
  | 'array'
  | 'object'
  | 'any'
  | 'expref'
  | 'null'
  | 'array[number]'
  | 'array[string]'
  | 'array[object]'
  | 'array[array]';

export interface FunctionDefinition {
  readonly name: string;
  readonly signature: InputSignature[];
  readonly fn: KyvernoFunction;
  /** The types the function returns, as `jp function` prints them. */
  readonly returns: readonly JpType[];
  /** What the function does, as `jp function` prints it (Kyverno's note for Kyverno's functions). */
  readonly note: string;
}

interface RuntimeLike {
  _functionTable: Record<string, { _signature: InputSignature[] }>;
  _interpreter: { visit(node: AstNode, value: JsonValue): JsonValue };
  callFunction(name: string, args: unknown[]): JSONValue;
  registerFunction(
    name: string,
    fn: (args: JSONValue[]) => JSONValue,
    signature: InputSignature[],
    options: { override: boolean },
  ): void;
}

/**
 * A private copy of the community runtime: its built-in functions (sort_by, map, length, ...) plus
 * Kyverno's, without touching the library's global function table that other code may use.
 */
const privateInterpreter = new (TreeInterpreter.constructor as new () => typeof TreeInterpreter)();
const runtime = privateInterpreter.runtime as unknown as RuntimeLike;

/** Interpreters currently evaluating, innermost last (functions never re-enter, but be safe). */
const active: KyvernoInterpreter[] = [];

// Built-ins that take expressions (sort_by, map, ...) evaluate them through `_interpreter`:
// route that to the Kyverno interpreter so they see the same semantics and `let` variables.
runtime._interpreter = {
  visit(node: AstNode, value: JsonValue): JsonValue {
    const interpreter =
      active[active.length - 1] ?? new KyvernoInterpreter(value, callFunction, new EvaluationBudget());
    return interpreter.lenient(node, value);
  },
};

/** Used when a function runs outside any evaluation (it never does in the engine). */
const fallbackBudget = new EvaluationBudget();

/** The budget of the evaluation in progress, for functions that bound what they build. */
export function activeBudget(): EvaluationBudget {
  return active[active.length - 1]?.budget ?? fallbackBudget;
}

/**
 * Output lengths known from the arguments, for functions that could build a huge string in one
 * call (a long separator over many items, a large padding width): checked before the call.
 */
const outputLength: Readonly<Record<string, (args: unknown[]) => number>> = {
  join: ([separator, items]) => {
    if (typeof separator !== 'string' || !Array.isArray(items)) return 0;
    let length = separator.length * Math.max(0, items.length - 1);
    for (const item of items) if (typeof item === 'string') length += item.length;
    return length;
  },
  pad_left: ([, width]) => (typeof width === 'number' ? width : 0),
  pad_right: ([, width]) => (typeof width === 'number' ? width : 0),
};

function callFunction(name: string, args: unknown[]): JsonValue {
  const length = Object.hasOwn(outputLength, name) ? outputLength[name]!(args) : 0;
  if (length > 0) activeBudget().checkLength(length, name);
  try {
    return runtime.callFunction(name, args) as JsonValue;
  } catch (error) {
    if (error instanceof JmesPathError || isBudgetError(error)) throw error;
    throw new JmesPathError(errorMessage(error));
  }
}

/**
 * Runs `node` against `data` with Kyverno semantics; the result may be a "not found" marker. The
 * budget bounds the evaluation: its deadline, and the size of every value it builds.
 */
export function evaluate(node: AstNode, data: JsonValue, budget: EvaluationBudget) {
  const interpreter = new KyvernoInterpreter(data, callFunction, budget);
  active.push(interpreter);
  try {
    return interpreter.evaluate(node, data);
  } finally {
    active.pop();
  }
}

const registered = new Set<string>();

/** Adds (or replaces a built-in with) a function; a second registration of a name is ignored. */
export function registerFunctions(definitions: readonly FunctionDefinition[]): void {
  for (const { name, fn, signature } of definitions) {
    if (registered.has(name)) continue;
    runtime.registerFunction(name, fn as (args: JSONValue[]) => JSONValue, signature, { override: true });
    registered.add(name);
  }
}

/** Every function the runtime knows (standard JMESPath, community additions and Kyverno's), with its arguments. */
export function registeredSignatures(): ReadonlyMap<string, readonly InputSignature[]> {
  return new Map(Object.keys(runtime._functionTable).map((name) => [name, runtime._functionTable[name]!._signature]));
}

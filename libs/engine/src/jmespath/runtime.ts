import { TreeInterpreter, type InputSignature, type JSONValue } from '@jmespath-community/jmespath';
import type { JsonValue } from '../json';
import { JmesPathError } from './errors';
import { KyvernoInterpreter, type AstNode } from './interpreter';

/** A Kyverno function: receives already type-checked arguments. */
export type KyvernoFunction = (args: JsonValue[]) => JsonValue;

export interface FunctionDefinition {
  readonly name: string;
  readonly signature: InputSignature[];
  readonly fn: KyvernoFunction;
}

interface RuntimeLike {
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
    const interpreter = active[active.length - 1] ?? new KyvernoInterpreter(value, callFunction);
    return interpreter.lenient(node, value);
  },
};

function callFunction(name: string, args: unknown[]): JsonValue {
  try {
    return runtime.callFunction(name, args) as JsonValue;
  } catch (error) {
    if (error instanceof JmesPathError) throw error;
    throw new JmesPathError(error instanceof Error ? error.message : String(error));
  }
}

/** Runs `node` against `data` with Kyverno semantics; the result may be a "not found" marker. */
export function evaluate(node: AstNode, data: JsonValue) {
  const interpreter = new KyvernoInterpreter(data, callFunction);
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

/**
 * Evaluates a compiled mutation and applies what it returns, as kube's patchers do:
 * ApplyConfiguration merges the returned Object into the object by structured merge (after
 * checking its nested type names and that it sets no atomic part the schema knows), JSONPatch
 * applies the returned operations (a failed `test` keeps the object). Bounded in operations and in
 * the patched object's size; a new object is returned, the input is not modified.
 */
import { AccessReviews, CEL_LIMITS, CelJsonPatch, CelObject, objectTypeNameErrors, type CelProgram } from '@edict/cel';
import { type JsonObject } from '@edict/foundation';
import { CelRound } from '../cel/round';
import type { CompiledMutation } from './compile';
import { applyJsonPatchOperations, JsonPatchError, type JsonPatchOperation } from './json-patch';
import { DEDUCED_SHAPE, type MergeShape } from './shape';
import { atomicPaths, StructuredMergeError, structuredMerge } from './structured-merge';
import { mutationValueToJson, MutationValueError } from './values';

export interface MutationLimits {
  /** Operations one JSONPatch mutation may return (kube's bound on a JSON patch request). */
  readonly maxOperations: number;
  /** Size of the patched object, serialized (kube's largest request body). */
  readonly maxObjectBytes: number;
}

export const MUTATION_LIMITS: MutationLimits = Object.freeze({
  maxOperations: 10_000,
  maxObjectBytes: 3 * 1024 * 1024,
});

export interface MutationContext {
  /**
   * How lists and objects merge for ApplyConfiguration (shape.ts); DEDUCED_SHAPE (every list atomic)
   * when absent, as Kyverno's CLI merges.
   */
  shape?: MergeShape;
  /**
   * Evaluates the expression (the caller's bounds, deadline, asynchronous functions); throws when
   * it errors. Absent: evaluated alone under Edict's per-expression CEL bounds.
   */
  evaluate?: (program: CelProgram, activation: Readonly<Record<string, unknown>>) => unknown;
  limits?: Partial<MutationLimits>;
}

/** A mutation that cannot be applied; the message starts with the expression's field. */
export class MutationError extends Error {
  override readonly name = 'MutationError';
  constructor(
    readonly field: string,
    readonly detail: string,
  ) {
    super(`${field}: ${detail}`);
  }
}

export async function applyMutation(
  compiled: CompiledMutation,
  activation: Readonly<Record<string, unknown>>,
  object: JsonObject,
  context: MutationContext = {},
): Promise<JsonObject> {
  const value = context.evaluate
    ? await context.evaluate(compiled.program, activation)
    : evaluateAlone(compiled, activation);
  return patchWithValue(compiled, value, object, context);
}

function evaluateAlone(compiled: CompiledMutation, activation: Readonly<Record<string, unknown>>): unknown {
  const reviews = new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
  const outcome = new CelRound(reviews).evaluate(compiled.program, activation, true);
  if ('error' in outcome) throw new MutationError(compiled.field, outcome.error);
  return outcome.value;
}

/** Applies an already evaluated mutation's value to `object`. */
export function patchWithValue(
  compiled: CompiledMutation,
  value: unknown,
  object: JsonObject,
  context: MutationContext = {},
): JsonObject {
  const limits = { ...MUTATION_LIMITS, ...context.limits };
  const fail = (detail: string): never => {
    throw new MutationError(compiled.field, detail);
  };
  let patched: JsonObject;
  try {
    patched =
      compiled.patchType === 'ApplyConfiguration'
        ? applyConfiguration(value, object, context.shape ?? DEDUCED_SHAPE, fail)
        : jsonPatch(value, object, limits, fail);
  } catch (error) {
    if (error instanceof JsonPatchError) return fail(`JSONPatch: ${error.message}`);
    if (error instanceof StructuredMergeError)
      return fail(`error applying patch: failed to merge patch: ${error.message}`);
    if (error instanceof MutationValueError) return fail(error.message);
    throw error;
  }
  if (patched !== object) {
    const size = JSON.stringify(patched).length;
    if (size > limits.maxObjectBytes) {
      fail(`the patched object is ${size} bytes, more than the ${limits.maxObjectBytes} a mutation may produce`);
    }
  }
  return patched;
}

function applyConfiguration(
  value: unknown,
  object: JsonObject,
  shape: MergeShape,
  fail: (d: string) => never,
): JsonObject {
  if (!(value instanceof CelObject) || value.objectTypeName !== 'Object') {
    return fail(`unsupported return type from ApplyConfiguration expression: ${describe(value)}`);
  }
  const mismatches = objectTypeNameErrors(value);
  if (mismatches.length > 0) fail(`type mismatch: ${mismatches.join('\n')}`);
  const configuration = mutationValueToJson(value, 'applyConfiguration') as JsonObject;
  // kube gives the configuration the object's apiVersion and kind before merging.
  configuration.apiVersion = object.apiVersion ?? null;
  configuration.kind = object.kind ?? null;
  const atomics = atomicPaths(configuration, shape);
  if (atomics.length > 0) {
    fail(
      `error applying patch: invalid ApplyConfiguration: may not mutate atomic arrays, maps or structs: ${atomics.join(', ')}`,
    );
  }
  return structuredMerge(object, configuration, shape);
}

function jsonPatch(value: unknown, object: JsonObject, limits: MutationLimits, fail: (d: string) => never): JsonObject {
  if (!Array.isArray(value)) return fail('type mismatch: JSONPatchType.expression should evaluate to array');
  if (value.length > limits.maxOperations) {
    fail(
      `the expression returned ${value.length} operations, more than the ${limits.maxOperations} a mutation may apply`,
    );
  }
  const operations = value.map((item, i): JsonPatchOperation => {
    if (!(item instanceof CelJsonPatch)) {
      return fail(
        `type mismatch: JSONPatchType.expression should evaluate to array of JSONPatch, got element of ${describe(item)}`,
      );
    }
    const operation: JsonPatchOperation = { op: item.op, path: item.path };
    if (item.from !== '') operation.from = item.from;
    if (item.value !== undefined) {
      if (item.value instanceof CelObject) {
        const mismatches = objectTypeNameErrors(item.value);
        if (mismatches.length > 0) fail(`type mismatch: ${mismatches.join('\n')}`);
      }
      operation.value = mutationValueToJson(item.value, `JSONPatch[${i}].value`);
    }
    return operation;
  });
  return applyJsonPatchOperations(object, operations) ?? object;
}

function describe(value: unknown): string {
  if (value instanceof CelObject) return value.objectTypeName;
  if (value instanceof CelJsonPatch) return 'JSONPatch';
  if (value === null || value === undefined) return 'null';
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'object') return 'map';
  return typeof value;
}

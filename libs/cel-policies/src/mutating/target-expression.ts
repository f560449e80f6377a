import { compileCel, type CelProgram } from '@edict/cel';
import type { PolicyFieldError } from '../api/types';
import type { CompiledSpec } from '../compile/compiled-expressions';
import { indexedVariableReferences, variableReferences } from '../compile/references';
import type { TargetMatchConstraints } from './types';

/** spec.targetMatchConstraints.expression compiled: it names the targets (an object, or a list with `items`). */
export interface TargetExpression {
  readonly program: CelProgram;
  readonly reads: readonly string[];
}

/**
 * Compiles the target selector expression as Kyverno's background controller does: the trigger as
 * `object`, `variables`, and Kyverno's libraries (`resource.Get`/`resource.List`), bound to the
 * policy's namespace for a NamespacedMutatingPolicy.
 */
export function compileTargetExpression(
  constraints: TargetMatchConstraints | undefined,
  namespaced: boolean,
  spec: CompiledSpec,
  errors: PolicyFieldError[],
): TargetExpression | undefined {
  const source = constraints?.expression;
  if (typeof source !== 'string' || source.trim() === '') return undefined;
  const field = 'spec.targetMatchConstraints.expression';
  const reads = [...new Set([...variableReferences(source), ...indexedVariableReferences(source)])];
  const unknown = reads.find((name) => !spec.variableIndex.has(name));
  if (unknown !== undefined) {
    errors.push({
      field,
      message: `Invalid value: ${JSON.stringify(source)}: compilation failed: undefined field '${unknown}'`,
    });
    return undefined;
  }
  try {
    const program = compileCel(
      source,
      { params: false, authorizer: false, kyverno: true, namespacedPolicy: namespaced },
      'any',
    );
    return { program, reads };
  } catch (error) {
    errors.push({
      field,
      message: `Invalid value: ${JSON.stringify(source)}: compilation failed: ${(error as Error).message}`,
    });
    return undefined;
  }
}

import type { CelProgram } from '@edict/cel';
import {
  compileMutation,
  isCompiledMutation,
  patchWithValue,
  type CompiledMutation,
  type MergeShape,
  type MutationSpec,
} from '@edict/native-policies';
import type { JsonObject } from '@edict/foundation';
import type { PolicyFieldError } from '../api/types';
import type { NamedProgram } from '../compile/compiled-expressions';
import { indexedVariableReferences, variableReferences } from '../compile/references';
import type { Mutation } from './types';

/**
 * A MutatingPolicy's mutation compiled in Kyverno's environment, with the `variables.<name>` it
 * reads (evaluated by the policy's SpecRun before the patcher runs it).
 */
export interface PreparedMutation {
  readonly index: number;
  readonly compiled: CompiledMutation;
  /** The compiled expression (evaluated by the policy's SpecRun, under its meter and deadline). */
  readonly program: CelProgram;
  readonly reads: readonly string[];
}

/**
 * Compiles each mutation with Kubernetes' mutation machinery (@edict/native-policies, as Kyverno
 * reuses k8s.io/apiserver's patchers) in Kyverno's environment for MutatingPolicy (its libraries,
 * `variables`, `exceptions`, the patch types, no `authorizer`); problems go to `errors` at the
 * mutation's field (`spec.mutations[0].applyConfiguration.expression`), as do variables not declared.
 */
export function compileMutations(
  mutations: readonly Mutation[],
  path: string,
  namespaced: boolean,
  variables: ReadonlyMap<string, NamedProgram>,
  errors: PolicyFieldError[],
): PreparedMutation[] {
  const prepared: PreparedMutation[] = [];
  mutations.forEach((mutation, index) => {
    if (mutation === null || typeof mutation !== 'object') return;
    const patchType = mutation.patchType;
    if (patchType !== 'ApplyConfiguration' && patchType !== 'JSONPatch') return;
    const json = patchType === 'JSONPatch';
    const body = json ? mutation.jsonPatch : mutation.applyConfiguration;
    if (body === null || typeof body !== 'object') return; // the schema check reports it
    const expression = body.expression;
    const field = `${path}.mutations[${index}].${json ? 'jsonPatch' : 'applyConfiguration'}.expression`;
    const reads = typeof expression === 'string' ? referencedVariables(expression) : [];
    const unknown = reads.find((name) => !variables.has(name));
    if (unknown !== undefined) {
      errors.push({
        field,
        message: `Invalid value: ${JSON.stringify(expression)}: compilation failed: undefined field '${unknown}'`,
      });
      return;
    }
    const compiled = compileMutation(mutation as MutationSpec, `${path}.mutations[${index}]`, {
      variables: { params: false, authorizer: false, exceptions: true, kyverno: true, namespacedPolicy: namespaced },
    });
    if (!isCompiledMutation(compiled)) {
      // The schema check already reports the patch type and the forbidden body.
      errors.push(...compiled.filter((error) => error.field.endsWith('.expression')));
      return;
    }
    prepared.push({ index, compiled, program: compiled.program, reads });
  });
  return prepared;
}

/** How lists and maps of the patched object merge (ApplyConfiguration): see @edict/native-policies' shapes. */
export interface PatchContext {
  readonly shape?: MergeShape;
}

/** Applies one mutation's evaluated value to `object` (never modified): the patched object. Throws MutationError. */
export function patchObject(
  mutation: PreparedMutation,
  value: unknown,
  object: JsonObject,
  context: PatchContext,
): JsonObject {
  return patchWithValue(mutation.compiled, value, object, context.shape ? { shape: context.shape } : {});
}

function referencedVariables(source: string): string[] {
  return [...new Set([...variableReferences(source), ...indexedVariableReferences(source)])];
}

import { compileCel, type CelProgram } from '@edict/cel';
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
  readonly patchType: 'ApplyConfiguration' | 'JSONPatch';
  readonly program: CelProgram;
  readonly reads: readonly string[];
}

/**
 * Compiles each mutation in Kyverno's environment for MutatingPolicy (its libraries, `variables`,
 * `exceptions`, the patch types, no `authorizer`); problems go to `errors` at the mutation's field
 * (`spec.mutations[0].applyConfiguration.expression`), as do variables not declared.
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
    const expression = json ? mutation.jsonPatch?.expression : mutation.applyConfiguration?.expression;
    const field = `${path}.mutations[${index}].${json ? 'jsonPatch' : 'applyConfiguration'}.expression`;
    if (typeof expression !== 'string' || expression.trim() === '') {
      errors.push({ field, message: 'Required value' });
      return;
    }
    const invalid = (message: string) =>
      errors.push({ field, message: `Invalid value: ${JSON.stringify(expression)}: compilation failed: ${message}` });
    const reads = referencedVariables(expression);
    const unknown = reads.find((name) => !variables.has(name));
    if (unknown !== undefined) return invalid(`undefined field '${unknown}'`);
    try {
      const program = compileCel(
        expression,
        {
          params: false,
          authorizer: false,
          exceptions: true,
          kyverno: true,
          namespacedPolicy: namespaced,
          patchTypes: true,
        },
        json ? 'list<JSONPatch>' : 'Object',
      );
      prepared.push({ index, patchType, program, reads });
    } catch (error) {
      invalid((error as Error).message);
    }
  });
  return prepared;
}

/** What a patcher needs besides the object; see runMutation. */
export type MutationRunContext = Record<string, unknown>;

/** Runs one mutation on `object` (never modified) with the policy's activation; the patched object. */
export function runMutation(
  _mutation: PreparedMutation,
  _activation: Record<string, unknown>,
  _object: JsonObject,
  _context: MutationRunContext,
): Promise<JsonObject> {
  // Kubernetes' patchers (structured merge, RFC 6902) come from @edict/native-policies (part 3).
  return Promise.reject(new Error('mutations cannot be applied yet: the patchers are not available'));
}

function referencedVariables(source: string): string[] {
  return [...new Set([...variableReferences(source), ...indexedVariableReferences(source)])];
}

/**
 * A MutatingAdmissionPolicy's CEL compiled as kube-apiserver compiles it: variables and
 * matchConditions with `authorizer` (and `params` when the policy has a paramKind), each mutation
 * with the mutation types added (mutation/compile.ts). Every field that does not compile is
 * reported, named (`spec.mutations[0].applyConfiguration.expression`).
 */
import { compileCel, describeCelError, type CelProgram, type CelVariables } from '@edict/cel';
import type { JsonObject } from '@edict/foundation';
import { at, fieldErrors, formatFieldErrors, type FieldError } from '../field-errors';
import { compileMatchConditions, matchConditionErrors, type CompiledMatchConditions } from '../match-conditions';
import { compileMutation, isCompiledMutation, type CompiledMutation } from '../mutation/compile';
import { readMutatingPolicy, type MutatingPolicySpec } from './spec';

export interface CompiledMutatingAdmissionPolicy {
  readonly policy: JsonObject;
  readonly name: string;
  readonly spec: MutatingPolicySpec;
  readonly matchConditions: CompiledMatchConditions;
  readonly variables: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly mutations: readonly CompiledMutation[];
}

/** A policy whose expressions do not compile; `errors` names each field. */
export class MutatingAdmissionPolicyError extends Error {
  override readonly name = 'MutatingAdmissionPolicyError';
  constructor(readonly errors: readonly FieldError[]) {
    super(formatFieldErrors(errors));
  }
}

const compiledPolicies = new WeakMap<JsonObject, CompiledMutatingAdmissionPolicy>();

/** Compiles once per policy object; throws MutatingAdmissionPolicyError with every field error. */
export function compileMutatingAdmissionPolicy(policy: JsonObject): CompiledMutatingAdmissionPolicy {
  const known = compiledPolicies.get(policy);
  if (known) return known;
  const { compiled, errors } = compileMutatingPolicyExpressions(policy);
  if (errors.length > 0 || !compiled) throw new MutatingAdmissionPolicyError(errors);
  compiledPolicies.set(policy, compiled);
  return compiled;
}

/** The CEL of a policy, compiled, with the field errors of every expression that does not compile. */
export function compileMutatingPolicyExpressions(policy: JsonObject): {
  compiled?: CompiledMutatingAdmissionPolicy;
  errors: FieldError[];
} {
  const spec = readMutatingPolicy(policy);
  const variables: CelVariables = { params: spec.paramKind !== undefined, authorizer: true };
  const errors: FieldError[] = [];
  const compiledVariables: { name: string; program: CelProgram }[] = [];
  spec.variables.forEach((variable, i) => {
    const field = at('spec.variables', i, 'expression');
    if (variable.expression.trim() === '') {
      errors.push(fieldErrors.required(field));
      return;
    }
    try {
      compiledVariables.push({ name: variable.name, program: compileCel(variable.expression, variables, 'any') });
    } catch (error) {
      errors.push(fieldErrors.invalid(field, variable.expression, `compilation failed: ${describeCelError(error)}`));
    }
  });
  errors.push(...matchConditionErrors(spec.matchConditions, variables, 'spec.matchConditions'));
  const mutations: CompiledMutation[] = [];
  spec.mutations.forEach((mutation, i) => {
    const result = compileMutation(mutation, at('spec.mutations', i), { variables });
    if (isCompiledMutation(result)) mutations.push(result);
    else errors.push(...result);
  });
  if (errors.length > 0) return { errors };
  return {
    compiled: {
      policy,
      name: spec.name,
      spec,
      matchConditions: compileMatchConditions(spec.matchConditions, variables, 'spec.matchConditions'),
      variables: compiledVariables,
      mutations,
    },
    errors,
  };
}

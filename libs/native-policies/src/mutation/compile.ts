/**
 * One mutation of a MutatingAdmissionPolicy (or of Kyverno's MutatingPolicy, which reuses them),
 * compiled as kube-apiserver compiles it: `patchType` ApplyConfiguration with an expression that
 * evaluates to an `Object`, or JSONPatch with an expression that evaluates to a list of
 * `JSONPatch`; both in an environment with the mutation types (Object{...}, JSONPatch{...},
 * jsonpatch.escapeKey) and the caller's variables.
 */
import { compileCel, describeCelError, type CelProgram, type CelVariables } from '@edict/cel';
import { at, fieldErrors, type FieldError } from '../field-errors';

export type PatchType = 'ApplyConfiguration' | 'JSONPatch';
export const PATCH_TYPES: readonly PatchType[] = ['ApplyConfiguration', 'JSONPatch'];

/** A mutation as written in a policy (`spec.mutations[i]`). */
export interface MutationSpec {
  patchType?: string;
  applyConfiguration?: { expression?: string };
  jsonPatch?: { expression?: string };
}

export interface MutationCompileOptions {
  /**
   * The variables the expression may use (`params`, `authorizer`, Kyverno's libraries); the
   * mutation types are added (`patchTypes`).
   */
  variables: CelVariables;
}

export interface CompiledMutation {
  readonly patchType: PatchType;
  readonly program: CelProgram;
  readonly expression: string;
  /** The expression's field, like `spec.mutations[0].applyConfiguration.expression`. */
  readonly field: string;
}

/** Compiles `mutation` (at `field`, like `spec.mutations[0]`); its field errors when it cannot. */
export function compileMutation(
  mutation: MutationSpec | unknown,
  field: string,
  options: MutationCompileOptions,
): CompiledMutation | FieldError[] {
  const spec = (mutation && typeof mutation === 'object' ? mutation : {}) as MutationSpec;
  const patchType = spec.patchType;
  if (patchType === undefined || patchType === '') return [fieldErrors.required(at(field, 'patchType'))];
  if (!PATCH_TYPES.includes(patchType as PatchType)) {
    return [fieldErrors.notSupported(at(field, 'patchType'), patchType, PATCH_TYPES)];
  }
  const errors: FieldError[] = [];
  const own = patchType === 'ApplyConfiguration' ? 'applyConfiguration' : 'jsonPatch';
  const other = patchType === 'ApplyConfiguration' ? 'jsonPatch' : 'applyConfiguration';
  if (spec[other] !== undefined && spec[other] !== null) {
    errors.push(fieldErrors.forbidden(at(field, other), `must not be set when patchType is ${patchType}`));
  }
  const body = spec[own];
  const expressionField = at(field, own, 'expression');
  const expression = body && typeof body === 'object' && typeof body.expression === 'string' ? body.expression : '';
  if (!body || typeof body !== 'object') {
    errors.push(fieldErrors.required(at(field, own), `must be specified when patchType is ${patchType}`));
    return errors;
  }
  if (expression.trim() === '') {
    errors.push(fieldErrors.required(expressionField));
    return errors;
  }
  let program: CelProgram;
  try {
    program = compileCel(
      expression,
      { ...options.variables, patchTypes: true },
      patchType === 'ApplyConfiguration' ? 'Object' : 'list<JSONPatch>',
    );
  } catch (error) {
    errors.push(fieldErrors.invalid(expressionField, expression, `compilation failed: ${describeCelError(error)}`));
    return errors;
  }
  if (errors.length > 0) return errors;
  return { patchType: patchType as PatchType, program, expression, field: expressionField };
}

/** Whether compileMutation compiled (rather than answering field errors). */
export function isCompiledMutation(result: CompiledMutation | FieldError[]): result is CompiledMutation {
  return !Array.isArray(result);
}

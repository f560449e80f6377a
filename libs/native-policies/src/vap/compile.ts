/**
 * A ValidatingAdmissionPolicy's CEL, compiled as kube-apiserver compiles it: validations,
 * matchConditions, variables and auditAnnotations with `authorizer` declared, messageExpressions
 * without it, and `params` only when the policy has a paramKind.
 */
import { compileCel, describeCelError, type CelProgram, type CelVariables } from '@edict/cel';
import type { JsonObject } from '@edict/foundation';
import { at, fieldErrors, formatFieldErrors, type FieldError } from '../field-errors';
import { matchConditionErrors, compileMatchConditions, type CompiledMatchConditions } from '../match-conditions';
import { readPolicy, type PolicySpec } from './spec';

export interface CompiledValidation {
  readonly index: number;
  readonly program: CelProgram;
  readonly message?: string;
  readonly messageProgram?: CelProgram;
  readonly reason?: string;
  readonly expression: string;
}

export interface CompiledAuditAnnotation {
  readonly key: string;
  readonly valueExpression: string;
  readonly program: CelProgram;
}

export interface CompiledValidatingAdmissionPolicy {
  readonly policy: JsonObject;
  readonly name: string;
  readonly spec: PolicySpec;
  readonly matchConditions: CompiledMatchConditions;
  readonly variables: readonly { readonly name: string; readonly program: CelProgram }[];
  readonly validations: readonly CompiledValidation[];
  readonly auditAnnotations: readonly CompiledAuditAnnotation[];
}

/** A policy whose expressions do not compile; `errors` names each field. */
export class ValidatingAdmissionPolicyError extends Error {
  override readonly name = 'ValidatingAdmissionPolicyError';
  constructor(readonly errors: readonly FieldError[]) {
    super(formatFieldErrors(errors));
  }
}

const compiledPolicies = new WeakMap<JsonObject, CompiledValidatingAdmissionPolicy>();

/**
 * Compiles once per policy object. Throws ValidatingAdmissionPolicyError with every expression
 * that does not compile (the API-level checks are validatingAdmissionPolicyErrors').
 */
export function compileValidatingAdmissionPolicy(policy: JsonObject): CompiledValidatingAdmissionPolicy {
  const known = compiledPolicies.get(policy);
  if (known) return known;
  const { compiled, errors } = compilePolicyExpressions(policy);
  if (errors.length > 0 || !compiled) throw new ValidatingAdmissionPolicyError(errors);
  compiledPolicies.set(policy, compiled);
  return compiled;
}

/** The CEL of a policy, compiled, with the field errors of every expression that does not compile. */
export function compilePolicyExpressions(policy: JsonObject): {
  compiled?: CompiledValidatingAdmissionPolicy;
  errors: FieldError[];
} {
  const spec = readPolicy(policy);
  const params = spec.paramKind !== undefined;
  const withAuthorizer: CelVariables = { params, authorizer: true };
  const forMessages: CelVariables = { params, authorizer: false };
  const errors: FieldError[] = [];
  const compile = (source: string, vars: CelVariables, type: 'bool' | 'string' | 'any', field: string) => {
    if (source.trim() === '') {
      errors.push(fieldErrors.required(field, 'expression is not specified'));
      return undefined;
    }
    try {
      return compileCel(source, vars, type);
    } catch (error) {
      errors.push(fieldErrors.invalid(field, source, `compilation failed: ${describeCelError(error)}`));
      return undefined;
    }
  };

  const conditionErrors = matchConditionErrors(spec.matchConditions, withAuthorizer, 'spec.matchConditions');
  errors.push(...conditionErrors);
  const matchConditions =
    conditionErrors.length === 0
      ? compileMatchConditions(spec.matchConditions, withAuthorizer, 'spec.matchConditions')
      : { conditions: [] };

  const variables = spec.variables.flatMap((variable, i) => {
    const program = compile(variable.expression, withAuthorizer, 'any', at('spec.variables', i, 'expression'));
    return program ? [{ name: variable.name, program }] : [];
  });

  const validations = spec.validations.flatMap((validation, i): CompiledValidation[] => {
    const program = compile(validation.expression, withAuthorizer, 'bool', at('spec.validations', i, 'expression'));
    let messageProgram: CelProgram | undefined;
    if (validation.messageExpression !== undefined && validation.messageExpression.trim() !== '') {
      messageProgram = compile(
        validation.messageExpression,
        forMessages,
        'string',
        at('spec.validations', i, 'messageExpression'),
      );
    }
    if (!program) return [];
    return [
      {
        index: i,
        program,
        expression: validation.expression,
        ...(validation.message !== undefined ? { message: validation.message } : {}),
        ...(messageProgram ? { messageProgram } : {}),
        ...(validation.reason !== undefined ? { reason: validation.reason } : {}),
      },
    ];
  });

  const auditAnnotations = spec.auditAnnotations.flatMap((annotation, i): CompiledAuditAnnotation[] => {
    const field = at('spec.auditAnnotations', i, 'valueExpression');
    if (annotation.valueExpression.trim().length > MAX_AUDIT_VALUE_EXPRESSION) {
      errors.push(fieldErrors.required(field, `must not exceed ${MAX_AUDIT_VALUE_EXPRESSION} bytes in length`));
      return [];
    }
    const program = compile(annotation.valueExpression.trim(), withAuthorizer, 'any', field);
    return program ? [{ key: annotation.key, valueExpression: annotation.valueExpression, program }] : [];
  });

  if (errors.length > 0) return { errors };
  return {
    compiled: { policy, name: spec.name, spec, matchConditions, variables, validations, auditAnnotations },
    errors,
  };
}

/** kube's bound on an audit annotation's valueExpression. */
export const MAX_AUDIT_VALUE_EXPRESSION = 5 * 1024;

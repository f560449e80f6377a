/**
 * One call of a ValidatingAdmissionPolicy (a binding with one parameter object), as kube-apiserver's
 * validator makes it: matchConditions first (not met: no decision; an error: one decision by
 * failurePolicy), then every validation with its message, then the audit annotations.
 */
import { CEL_LIMITS } from '@edict/cel';
import { evaluateMatchConditionsIn } from '../match-conditions';
import { CallBudgetExceeded, CelRound, OUT_OF_BUDGET, type Outcome } from '../cel/round';
import type { CompiledValidatingAdmissionPolicy } from './compile';

export type DecisionAction = 'Admit' | 'Deny';
export type DecisionEvaluation = 'Admit' | 'Deny' | 'Error';

export interface PolicyDecision {
  action: DecisionAction;
  evaluation: DecisionEvaluation;
  message: string;
  /** For denials: the validation's reason, Invalid by default. */
  reason?: string;
}

export type AuditAnnotationAction = 'Publish' | 'Exclude' | 'Error';

export interface AuditAnnotationResult {
  key: string;
  action: AuditAnnotationAction;
  value?: string;
  error?: string;
}

export interface ValidateResult {
  decisions: PolicyDecision[];
  auditAnnotations: AuditAnnotationResult[];
}

/** The activation of a call: object, oldObject, request, namespaceObject, params, authorizer. */
export interface CallActivation {
  object: unknown;
  oldObject: unknown;
  request: unknown;
  namespaceObject: unknown;
  params: unknown;
  authorizer: unknown;
}

export function validate(
  compiled: CompiledValidatingAdmissionPolicy,
  makeRound: () => CelRound,
  input: CallActivation,
): ValidateResult {
  const failurePolicy = compiled.spec.failurePolicy;
  const onError = (message: string): ValidateResult => ({
    decisions: [{ action: failurePolicy === 'Ignore' ? 'Admit' : 'Deny', evaluation: 'Error', message }],
    auditAnnotations: [],
  });
  const round = makeRound();
  const activation: Record<string, unknown> = { ...input };
  activation.variables = round.lazyVariables(compiled.variables, activation);
  const { authorizer: _authorizer, ...withoutAuthorizer } = activation;

  try {
    if (compiled.matchConditions.conditions.length > 0) {
      const match = evaluateMatchConditionsIn(round, compiled.matchConditions, activation);
      if ('error' in match) return onError(match.error);
      if (!match.matches) return { decisions: [], auditAnnotations: [] };
    }
  } catch (error) {
    if (error instanceof CallBudgetExceeded) return onError(error.message);
    throw error;
  }

  let outcomes: Outcome[];
  try {
    outcomes = compiled.validations.map((validation) => round.evaluate(validation.program, activation));
  } catch (error) {
    if (error instanceof CallBudgetExceeded) return onError(error.message);
    throw error;
  }
  // Message expressions run on what the validations left of the budget, without `authorizer`.
  const messages: (Outcome | undefined)[] = [];
  let messageBudgetError: string | undefined;
  try {
    for (const validation of compiled.validations) {
      messages.push(
        validation.messageProgram ? round.evaluate(validation.messageProgram, withoutAuthorizer) : undefined,
      );
    }
  } catch (error) {
    if (!(error instanceof CallBudgetExceeded)) throw error;
    messageBudgetError = `failed messageExpression: ${OUT_OF_BUDGET}`;
  }

  const decisions = compiled.validations.map((validation, i): PolicyDecision => {
    const outcome = outcomes[i]!;
    if ('error' in outcome) {
      return { action: failurePolicy === 'Ignore' ? 'Admit' : 'Deny', evaluation: 'Error', message: outcome.error };
    }
    if (messageBudgetError) {
      return {
        action: failurePolicy === 'Ignore' ? 'Admit' : 'Deny',
        evaluation: 'Error',
        message: messageBudgetError,
      };
    }
    if (outcome.value === true) return { action: 'Admit', evaluation: 'Admit', message: '' };
    return {
      action: 'Deny',
      evaluation: 'Deny',
      reason: validation.reason ?? 'Invalid',
      message:
        messageOf(messages[i]) || validation.message?.trim() || `failed expression: ${validation.expression.trim()}`,
    };
  });

  // Audit annotations have a budget of their own, and no `authorizer` bound.
  const annotationRound = makeRound();
  const annotationActivation: Record<string, unknown> = { ...withoutAuthorizer };
  annotationActivation.variables = annotationRound.lazyVariables(compiled.variables, annotationActivation);
  const auditAnnotations: AuditAnnotationResult[] = [];
  try {
    for (const annotation of compiled.auditAnnotations) {
      const outcome = annotationRound.evaluate(annotation.program, annotationActivation);
      auditAnnotations.push(annotationResult(annotation.key, annotation.valueExpression, outcome, failurePolicy));
    }
  } catch (error) {
    if (error instanceof CallBudgetExceeded) return onError(error.message);
    throw error;
  }
  return { decisions, auditAnnotations };
}

/** A messageExpression's result, or '' to fall back: not a string, blank, too long or several lines. */
function messageOf(outcome: Outcome | undefined): string {
  if (!outcome || !('value' in outcome) || typeof outcome.value !== 'string') return '';
  const message = outcome.value.trim();
  if (message.length > CEL_LIMITS.maxMessageLength || message.includes('\n')) return '';
  return message;
}

function annotationResult(
  key: string,
  valueExpression: string,
  outcome: Outcome,
  failurePolicy: 'Fail' | 'Ignore',
): AuditAnnotationResult {
  if ('error' in outcome) {
    return failurePolicy === 'Ignore' ? { key, action: 'Exclude' } : { key, action: 'Error', error: outcome.error };
  }
  const { value } = outcome;
  if (value === null || value === undefined) return { key, action: 'Exclude' };
  if (typeof value === 'string') {
    const trimmed = value.trim();
    return trimmed === '' ? { key, action: 'Exclude' } : { key, action: 'Publish', value: trimmed };
  }
  return {
    key,
    action: 'Error',
    error: `valueExpression '${valueExpression}' resulted in unsupported return type: ${celTypeName(value)}. Return type must be either string or null.`,
  };
}

function celTypeName(value: unknown): string {
  if (typeof value === 'bigint') return 'int';
  if (typeof value === 'number') return 'double';
  if (typeof value === 'boolean') return 'bool';
  if (Array.isArray(value)) return 'list';
  if (value instanceof Uint8Array) return 'bytes';
  if (typeof value === 'object') return 'map';
  return typeof value;
}

/**
 * `matchConditions` as kube-apiserver runs them for admission policies and webhooks: checked when
 * the object is written (at most 64, qualified unique names, expressions that compile to bool) and
 * evaluated per request: any false skips, whatever the others did; otherwise an error decides
 * (the caller applies its failurePolicy); otherwise all true: the request matches.
 */
import {
  AccessReviews,
  CEL_LIMITS,
  CelAuthorizer,
  CelLimitExceeded,
  compileCel,
  describeCelError,
  type CelProgram,
  type CelVariables,
} from '@edict/cel';
import type { EvaluationDeadline } from '@edict/foundation';
import { CelRound, DEFAULT_BOUNDS, inRounds, type Authorize, type CelBounds } from './cel/round';
import { at, fieldErrors, formatFieldErrors, type FieldError } from './field-errors';
import { qualifiedNameErrors } from './qualified-name';

export const MAX_MATCH_CONDITIONS = 64;

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface CompiledMatchConditions {
  readonly conditions: readonly { readonly name: string; readonly program: CelProgram }[];
}

export type MatchConditionsResult = { matches: true } | { matches: false; failedCondition: string } | { error: string };

/** A policy's matchConditions that kube would refuse; `errors` names each field. */
export class MatchConditionError extends Error {
  override readonly name = 'MatchConditionError';
  constructor(readonly errors: readonly FieldError[]) {
    super(formatFieldErrors(errors));
  }

  /** The first error's field, for callers that report one. */
  get field(): string {
    return this.errors[0]?.field ?? '';
  }
}

/** Every field error of `conditions` at `fieldPath` (like `spec.matchConditions`), [] when valid. */
export function matchConditionErrors(
  conditions: readonly MatchCondition[] | unknown,
  variables: CelVariables,
  fieldPath: string,
): FieldError[] {
  return compile(conditions, variables, fieldPath).errors;
}

/** Compiles matchConditions; throws MatchConditionError with every field error. */
export function compileMatchConditions(
  conditions: readonly MatchCondition[],
  variables: CelVariables,
  fieldPath: string,
): CompiledMatchConditions {
  const { compiled, errors } = compile(conditions, variables, fieldPath);
  if (errors.length > 0) throw new MatchConditionError(errors);
  return compiled;
}

function compile(
  input: unknown,
  variables: CelVariables,
  fieldPath: string,
): { compiled: CompiledMatchConditions; errors: FieldError[] } {
  const errors: FieldError[] = [];
  const conditions: { name: string; program: CelProgram }[] = [];
  if (input === undefined || input === null) return { compiled: { conditions }, errors };
  if (!Array.isArray(input)) {
    return { compiled: { conditions }, errors: [fieldErrors.invalid(fieldPath, typeof input, 'must be a list')] };
  }
  if (input.length > MAX_MATCH_CONDITIONS)
    errors.push(fieldErrors.tooMany(fieldPath, input.length, MAX_MATCH_CONDITIONS));
  const seen = new Set<string>();
  input.forEach((raw: unknown, i) => {
    const entry = (raw && typeof raw === 'object' ? raw : {}) as Partial<Record<string, unknown>>;
    const name = typeof entry.name === 'string' ? entry.name : '';
    const expression = typeof entry.expression === 'string' ? entry.expression : '';
    const namePath = at(fieldPath, i, 'name');
    if (name === '') errors.push(fieldErrors.required(namePath));
    else {
      for (const problem of qualifiedNameErrors(name)) errors.push(fieldErrors.invalid(namePath, name, problem));
      if (seen.has(name)) errors.push(fieldErrors.duplicate(namePath, name));
    }
    seen.add(name);
    const expressionPath = at(fieldPath, i, 'expression');
    if (expression.trim() === '') {
      errors.push(fieldErrors.required(expressionPath));
      return;
    }
    try {
      conditions.push({ name, program: compileCel(expression, variables, 'bool') });
    } catch (error) {
      errors.push(fieldErrors.invalid(expressionPath, expression, `compilation failed: ${describeCelError(error)}`));
    }
  });
  return { compiled: { conditions }, errors };
}

/** Evaluates compiled conditions within a round (see CelRound); errors joined as kube aggregates them. */
export function evaluateMatchConditionsIn(
  round: CelRound,
  compiled: CompiledMatchConditions,
  activation: Readonly<Record<string, unknown>>,
): MatchConditionsResult {
  const errors: string[] = [];
  for (const { name, program } of compiled.conditions) {
    const outcome = round.evaluate(program, activation);
    // Only false skips and only errors count: kube reads any other value (checked bool) as met.
    if ('error' in outcome) errors.push(outcome.error);
    else if (outcome.value === false) return { matches: false, failedCondition: name };
  }
  if (errors.length === 0) return { matches: true };
  return { error: errors.length === 1 ? errors[0]! : `[${errors.join(', ')}]` };
}

export interface MatchConditionOptions {
  /** Answers the `authorizer` checks (else they fail closed). */
  authorize?: Authorize;
  deadline?: EvaluationDeadline;
  bounds?: CelBounds;
}

/**
 * Evaluates compiled conditions on an activation the caller built (`object`, `oldObject`,
 * `request`, and `params`, `namespaceObject`, `variables`, `authorizer` as declared). A
 * CelAuthorizer in the activation has its checks answered by `options.authorize`.
 */
export async function evaluateMatchConditions(
  compiled: CompiledMatchConditions,
  activation: Record<string, unknown>,
  options: MatchConditionOptions = {},
): Promise<MatchConditionsResult> {
  if (compiled.conditions.length === 0) return { matches: true };
  const reviews =
    activation.authorizer instanceof CelAuthorizer
      ? activation.authorizer.reviews
      : new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
  try {
    return await inRounds(reviews, options.authorize, () =>
      evaluateMatchConditionsIn(
        new CelRound(reviews, options.bounds ?? DEFAULT_BOUNDS, options.deadline),
        compiled,
        activation,
      ),
    );
  } catch (error) {
    if (error instanceof CelLimitExceeded) return { error: error.message };
    throw error;
  }
}

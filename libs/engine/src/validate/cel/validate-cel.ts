import {
  AccessReviews,
  CEL_LIMITS,
  CelLimitExceeded,
  CelMeter,
  describeCelError,
  toCel,
  type CelProgram,
  type AccessReviewRequest,
} from '@edict/cel';
import { EvaluationDeadlineExceeded, type KubeObject } from '@edict/foundation';
import type { AccessReviewer, ResourceLoader } from '../../core/loaders';
import { ruleError, ruleResponse } from '../../core/responses';
import type { RuleResponse } from '../../core/types';
import type { RuleRun } from '../rule-run';
import { authorizerFor, celObject, loadNamespaceObject, requestAttributes, requestNamespace } from './activation';
import { compileCelRule, type CompiledCelRule, type NamedProgram } from './compile-rule';
import { loadParams } from './params';

/** What validate.cel rules read from outside the request. */
export interface CelRuleDependencies {
  readonly resources?: ResourceLoader;
  readonly accessReviewer?: AccessReviewer;
  /** No cluster behind `resources`: the namespace object is built from the request (see loadNamespaceObject). */
  readonly offline?: boolean;
}

type Verdict = { status: 'pass' } | { status: 'fail' | 'skip'; message: string };

/** An evaluation round met an authorizer check without an answer yet (see AccessReviews). */
const PENDING = Symbol('pending access reviews');

/**
 * Kyverno's validate.cel handler: the rule is a ValidatingAdmissionPolicy evaluated in place, once
 * per parameter object. `celPreconditions` not met: skip. The first validation that is not true
 * fails the rule with its message; an expression that errors fails it too, with the error, as
 * Kyverno's validator denies on errors. Edict's own bounds (steps, sizes, authorizer checks) end
 * the rule in `error`. `auditAnnotations` are not evaluated (Edict publishes none).
 */
export async function validateCel(run: RuleRun, deps: CelRuleDependencies): Promise<RuleResponse> {
  const { rule, request, resource } = run;
  const cel = rule.validate?.cel ?? {};
  let compiled: CompiledCelRule;
  try {
    compiled = compileCelRule(rule);
  } catch (error) {
    return ruleError(rule, 'Validation', 'failed to compile validate.cel', error);
  }
  const namespace = requestNamespace(resource);
  let namespaceObject: KubeObject | undefined;
  try {
    namespaceObject = await loadNamespaceObject(namespace, request, deps.offline ? undefined : deps.resources);
  } catch (error) {
    return ruleError(rule, 'Validation', "Error getting the resource's namespace", error);
  }
  let params: (KubeObject | undefined)[] = [undefined];
  if (cel.paramKind && cel.paramRef) {
    try {
      params = await loadParams(cel, namespace, deps.resources, run.context.scope ?? {});
    } catch (error) {
      return ruleError(rule, 'Validation', 'error in parameterized resource', error);
    }
  }

  const reviews = new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
  const evaluator = new RuleEvaluator(compiled, new CelMeter(run.ctx.budget), reviews, run);
  const base = {
    object: request.operation === 'DELETE' ? null : celObject(request.resource ?? resource),
    oldObject: celObject(request.oldResource),
    request: toCel(requestAttributes(request, resource)),
    namespaceObject: celObject(namespaceObject),
  };
  try {
    for (;;) {
      const verdict = evaluator.verdict(base, params);
      if (verdict !== PENDING) return response(run, verdict);
      await reviews.resolve((question) => review(deps.accessReviewer, question));
    }
  } catch (error) {
    if (error instanceof CelLimitExceeded) return ruleResponse(rule, 'Validation', 'error', error.message);
    throw error;
  }
}

function response(run: RuleRun, verdict: Verdict): RuleResponse {
  if (verdict.status === 'pass') {
    return ruleResponse(run.rule, 'Validation', 'pass', `Validation rule '${run.rule.name}' passed.`);
  }
  return ruleResponse(run.rule, 'Validation', verdict.status, verdict.message);
}

async function review(reviewer: AccessReviewer | undefined, question: AccessReviewRequest) {
  if (!reviewer) throw new Error('no API server to review access with');
  return reviewer.review(question);
}

type Outcome = { value: unknown } | { error: unknown };

/** One round of evaluation over every parameter object. */
class RuleEvaluator {
  constructor(
    private readonly compiled: CompiledCelRule,
    private readonly meter: CelMeter,
    private readonly reviews: AccessReviews,
    private readonly run: RuleRun,
  ) {}

  verdict(base: Record<string, unknown>, params: (KubeObject | undefined)[]): Verdict | typeof PENDING {
    try {
      for (const param of params) {
        const activation: Record<string, unknown> = {
          ...base,
          params: celObject(param),
          authorizer: authorizerFor(this.run.request, this.reviews),
        };
        activation.variables = this.lazyVariables(activation);
        const verdict = this.verdictFor(activation);
        if (verdict.status !== 'pass') return verdict;
      }
      return { status: 'pass' };
    } catch (error) {
      if (error === PENDING) return PENDING;
      throw error;
    }
  }

  private verdictFor(activation: Record<string, unknown>): Verdict {
    const preconditions = this.compiled.preconditions.map((condition) => ({
      condition,
      outcome: this.evaluate(condition.program, activation),
    }));
    // As Kubernetes' match conditions: any false skips; otherwise an error decides.
    if (preconditions.some(({ outcome }) => 'value' in outcome && outcome.value === false)) {
      return { status: 'skip', message: 'cel preconditions not met' };
    }
    for (const { condition, outcome } of preconditions) {
      if ('error' in outcome) return { status: 'fail', message: preconditionError(condition, outcome.error) };
      if (outcome.value !== true) {
        return { status: 'fail', message: `celPrecondition "${condition.name}" must evaluate to bool` };
      }
    }
    for (const validation of this.compiled.validations) {
      const outcome = this.evaluate(validation.program, activation);
      if ('error' in outcome) return { status: 'fail', message: expressionError(validation.program, outcome.error) };
      if (outcome.value === true) continue;
      const message =
        this.messageFrom(validation.messageProgram, activation) ||
        validation.message.trim() ||
        `failed expression: ${validation.program.source.trim()}`;
      return { status: 'fail', message };
    }
    return { status: 'pass' };
  }

  /** A messageExpression's result, or '' to fall back (error, not a string, too long, several lines). */
  private messageFrom(program: CelProgram | undefined, activation: Record<string, unknown>): string {
    if (!program) return '';
    const { authorizer: _authorizer, ...withoutAuthorizer } = activation;
    const outcome = this.evaluate(program, withoutAuthorizer);
    if (!('value' in outcome) || typeof outcome.value !== 'string') return '';
    const message = outcome.value.trim();
    return message.length > CEL_LIMITS.maxMessageLength || message.includes('\n') ? '' : message;
  }

  /**
   * `variables`: each evaluated on first use and remembered, as Kubernetes composes them. A
   * variable that reads itself (directly or not) is an error rather than a loop.
   */
  private lazyVariables(activation: Record<string, unknown>): Record<string, unknown> {
    const variables: Record<string, unknown> = Object.create(null);
    for (const { name, program } of this.compiled.variables) {
      let state: Outcome | 'evaluating' | undefined;
      Object.defineProperty(variables, name, {
        enumerable: true,
        get: () => {
          if (state === 'evaluating') throw new Error(`variable ${name} refers to itself`);
          if (state === undefined) {
            state = 'evaluating';
            state = this.evaluate(program, activation, true);
          }
          if ('error' in state) throw state.error;
          return state.value;
        },
      });
    }
    return variables;
  }

  /**
   * One metered evaluation. Edict's bounds and the deadline end the rule whatever the expression
   * did with the error; an error while authorizer checks wait for answers ends the round (checked
   * at the top level only: a variable is evaluated inside another expression).
   */
  private evaluate(program: CelProgram, activation: Readonly<Record<string, unknown>>, nested = false): Outcome {
    let outcome: Outcome;
    try {
      outcome = { value: this.meter.run(() => program.evaluate(activation)) };
    } catch (error) {
      outcome = { error };
    }
    if (this.run.ctx.budget.expired) throw new EvaluationDeadlineExceeded();
    const exceeded = this.meter.exceeded ?? this.reviews.exceeded;
    if (exceeded) throw exceeded;
    if (nested) return outcome;
    if ('error' in outcome && this.reviews.pending.length > 0) {
      throw PENDING;
    }
    return outcome;
  }
}

function expressionError(program: CelProgram, error: unknown): string {
  return `expression '${program.source}' resulted in error: ${describeCelError(error)}`;
}

function preconditionError(condition: NamedProgram, error: unknown): string {
  return `celPrecondition "${condition.name}": ${expressionError(condition.program, error)}`;
}

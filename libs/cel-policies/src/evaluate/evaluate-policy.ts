import {
  AccessReviews,
  CEL_LIMITS,
  CelLimitExceeded,
  CelMeter,
  describeCelError,
  kyvernoActivation,
  toCel,
  type AccessReviewRequest,
} from '@edict/cel';
import type { AccessReviewer, PolicyResponse, RuleResponse } from '@edict/engine';
import { DEFAULT_EVALUATION_LIMITS, EvaluationBudget, type JsonObject } from '@edict/foundation';
import { matchResources, type AdmissionAttributes, type MatchedAs } from '@edict/native-policies';
import type { CompiledSpec, NamedProgram } from '../compile/compiled-expressions';
import { programsOf } from '../compile/compile-policy';
import type { CompiledValidatingPolicy } from '../compile/compiled-policy';
import type { CompiledCelPolicyException } from '../exceptions/compiled-exception';
import { authorizerFor, celValue } from './activation';
import { admissionAttributesOf, kyvernoRequestOf, namespaceOf } from './attributes';
import type { CelPolicyContext, CelPolicyInput } from './input';
import {
  errorRule,
  exceptionRule,
  failRule,
  passRule,
  policyResponse,
  skipRule,
  validationErrorRule,
} from './responses';
import { PENDING, SpecRun, type Outcome } from './spec-run';

/** `exceptions` when none matched (shared: CEL values are never modified). */
const NO_EXCEPTIONS = toCel({ allowedImages: [], allowedValues: [] });

/** At most this many rounds of authorizer answers (one more than the checks a rule may ask). */
const MAX_ROUNDS = CEL_LIMITS.maxAuthorizerChecks + 1;

/**
 * Kyverno's ValidatingPolicy engine on one request. undefined when the policy does not apply (its
 * matchConstraints, or its autogen configs', do not match; a NamespacedValidatingPolicy and an
 * object outside its namespace). Otherwise one rule as Kyverno reports it: `skip` when a match
 * condition is false (or an exception skips it), `pass`/`fail` from the validations, `error` when an
 * expression errors (the caller applies failurePolicy and validationActions).
 */
export async function evaluateValidatingPolicy(
  compiled: CompiledValidatingPolicy,
  input: CelPolicyInput,
  context: CelPolicyContext,
): Promise<PolicyResponse | undefined> {
  const programs = programsOf(compiled);
  const json = compiled.mode === 'JSON';
  let spec: CompiledSpec | undefined;
  let attributes: AdmissionAttributes | undefined;
  let request: unknown = null;
  const exceptions = applicableExceptions(compiled, context);
  if (json) {
    spec = programs.own;
  } else {
    attributes = admissionAttributesOf(input);
    // A namespaced policy never reaches outside its namespace: cluster-scoped objects included.
    if (compiled.namespace !== undefined && objectNamespace(input) !== compiled.namespace) return undefined;
    const namespaceObject = (input.namespaceObject ?? null) as JsonObject | null;
    let matchedAs: MatchedAs | undefined;
    for (let i = -1; i < programs.autogen.length; i++) {
      const candidate = i < 0 ? programs.own : programs.autogen[i]!.spec;
      if (!candidate.matchConstraints) continue;
      const decision = matchResources(candidate.matchConstraints, attributes, namespaceObject);
      if (decision.matches) {
        spec = candidate;
        matchedAs = { resource: decision.resource, kind: decision.kind };
        break;
      }
      if (decision.error !== undefined) {
        return policyResponse(compiled, input, [errorRule('match', 'failed to execute matching', decision.error)]);
      }
    }
    if (!spec) return undefined;
    // `request` is built only for policies (or exceptions) that read it: most do not.
    if (spec.readsRequest || exceptions.some((exception) => exception.readsRequest)) {
      request = toCel(kyvernoRequestOf(attributes, matchedAs));
    }
  }

  const budget = new EvaluationBudget(DEFAULT_EVALUATION_LIMITS, context.deadline);
  const reviews = new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
  // Kyverno's libraries' values for this evaluation, when something reads them: their calls share
  // one count and the deadline, and a namespaced policy's stay in its namespace.
  const libraries =
    spec.readsLibraries || exceptions.some((exception) => exception.readsLibraries)
      ? kyvernoActivation(context.ports, {
          ...(compiled.namespace !== undefined ? { policyNamespace: compiled.namespace } : {}),
          ...(context.deadline ? { deadline: context.deadline } : {}),
          ...(context.allowHttpInNamespacedPolicies ? { allowHttpInNamespacedPolicies: true } : {}),
        })
      : undefined;
  const base = withLibraries(
    json
      ? { object: celValue(input.jsonPayload) }
      : {
          object: celValue(attributes?.object),
          oldObject: celValue(attributes?.oldObject),
          request,
          namespaceObject: celValue(input.namespaceObject),
        },
    libraries,
  );
  try {
    for (let round = 0; round < MAX_ROUNDS; round++) {
      try {
        const meter = new CelMeter(budget);
        const rules = await evaluateSpec(compiled, spec, base, exceptions, { meter, reviews, budget, attributes });
        return policyResponse(compiled, input, rules.rules, rules.auditAnnotations);
      } catch (error) {
        if (error !== PENDING) throw error;
        await reviews.resolve((question) => review(context.authorizer, question));
      }
    }
    return policyResponse(compiled, input, [errorRule('', 'error', 'too many rounds of authorizer checks')]);
  } catch (error) {
    if (error instanceof CelLimitExceeded)
      return policyResponse(compiled, input, [errorRule('', 'error', error.message)]);
    throw error;
  }
}

interface RoundTools {
  meter: CelMeter;
  reviews: AccessReviews;
  budget: EvaluationBudget;
  attributes: AdmissionAttributes | undefined;
}

interface SpecResult {
  rules: RuleResponse[];
  auditAnnotations?: Record<string, string>;
}

async function evaluateSpec(
  compiled: CompiledValidatingPolicy,
  spec: CompiledSpec,
  base: Record<string, unknown>,
  exceptions: readonly CompiledCelPolicyException[],
  tools: RoundTools,
): Promise<SpecResult> {
  const activation = roundActivation(base);
  if (tools.attributes && spec.readsAuthorizer) activation.authorizer = authorizerFor(tools.attributes, tools.reviews);
  const run = new SpecRun(spec, activation, tools.meter, tools.reviews, tools.budget);
  // Exceptions first, on the request alone: one that matches and allows no images or values skips.
  const matched: CompiledCelPolicyException[] = [];
  for (const exception of exceptions) {
    const pendingDecision = conditionsHold(run, exception.matchConditions, base);
    const decision = pendingDecision instanceof Promise ? await pendingDecision : pendingDecision;
    if ('error' in decision) {
      // As for the policy's own conditions: under Ignore an error does not match.
      if (compiled.failurePolicy === 'Ignore') continue;
      return { rules: [errorRule('evaluation', 'failed to load context', decision.error)] };
    }
    if (decision.holds) matched.push(exception);
  }
  if (matched.length === 0) activation.exceptions = NO_EXCEPTIONS;
  else {
    const allowedImages = matched.flatMap((exception) => exception.images);
    const allowedValues = matched.flatMap((exception) => exception.allowedValues);
    if (allowedImages.length === 0 && allowedValues.length === 0) return { rules: [exceptionRule(matched)] };
    activation.exceptions = toCel({ allowedImages, allowedValues } as unknown as JsonObject);
  }

  const pendingConditions = conditionsHold(run, spec.matchConditions, base);
  const conditions = pendingConditions instanceof Promise ? await pendingConditions : pendingConditions;
  if ('error' in conditions) {
    if (compiled.failurePolicy === 'Ignore') return { rules: [skipRule()] };
    return { rules: [errorRule('evaluation', 'failed to load context', conditions.error)] };
  }
  if (!conditions.holds) return { rules: [skipRule()] };

  for (const validation of spec.validations) {
    const pending = run.evaluate(validation.program, validation.reads);
    const outcome = pending instanceof Promise ? await pending : pending;
    if ('error' in outcome) return { rules: [validationErrorRule(describeCelError(outcome.error), validation.index)] };
    if (outcome.value === true) continue;
    if (outcome.value !== false) {
      return { rules: [validationErrorRule(`expected a bool, got ${typeName(outcome.value)}`, validation.index)] };
    }
    let message = validation.message;
    if (validation.messageProgram) {
      const text = await run.evaluate(
        validation.messageProgram,
        validation.messageReads,
        withoutAuthorizer(activation),
      );
      if ('error' in text) message = `failed to evaluate message expression: ${describeCelError(text.error)}`;
      else if (typeof text.value !== 'string')
        message = `failed to convert message expression to string: ${typeName(text.value)}`;
      // Bounded as Kubernetes bounds it: a longer message is cut, never carried whole.
      else
        message =
          text.value.length > CEL_LIMITS.maxMessageLength
            ? text.value.slice(0, CEL_LIMITS.maxMessageLength)
            : text.value;
    }
    if (message === '') message = `CEL expression validation failed at index ${validation.index}`;
    const annotations = spec.auditAnnotations.length === 0 ? NO_ANNOTATIONS : await auditAnnotations(run, spec);
    if ('error' in annotations)
      return { rules: [errorRule('evaluation', 'failed to load context', annotations.error)] };
    return {
      rules: [failRule(message, annotations.values, validation.index, validation.reason)],
      ...prefixed(compiled, annotations.values),
    };
  }
  const annotations = spec.auditAnnotations.length === 0 ? NO_ANNOTATIONS : await auditAnnotations(run, spec);
  if ('error' in annotations) return { rules: [errorRule('evaluation', 'failed to load context', annotations.error)] };
  return { rules: [passRule(annotations.values)], ...prefixed(compiled, annotations.values) };
}

/**
 * Match conditions as Kubernetes decides them: any false does not hold; otherwise an error (or a
 * non-bool) is the answer; otherwise they hold. They see the request, never `variables`.
 */
export function conditionsHold(
  run: SpecRun,
  conditions: readonly NamedProgram[],
  base: Record<string, unknown>,
): ConditionsResult | Promise<ConditionsResult> {
  return conditions.length === 0 ? HOLDS : evaluateConditions(run, conditions, base);
}

type ConditionsResult = { holds: boolean } | { error: string };
const HOLDS: ConditionsResult = { holds: true };

async function evaluateConditions(
  run: SpecRun,
  conditions: readonly NamedProgram[],
  base: Record<string, unknown>,
): Promise<ConditionsResult> {
  let failure: string | undefined;
  for (const condition of conditions) {
    const pending = run.evaluate(condition.program, condition.reads, base);
    const outcome = pending instanceof Promise ? await pending : pending;
    if ('error' in outcome) {
      failure ??= `matchCondition '${condition.name}': ${describeCelError(outcome.error)}`;
      continue;
    }
    if (outcome.value === false) return { holds: false };
    if (outcome.value !== true) failure ??= `matchCondition '${condition.name}' must evaluate to bool`;
  }
  return failure === undefined ? { holds: true } : { error: failure };
}

const NO_ANNOTATIONS: { values: Record<string, string> } = Object.freeze({ values: Object.freeze({}) });

export async function auditAnnotations(
  run: SpecRun,
  spec: CompiledSpec,
): Promise<{ values: Record<string, string> } | { error: string }> {
  const values: Record<string, string> = {};
  for (const annotation of spec.auditAnnotations) {
    const pending = run.evaluate(annotation.program, annotation.reads);
    const outcome: Outcome = pending instanceof Promise ? await pending : pending;
    if ('error' in outcome) return { error: `auditAnnotation '${annotation.key}': ${describeCelError(outcome.error)}` };
    if (outcome.value === null || outcome.value === '') continue;
    if (typeof outcome.value !== 'string') {
      return {
        error: `auditAnnotation '${annotation.key}' must evaluate to a string or null, not ${typeName(outcome.value)}`,
      };
    }
    values[annotation.key] = outcome.value.slice(0, CEL_LIMITS.maxMessageLength * 2);
  }
  return { values };
}

/** Kubernetes names a policy's audit annotations `<policy name>/<key>`. */
function prefixed(compiled: CompiledValidatingPolicy, values: Record<string, string>) {
  const entries = Object.entries(values);
  if (entries.length === 0) return {};
  return { auditAnnotations: Object.fromEntries(entries.map(([key, value]) => [`${compiled.name}/${key}`, value])) };
}

/**
 * The exceptions naming this policy (by name and kind), not expired; a NamespacedValidatingPolicy
 * takes only exceptions from its own namespace.
 */
export function applicableExceptions(
  compiled: { readonly name: string; readonly kind: string; readonly namespace?: string },
  context: CelPolicyContext,
): CompiledCelPolicyException[] {
  const all = context.exceptions ?? [];
  if (all.length === 0) return [];
  const now = (context.now ?? Date.now)();
  return all.filter(
    (exception) =>
      exception.policyRefs.some((ref) => ref.name === compiled.name && ref.kind === compiled.kind) &&
      (exception.expiresAt === undefined || exception.expiresAt > now) &&
      (compiled.namespace === undefined || exception.namespace === compiled.namespace),
  );
}

function objectNamespace(input: CelPolicyInput): string {
  const { request } = input;
  return namespaceOf(request.resource ?? request.oldResource);
}

/** The request's values and, when something reads them, Kyverno's libraries' (never over a request value). */
export function withLibraries(values: Record<string, unknown>, libraries: Record<string, unknown> | undefined) {
  if (libraries) for (const key of Object.keys(libraries)) if (!(key in values)) values[key] = libraries[key];
  return values;
}

/**
 * A round's activation: the request's values and the slots the round fills (authorizer, variables,
 * exceptions). Built as a literal and filled in place: V8 makes every property added to a spread
 * copy (`{ ...base }`) cost microseconds, once per policy and request.
 */
export function roundActivation(base: Record<string, unknown>): Record<string, unknown> {
  const activation: Record<string, unknown> = { authorizer: undefined, variables: undefined, exceptions: undefined };
  for (const key of Object.keys(base)) activation[key] = base[key];
  return activation;
}

export function withoutAuthorizer(activation: Record<string, unknown>): Record<string, unknown> {
  const { authorizer: _authorizer, ...rest } = activation;
  return rest;
}

export async function review(reviewer: AccessReviewer | undefined, question: AccessReviewRequest) {
  if (!reviewer) throw new Error('no API server to review access with');
  return reviewer.review(question);
}

export function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'list';
  return typeof value === 'bigint' ? 'int' : typeof value;
}

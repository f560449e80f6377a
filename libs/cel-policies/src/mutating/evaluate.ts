import {
  AccessReviews,
  CEL_LIMITS,
  CelLimitExceeded,
  CelMeter,
  describeCelError,
  kyvernoActivation,
  toCel,
} from '@edict/cel';
import { admissionPatch, type PolicyResponse, type RuleResponse } from '@edict/engine';
import {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationBudget,
  EvaluationDeadlineExceeded,
  errorMessage,
  type JsonObject,
  type KubeObject,
} from '@edict/foundation';
import {
  matchResources,
  type AdmissionAttributes,
  type MatchedAs,
  type MatchResources,
  builtinShape,
  DEDUCED_SHAPE,
  type MergeShape,
} from '@edict/native-policies';
import type { NamedProgram } from '../compile/compiled-expressions';
import type { CompiledCelPolicyException } from '../exceptions/compiled-exception';
import { celValue } from '../evaluate/activation';
import { admissionAttributesOf, kyvernoRequestOf, namespaceOf } from '../evaluate/attributes';
import {
  applicableExceptions,
  auditAnnotations,
  conditionsHold,
  roundActivation,
  withLibraries,
} from '../evaluate/evaluate-policy';
import type { CelPolicyContext, CelPolicyInput } from '../evaluate/input';
import { SpecRun } from '../evaluate/spec-run';
import { mutatingProgramsOf, type MutatingSpecPrograms } from './compile';
import { patchObject } from './mutations';
import type { CompiledMutatingPolicy, MutatingPolicyResult, MutatingPolicyStatus } from './types';

/** `exceptions` when none matched (shared: CEL values are never modified). */
const NO_EXCEPTIONS = toCel({ allowedImages: [], allowedValues: [] });

/** What a MutatingPolicy evaluation may use beyond the CEL policies' context. */
export interface MutatingPolicyContext extends CelPolicyContext {
  /**
   * How an object's lists and maps merge for ApplyConfiguration mutations (@edict/native-policies'
   * builtinShape, schemaShape for a CRD's schema); when absent, Kubernetes' own kinds merge as their
   * schema says (builtinShape: containers by name...) and other kinds with every list atomic.
   */
  readonly shapeOf?: (object: KubeObject) => MergeShape | undefined;
}

/**
 * Kyverno's MutatingPolicy engine on one admission request (or a background/CLI request built
 * from a resource). undefined when the policy does not apply (its matchConstraints, or its autogen
 * configs', do not match; a NamespacedMutatingPolicy and an object outside its namespace).
 * Otherwise one Mutation rule as Kyverno reports it: `skip` when a match condition is false (or an
 * exception skips it), `pass` with the patched object and the JSON Patch from the request's object,
 * `error` when an expression or a patch fails (the caller applies failurePolicy).
 */
export async function evaluateMutatingPolicy(
  compiled: CompiledMutatingPolicy,
  input: CelPolicyInput,
  context: MutatingPolicyContext,
): Promise<MutatingPolicyResult | undefined> {
  const programs = mutatingProgramsOf(compiled);
  const attributes = admissionAttributesOf(input);
  const subject = (input.request.resource ?? input.request.oldResource) as KubeObject | undefined;
  // A namespaced policy never reaches outside its namespace: cluster-scoped objects included.
  if (compiled.namespace !== undefined && namespaceOf(subject) !== compiled.namespace) return undefined;
  const namespaceObject = (input.namespaceObject ?? null) as JsonObject | null;
  const chosen = chooseSpec(programs, attributes, namespaceObject, false);
  if (chosen === undefined) return undefined;
  if ('error' in chosen)
    return result(compiled, subject, errorRule('match', 'failed to execute matching', chosen.error));
  const object = (input.request.operation === 'DELETE' ? null : (input.request.resource ?? null)) as KubeObject | null;
  return run(compiled, chosen.programs, {
    attributes,
    matchedAs: chosen.matchedAs,
    object,
    subject,
    namespaceObject: input.namespaceObject ?? null,
    context,
  });
}

/**
 * Mutate-existing: the policy on one existing target a trigger selected (see mutateExistingTargets),
 * as Kyverno's background controller runs it: `object` is the target, `request` the trigger's, the
 * match conditions and mutations as for admission. A NamespacedMutatingPolicy never patches a
 * target outside its namespace.
 */
export async function evaluateMutatingPolicyOnTarget(
  compiled: CompiledMutatingPolicy,
  target: KubeObject,
  trigger: CelPolicyInput,
  context: MutatingPolicyContext & { targetNamespaceObject?: KubeObject | null },
): Promise<MutatingPolicyResult | undefined> {
  if (compiled.namespace !== undefined && namespaceOf(target) !== compiled.namespace) return undefined;
  const programs = mutatingProgramsOf(compiled);
  const targetAttributes = admissionAttributesOf({
    request: { operation: trigger.request.operation, resource: target },
    resource: { group: '', version: '', resource: '' },
  });
  const chosen = chooseSpec(programs, targetAttributes, null, true);
  const specPrograms = chosen !== undefined && !('error' in chosen) ? chosen.programs : programs.own;
  const triggerAttributes = admissionAttributesOf(trigger);
  // A separate target (targetMatchConstraints) answers to targetMatchConditions; a trigger that is
  // its own target to the match conditions, as Kyverno decides.
  const explicit = compiled.targetMatchConstraints;
  const separate = (explicit?.resourceRules ?? []).length > 0 || (explicit?.expression ?? '') !== '';
  return run(compiled, specPrograms, {
    attributes: triggerAttributes,
    object: target,
    subject: target,
    namespaceObject: context.targetNamespaceObject ?? null,
    context,
    ...(separate ? { conditions: specPrograms.targetMatchConditions } : {}),
  });
}

/**
 * Whether a trigger fires a mutate-existing policy, as Kyverno's background controller decides:
 * its matchConstraints (or an autogen config's) match and its match conditions hold (an error does
 * not fire it).
 */
export async function triggersMutateExisting(
  compiled: CompiledMutatingPolicy,
  trigger: CelPolicyInput,
  context: MutatingPolicyContext,
): Promise<boolean> {
  if (!compiled.mutateExisting) return false;
  const subject = (trigger.request.resource ?? trigger.request.oldResource) as KubeObject | undefined;
  if (compiled.namespace !== undefined && namespaceOf(subject) !== compiled.namespace) return false;
  const attributes = admissionAttributesOf(trigger);
  const chosen = chooseSpec(
    mutatingProgramsOf(compiled),
    attributes,
    (trigger.namespaceObject ?? null) as JsonObject | null,
    false,
  );
  if (chosen === undefined || 'error' in chosen) return false;
  if (chosen.programs.spec.matchConditions.length === 0) return true;
  const budget = new EvaluationBudget(DEFAULT_EVALUATION_LIMITS, context.deadline);
  const base = withLibraries(
    {
      object: celValue(attributes.object),
      oldObject: celValue(attributes.oldObject),
      request: toCel(kyvernoRequestOf(attributes, chosen.matchedAs, 'empty')),
      namespaceObject: celValue(trigger.namespaceObject),
    },
    kyvernoActivation(context.ports, {
      ...(compiled.namespace !== undefined ? { policyNamespace: compiled.namespace } : {}),
      ...(context.deadline ? { deadline: context.deadline } : {}),
    }),
  );
  const activation = roundActivation(base);
  delete activation.authorizer;
  activation.exceptions = NO_EXCEPTIONS;
  const runner = new SpecRun(
    chosen.programs.spec,
    activation,
    new CelMeter(budget),
    new AccessReviews(CEL_LIMITS.maxAuthorizerChecks),
    budget,
  );
  try {
    const pending = conditionsHold(runner, chosen.programs.spec.matchConditions, activation);
    const decision = pending instanceof Promise ? await pending : pending;
    return !('error' in decision) && decision.holds;
  } catch (error) {
    if (error instanceof CelLimitExceeded || error instanceof EvaluationDeadlineExceeded) return false;
    throw error;
  }
}

type Chosen = { programs: MutatingSpecPrograms; matchedAs: MatchedAs } | { error: string } | undefined;

function chooseSpec(
  programs: ReturnType<typeof mutatingProgramsOf>,
  attributes: AdmissionAttributes,
  namespaceObject: JsonObject | null,
  anyOperation: boolean,
): Chosen {
  for (let i = -1; i < programs.autogen.length; i++) {
    const candidate = i < 0 ? programs.own : programs.autogen[i]!.programs;
    const constraints = candidate.spec.matchConstraints;
    if (!constraints) continue;
    const decision = matchResources(
      anyOperation ? withAnyOperation(constraints) : constraints,
      attributes,
      namespaceObject,
    );
    if (decision.matches)
      return { programs: candidate, matchedAs: { resource: decision.resource, kind: decision.kind } };
    if (decision.error !== undefined) return { error: decision.error };
  }
  return undefined;
}

/** Operations do not matter when matching existing targets (Kyverno's background controller ignores them). */
export function withAnyOperation(constraints: MatchResources): MatchResources {
  return {
    ...constraints,
    resourceRules: (constraints.resourceRules ?? []).map((rule) => ({ ...rule, operations: ['*'] })),
  };
}

interface RunInput {
  attributes: AdmissionAttributes;
  matchedAs?: MatchedAs;
  /** The object the mutations patch (`object`); null on DELETE. */
  object: KubeObject | null;
  /** What the response names. */
  subject: KubeObject | undefined;
  namespaceObject: KubeObject | null;
  context: MutatingPolicyContext;
  /** The conditions to hold (default: the spec's match conditions). */
  conditions?: readonly NamedProgram[];
}

async function run(
  compiled: CompiledMutatingPolicy,
  programs: MutatingSpecPrograms,
  { attributes, matchedAs, object, subject, namespaceObject, context, conditions: only }: RunInput,
): Promise<MutatingPolicyResult> {
  const exceptions = applicableExceptions(compiled, context);
  const budget = new EvaluationBudget(DEFAULT_EVALUATION_LIMITS, context.deadline);
  const reviews = new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
  const libraries = kyvernoActivation(context.ports, {
    ...(compiled.namespace !== undefined ? { policyNamespace: compiled.namespace } : {}),
    ...(context.deadline ? { deadline: context.deadline } : {}),
    ...(context.allowHttpInNamespacedPolicies ? { allowHttpInNamespacedPolicies: true } : {}),
  });
  const base = withLibraries(
    {
      object: celValue(object),
      oldObject: celValue(attributes.oldObject),
      request: toCel(kyvernoRequestOf(attributes, matchedAs, 'empty')),
      namespaceObject: celValue(namespaceObject),
    },
    libraries,
  );
  try {
    const meter = new CelMeter(budget);
    const activation = roundActivation(base);
    delete activation.authorizer;
    const runner = new SpecRun(programs.spec, activation, meter, reviews, budget);
    const exempted = await exceptionsFor(runner, exceptions, base, compiled, activation);
    if ('rule' in exempted) return result(compiled, subject, exempted.rule);

    // Kyverno binds the (lazy) variables before its match conditions: they may read them.
    const pendingConditions = conditionsHold(runner, only ?? programs.spec.matchConditions, activation);
    const conditions = pendingConditions instanceof Promise ? await pendingConditions : pendingConditions;
    if ('error' in conditions) {
      if (compiled.failurePolicy === 'Ignore') return result(compiled, subject, skipRule());
      return result(compiled, subject, errorRule('evaluation', 'failed to evaluate policy', conditions.error));
    }
    if (!conditions.holds) return result(compiled, subject, skipRule());
    if (!object) return result(compiled, subject, skipRule());

    let current = object as JsonObject;
    const patchContext = { shape: context.shapeOf?.(object) ?? defaultShape(object) };
    for (const mutation of programs.mutations) {
      const pending = runner.evaluate(mutation.program, mutation.reads);
      const outcome = pending instanceof Promise ? await pending : pending;
      if ('error' in outcome) {
        return result(
          compiled,
          subject,
          errorRule('evaluation', 'failed to evaluate policy', describeCelError(outcome.error)),
        );
      }
      try {
        current = patchObject(mutation, outcome.value, current, patchContext);
      } catch (error) {
        return result(compiled, subject, errorRule('evaluation', 'failed to evaluate policy', errorMessage(error)));
      }
      // The next mutation sees the object as patched so far, as Kubernetes chains them.
      activation.object = celValue(current);
    }
    const patched = current as unknown as KubeObject;
    // Audit annotations read the mutated object; Kyverno reports them as the result's properties.
    const annotations = await auditAnnotations(runner, programs.spec);
    if ('error' in annotations)
      return result(compiled, subject, errorRule('evaluation', 'failed to evaluate policy', annotations.error));
    // Exceptions that only allowed images or values are named on the passing rule, as Kyverno names them.
    const rule = passRule(patched);
    if (Object.keys(annotations.values).length > 0) rule.properties = { ...annotations.values };
    if (exempted.partial.length > 0) rule.exceptions = exempted.partial;
    return result(compiled, subject, rule, patched, admissionPatch(object, patched));
  } catch (error) {
    if (error instanceof CelLimitExceeded || error instanceof EvaluationDeadlineExceeded)
      return result(compiled, subject, errorRule('evaluation', 'failed to evaluate policy', errorMessage(error)));
    throw error;
  }
}

/** Exceptions first, on the request alone: one that matches and allows no images or values exempts. */
async function exceptionsFor(
  runner: SpecRun,
  exceptions: readonly CompiledCelPolicyException[],
  base: Record<string, unknown>,
  compiled: CompiledMutatingPolicy,
  activation: Record<string, unknown>,
): Promise<{ rule: RuleResponse } | { partial: string[] }> {
  const matched: CompiledCelPolicyException[] = [];
  let exempt = false;
  for (const exception of exceptions) {
    const pending = conditionsHold(runner, exception.matchConditions, base);
    const decision = pending instanceof Promise ? await pending : pending;
    if ('error' in decision) {
      // A broken later exception does not take back an exemption already granted.
      if (exempt || compiled.failurePolicy === 'Ignore') continue;
      return { rule: errorRule('evaluation', 'failed to evaluate policy', decision.error) };
    }
    if (!decision.holds) continue;
    matched.push(exception);
    if (exception.images.length === 0 && exception.allowedValues.length === 0) exempt = true;
  }
  if (exempt) return { rule: exceptionRule(matched) };
  const allowedImages = matched.flatMap((exception) => exception.images);
  const allowedValues = matched.flatMap((exception) => exception.allowedValues);
  activation.exceptions =
    matched.length === 0 ? NO_EXCEPTIONS : toCel({ allowedImages, allowedValues } as unknown as JsonObject);
  return { partial: matched.map((exception) => exception.key) };
}

/** Kubernetes' built-in API groups ('' core, unqualified names like `apps`, and `*.k8s.io`). */
function defaultShape(object: KubeObject): MergeShape {
  const apiVersion = object.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const group = slash < 0 ? '' : apiVersion.slice(0, slash);
  const builtin = !group.includes('.') || group.endsWith('.k8s.io');
  return builtin ? builtinShape(apiVersion, object.kind ?? '') : DEDUCED_SHAPE;
}

function passRule(patched: KubeObject): RuleResponse {
  return { name: '', type: 'Mutation', status: 'pass', message: 'success', patchedResource: patched };
}

function skipRule(): RuleResponse {
  return { name: '', type: 'Mutation', status: 'skip', message: 'skip' };
}

function errorRule(name: string, what: string, cause: string): RuleResponse {
  return { name, type: 'Mutation', status: 'error', message: `${what}: ${cause}` };
}

/** The highest `kyverno.io/exception-priority` label decides pass or skip (Kyverno's rule); the response names them all. */
function exceptionRule(exceptions: readonly CompiledCelPolicyException[]): RuleResponse {
  const keys = exceptions.map((exception) => exception.key);
  const pass = exceptions[0]?.reportResult === 'pass';
  return {
    name: 'exception',
    type: 'Mutation',
    status: pass ? 'pass' : 'skip',
    message: `rule is ${pass ? 'passed' : 'skipped'} due to policy exception: ${keys.join(', ')}`,
    exceptions: keys,
  };
}

function result(
  compiled: CompiledMutatingPolicy,
  subject: KubeObject | undefined,
  rule: RuleResponse,
  patched?: KubeObject,
  patches: MutatingPolicyResult['patches'] = [],
): MutatingPolicyResult {
  const metadata = subject?.metadata ?? {};
  const namespace = namespaceOf(subject);
  const response: PolicyResponse = {
    policy: {
      name: compiled.name,
      kind: compiled.kind,
      ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
    },
    resource: {
      apiVersion: subject?.apiVersion ?? '',
      kind: subject?.kind ?? '',
      name: metadata.name ?? '',
      ...(namespace ? { namespace } : {}),
    },
    rules: [rule],
    validationFailureAction: 'Audit',
    failurePolicy: compiled.failurePolicy,
  };
  return {
    status: rule.status as MutatingPolicyStatus,
    message: rule.message,
    response,
    ...(patched ? { patchedResource: patched } : {}),
    patches,
  };
}

import { AccessReviews, CEL_LIMITS, CelMeter, kyvernoActivation, toCel } from '@edict/cel';
import {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationBudget,
  isObject,
  type JsonObject,
  type KubeObject,
} from '@edict/foundation';
import { matchResources, type MatchResources } from '@edict/native-policies';
import { celValue } from '../evaluate/activation';
import { admissionAttributesOf, kyvernoRequestOf, namespaceOf } from '../evaluate/attributes';
import { roundActivation } from '../evaluate/evaluate-policy';
import type { CelPolicyInput } from '../evaluate/input';
import { SpecRun } from '../evaluate/spec-run';
import { mutatingProgramsOf } from './compile';
import { triggersMutateExisting, withAnyOperation, type MutatingPolicyContext } from './evaluate';
import type { CompiledMutatingPolicy } from './types';

/** At most this many existing objects are patched for one trigger and policy (the rest are refused). */
export const MAX_MUTATE_EXISTING_TARGETS = 1_000;

/** An existing object a mutate-existing policy may patch, with its resource (group/version/plural). */
export interface TargetCandidate {
  readonly object: KubeObject;
  readonly resource: { group: string; version: string; resource: string };
}

export type TargetSelection = { targets: KubeObject[] } | { error: string };

/**
 * Which existing objects a trigger's mutate-existing policy patches (evaluation.mutateExisting with
 * targetMatchConstraints), as Kyverno's background controller selects them: none unless the trigger
 * fires the policy (triggersMutateExisting); with `targetMatchConstraints.expression` the objects
 * the expression names (one object, or a list's `items`, by namespace/name); otherwise the
 * candidates its targetMatchConstraints match (or its matchConstraints when it has no resource
 * rules), whatever the operation. A NamespacedMutatingPolicy only ever targets its namespace.
 * Bounded: more than MAX_MUTATE_EXISTING_TARGETS targets is an error, never a partial patch.
 */
export async function mutateExistingTargets(
  compiled: CompiledMutatingPolicy,
  trigger: CelPolicyInput,
  candidates: readonly TargetCandidate[],
  context: MutatingPolicyContext,
): Promise<TargetSelection> {
  if (!(await triggersMutateExisting(compiled, trigger, context))) return { targets: [] };
  const inScope = candidates.filter(
    (candidate) => compiled.namespace === undefined || namespaceOf(candidate.object) === compiled.namespace,
  );
  let targets: KubeObject[];
  const programs = mutatingProgramsOf(compiled);
  if (programs.targetExpression) {
    const keys = await expressionTargets(compiled, trigger, context);
    if ('error' in keys) return keys;
    targets = inScope.filter((candidate) => keys.keys.has(keyOf(candidate.object))).map((c) => c.object);
  } else {
    const own = compiled.targetMatchConstraints;
    const constraints: MatchResources = withAnyOperation(
      own && (own.resourceRules ?? []).length > 0 ? stripExpression(own) : (programs.own.spec.matchConstraints ?? {}),
    );
    targets = [];
    for (const candidate of inScope) {
      const attributes = admissionAttributesOf({
        request: { operation: 'UPDATE', resource: candidate.object, oldResource: candidate.object },
        resource: candidate.resource,
      });
      const decision = matchResources(constraints, attributes, null);
      if (decision.matches) targets.push(candidate.object);
      else if (decision.error !== undefined) return { error: `failed to match target: ${decision.error}` };
    }
  }
  if (targets.length > MAX_MUTATE_EXISTING_TARGETS) {
    return {
      error: `policy ${compiled.name} selects ${targets.length} targets: at most ${MAX_MUTATE_EXISTING_TARGETS} are patched per trigger`,
    };
  }
  return { targets };
}

/** The namespace/name keys targetMatchConstraints.expression names for this trigger. */
async function expressionTargets(
  compiled: CompiledMutatingPolicy,
  trigger: CelPolicyInput,
  context: MutatingPolicyContext,
): Promise<{ keys: Set<string> } | { error: string }> {
  const programs = mutatingProgramsOf(compiled);
  const expression = programs.targetExpression!;
  const budget = new EvaluationBudget(DEFAULT_EVALUATION_LIMITS, context.deadline);
  // The trigger's request as the policy's own expressions see it: the variables the expression
  // reads may use `request` (its namespace and name), `oldObject` and `namespaceObject`.
  const attributes = admissionAttributesOf(trigger);
  const activation = roundActivation({
    object: celValue(trigger.request.resource ?? null),
    oldObject: celValue(attributes.oldObject),
    request: toCel(kyvernoRequestOf(attributes, undefined, 'empty')),
    namespaceObject: celValue(trigger.namespaceObject ?? null),
    ...kyvernoActivation(context.ports, {
      ...(compiled.namespace !== undefined ? { policyNamespace: compiled.namespace } : {}),
      ...(context.deadline ? { deadline: context.deadline } : {}),
    }),
  });
  delete activation.authorizer;
  activation.exceptions = toCel({ allowedImages: [], allowedValues: [] });
  const runner = new SpecRun(
    programs.own.spec,
    activation,
    new CelMeter(budget),
    new AccessReviews(CEL_LIMITS.maxAuthorizerChecks),
    budget,
  );
  const pending = runner.evaluate(expression.program, expression.reads);
  const outcome = pending instanceof Promise ? await pending : pending;
  if ('error' in outcome) return { error: `failed to evaluate the target expression: ${String(outcome.error)}` };
  const value = plain(outcome.value);
  if (!isObject(value)) return { error: 'the target selector expression must evaluate to a map' };
  const items = Array.isArray(value.items) ? value.items : [value];
  const keys = new Set<string>();
  for (const item of items) if (isObject(item)) keys.add(keyOf(item as unknown as KubeObject));
  return { keys };
}

function stripExpression(constraints: NonNullable<CompiledMutatingPolicy['targetMatchConstraints']>): MatchResources {
  const { expression: _expression, ...rest } = constraints;
  return rest;
}

function keyOf(object: KubeObject): string {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const name = typeof metadata.name === 'string' ? metadata.name : '';
  const namespace = typeof metadata.namespace === 'string' ? metadata.namespace : '';
  return namespace ? `${namespace}/${name}` : name;
}

/** A CEL result as plain JSON (maps become objects). */
function plain(value: unknown): unknown {
  if (value instanceof Map) return Object.fromEntries([...value].map(([k, v]) => [String(k), plain(v)]));
  if (Array.isArray(value)) return value.map(plain);
  if (typeof value === 'bigint') return Number(value);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, plain(v)]));
  }
  return value as JsonObject;
}

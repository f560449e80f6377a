/**
 * A MutatingAdmissionPolicy on one request, as kube-apiserver's mutating dispatcher runs it: the
 * policy's matchConstraints, then per binding its matchResources and params, and per (binding,
 * param) one invocation: matchConditions (not met: skipped; an error: a policy error), then every
 * mutation in order, each on the object the previous one produced. An error of a mutation is a
 * policy error and the next mutation still runs; failurePolicy decides what errors do (dispatch.ts).
 */
import { AccessReviews, CEL_LIMITS } from '@edict/cel';
import { deepEqual, errorMessage, type EvaluationDeadline, type JsonObject } from '@edict/foundation';
import { CelRound, DEFAULT_BOUNDS, inRounds, type Authorize, type CelBounds } from '../cel/round';
import { evaluateMatchConditionsIn } from '../match-conditions';
import type { EquivalentResources } from '../matching/equivalents';
import { matchResources } from '../matching/match-resources';
import { isExemptAdmissionConfiguration } from '../matching/rules';
import { MutationError, patchWithValue } from '../mutation/apply';
import { builtinShape, type MergeShape } from '../mutation/shape';
import { celRequestOf } from '../request';
import type { AdmissionAttributes, GroupVersionKind } from '../types';
import { authorizerFor, celValue, namespaceObjectFor } from '../vap/activation';
import { collectParams, paramsFromObjects, type ParamSource } from '../vap/params';
import type { CompiledMutatingAdmissionPolicy } from './compile';
import { readMutatingBinding, type MutatingBindingSpec } from './spec';

export interface MapContext {
  /** The request namespace's object; null or absent when there is none. */
  namespaceObject?: JsonObject | null;
  /** Where the bindings' parameter objects come from: a source, or the objects themselves. */
  params?: ParamSource | readonly JsonObject[];
  /** Answers `authorizer` checks; without it every check is an error. */
  authorize?: Authorize;
  deadline?: EvaluationDeadline;
  bounds?: CelBounds;
  equivalents?: EquivalentResources;
  /** How ApplyConfigurations merge: a shape, or one per kind; builtinShape of the kind when absent. */
  shape?: MergeShape | ((kind: GroupVersionKind) => MergeShape);
  /** Kyverno's CLI: rules naming resources also match objects with a generateName. */
  generateNamePrefix?: boolean;
}

export type MutationStatus = 'applied' | 'unchanged' | 'error';

export interface MutationOutcome {
  index: number;
  status: MutationStatus;
  message?: string;
}

/** One (binding, param) of a policy on the request. */
export interface MapInvocation {
  policy: string;
  /** Absent when the policy ran unbound (Kyverno's CLI without bindings). */
  binding?: string;
  param: JsonObject | null;
  /** The matchConditions were not met: no mutation ran. */
  skipped?: boolean;
  /** The matchConditions failed to evaluate: no mutation ran. */
  error?: string;
  mutations: MutationOutcome[];
  /** Whether the invocation changed the object. */
  changed: boolean;
}

export interface MapPolicyError {
  policy: string;
  binding?: string;
  message: string;
}

export interface MapEvaluation {
  policy: string;
  /** The policy's matchConstraints cover the request. */
  matched: boolean;
  /** The object after the policy's invocations (the request's object when nothing changed). */
  object: JsonObject | null;
  invocations: MapInvocation[];
  /** Binding configuration errors, matchCondition errors and mutation errors, in order. */
  errors: MapPolicyError[];
}

/** Evaluates `compiled` with the given bindings (those of other policies are ignored) on a request. */
export async function evaluateMutatingAdmissionPolicy(
  compiled: CompiledMutatingAdmissionPolicy,
  bindings: JsonObject | readonly JsonObject[],
  attributes: AdmissionAttributes,
  context: MapContext = {},
  observer: InvocationObserver = {},
): Promise<MapEvaluation> {
  const result: MapEvaluation = {
    policy: compiled.name,
    matched: false,
    object: attributes.object,
    invocations: [],
    errors: [],
  };
  if (isExemptAdmissionConfiguration(attributes)) return result;
  if (!compiled.spec.matchConstraints) return result;
  const namespaceObject = context.namespaceObject ?? null;
  const definition = matchResources(compiled.spec.matchConstraints, attributes, namespaceObject, context);
  if (!definition.matches) return result;
  result.matched = true;
  const list = Array.isArray(bindings) ? bindings : [bindings as JsonObject];
  for (const raw of list) {
    const binding = readMutatingBinding(raw);
    if (binding.policyName !== compiled.name) continue;
    if (binding.matchResources) {
      const decision = matchResources(binding.matchResources, attributes, namespaceObject, context);
      if (!decision.matches) {
        if (decision.error !== undefined) {
          result.errors.push({
            policy: compiled.name,
            binding: binding.name,
            message: `failed to configure binding: ${decision.error}`,
          });
        }
        continue;
      }
    }
    let params: (JsonObject | null)[];
    try {
      const source = Array.isArray(context.params)
        ? paramsFromObjects(context.params)
        : (context.params as ParamSource | undefined);
      params = await collectParams(compiled.spec.paramKind, binding, attributes.namespace, source);
    } catch (error) {
      result.errors.push({
        policy: compiled.name,
        binding: binding.name,
        message: `failed to configure binding: ${errorMessage(error)}`,
      });
      continue;
    }
    for (const param of params) {
      const key = invocationKey(compiled.name, binding.name, param);
      if (observer.admit && !observer.admit(key)) continue;
      const invocation = await invokeMutatingAdmissionPolicy(
        compiled,
        binding,
        param,
        { ...attributes, object: result.object },
        definition,
        context,
      );
      result.invocations.push(invocation.invocation);
      observer.invoked?.(key, invocation.invocation);
      result.object = invocation.object;
      result.errors.push(...invocationErrors(invocation.invocation));
    }
  }
  return result;
}

/** What the dispatcher's reinvocation needs to see of each invocation (dispatch.ts). */
export interface InvocationObserver {
  /** Whether the invocation with this key may run (on a reinvocation, only those marked). */
  admit?(key: string): boolean;
  invoked?(key: string, invocation: MapInvocation): void;
}

/** Identifies an invocation across reinvocations: policy, binding and param. */
export function invocationKey(policy: string, binding: string | undefined, param: JsonObject | null): string {
  const metadata = (param?.metadata ?? {}) as { name?: unknown; namespace?: unknown };
  return JSON.stringify([policy, binding ?? '', metadata.namespace ?? '', metadata.name ?? '']);
}

function invocationErrors(invocation: MapInvocation): MapPolicyError[] {
  const at = {
    policy: invocation.policy,
    ...(invocation.binding !== undefined ? { binding: invocation.binding } : {}),
  };
  if (invocation.error !== undefined) return [{ ...at, message: invocation.error }];
  return invocation.mutations.filter((m) => m.status === 'error').map((m) => ({ ...at, message: m.message ?? '' }));
}

/**
 * One invocation: matchConditions, then each mutation on the object the previous one left. The
 * activation is kube's: object, oldObject, request, namespaceObject, params, authorizer, variables.
 */
export async function invokeMutatingAdmissionPolicy(
  compiled: CompiledMutatingAdmissionPolicy,
  binding: MutatingBindingSpec | undefined,
  param: JsonObject | null,
  attributes: AdmissionAttributes,
  matched: { resource: AdmissionAttributes['resource']; kind: AdmissionAttributes['kind'] },
  context: MapContext,
): Promise<{ invocation: MapInvocation; object: JsonObject | null }> {
  const invocation: MapInvocation = {
    policy: compiled.name,
    ...(binding ? { binding: binding.name } : {}),
    param,
    mutations: [],
    changed: false,
  };
  const isNamespace =
    attributes.kind.group === '' && attributes.kind.version === 'v1' && attributes.kind.kind === 'Namespace';
  const namespace =
    isNamespace || attributes.namespace === '' ? null : namespaceObjectFor(context.namespaceObject ?? null);
  const paramValue = withTypeMeta(param, compiled);
  const activationFor = (object: JsonObject | null, reviews: AccessReviews, round: CelRound) => {
    const current = { ...attributes, object };
    const activation: Record<string, unknown> = {
      object: celValue(object),
      oldObject: celValue(attributes.oldObject),
      request: celValue(celRequestOf(current, matched)),
      namespaceObject: celValue(namespace),
      params: paramValue,
      authorizer: authorizerFor(current, reviews),
    };
    activation.variables = round.lazyVariables(compiled.variables, activation);
    return activation;
  };
  const bounds = context.bounds ?? DEFAULT_BOUNDS;
  const before = attributes.object;

  if (compiled.matchConditions.conditions.length > 0) {
    const reviews = new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
    try {
      const match = await inRounds(reviews, context.authorize, () => {
        const round = new CelRound(reviews, bounds, context.deadline);
        return evaluateMatchConditionsIn(round, compiled.matchConditions, activationFor(before, reviews, round));
      });
      if ('error' in match) {
        invocation.error = match.error;
        return { invocation, object: before };
      }
      if (!match.matches) {
        invocation.skipped = true;
        return { invocation, object: before };
      }
    } catch (error) {
      invocation.error = errorMessage(error);
      return { invocation, object: before };
    }
  }

  const shape = shapeFor(context, attributes.kind);
  let object = before;
  for (const [index, mutation] of compiled.mutations.entries()) {
    // kube calls no patcher when there is no object (a DELETE).
    if (!object) continue;
    const current: JsonObject = object;
    const reviews = new AccessReviews(CEL_LIMITS.maxAuthorizerChecks);
    try {
      const outcome = await inRounds(reviews, context.authorize, () => {
        const round = new CelRound(reviews, bounds, context.deadline);
        return round.evaluate(mutation.program, activationFor(current, reviews, round));
      });
      if ('error' in outcome) throw new MutationError(mutation.field, outcome.error);
      const patched = patchWithValue(mutation, outcome.value, current, { shape });
      const changed = !deepEqual(current, patched);
      invocation.mutations.push({ index, status: changed ? 'applied' : 'unchanged' });
      object = patched;
    } catch (error) {
      invocation.mutations.push({ index, status: 'error', message: errorMessage(error) });
    }
  }
  invocation.changed = !deepEqual(before, object);
  return { invocation, object };
}

function shapeFor(context: MapContext, kind: GroupVersionKind): MergeShape {
  if (typeof context.shape === 'function') return context.shape(kind);
  if (context.shape) return context.shape;
  return builtinShape(kind.group ? `${kind.group}/${kind.version}` : kind.version, kind.kind);
}

/** kube gives params their apiVersion and kind when the stored object lacks them. */
function withTypeMeta(param: JsonObject | null, compiled: CompiledMutatingAdmissionPolicy): unknown {
  if (!param) return null;
  const kind = compiled.spec.paramKind;
  if (!kind || (param.apiVersion && param.kind)) return celValue(param);
  return celValue({ ...param, apiVersion: kind.apiVersion, kind: kind.kind });
}

/**
 * Every MutatingAdmissionPolicy on one request, as kube-apiserver's mutating policy plugin runs
 * them: in order, each on the object the previous ones produced; errors denied by failurePolicy
 * Fail (the first one answers) and dropped by Ignore; and reinvocation: a policy with
 * reinvocationPolicy IfNeeded runs once more when a later invocation changed the object after it
 * (kube's policyReinvokeContext, kept across the admission chain's calls of the plugin).
 */
import { deepEqual, type JsonObject } from '@edict/foundation';
import type { AdmissionAttributes } from '../types';
import type { CompiledMutatingAdmissionPolicy } from './compile';
import { evaluateMutatingAdmissionPolicy, type MapContext, type MapEvaluation, type MapPolicyError } from './evaluate';

/** kube's policyReinvokeContext: what the first call of the plugin leaves for its reinvocation. */
export class MapReinvocationContext {
  private lastOutput: JsonObject | null | undefined;
  private previouslyInvoked = new Set<string>();
  private readonly reinvoke = new Set<string>();
  /** A mutation changed the object: the admission chain should call the plugin once more. */
  requested = false;

  shouldReinvoke(key: string): boolean {
    return this.reinvoke.has(key);
  }

  outputChangedSinceLastInvocation(object: JsonObject | null): boolean {
    return !deepEqual(this.lastOutput ?? null, object);
  }

  setLastOutput(object: JsonObject | null): void {
    this.lastOutput = object;
  }

  addReinvocable(key: string): void {
    this.previouslyInvoked.add(key);
  }

  /** Marks every reinvocable invocation made so far to run again. */
  requireReinvokingPreviouslyInvoked(): void {
    for (const key of this.previouslyInvoked) this.reinvoke.add(key);
    this.previouslyInvoked = new Set();
  }
}

export interface MapDenial {
  policy: string;
  binding?: string;
  message: string;
}

export interface MapDispatch {
  /** The object after every policy. */
  object: JsonObject | null;
  /** Whether any policy changed the object. */
  changed: boolean;
  evaluations: MapEvaluation[];
  /** The first error of a policy with failurePolicy Fail: the request is denied with it. */
  denied?: MapDenial;
  /** Errors of policies with failurePolicy Ignore. */
  ignored: MapPolicyError[];
}

/** One call of the plugin; `reinvoke` marks the admission chain's second call. */
export async function dispatchMutatingAdmissionPolicies(
  policies: readonly CompiledMutatingAdmissionPolicy[],
  bindings: readonly JsonObject[],
  attributes: AdmissionAttributes,
  context: MapContext = {},
  reinvocation: { context: MapReinvocationContext; reinvoke: boolean } = {
    context: new MapReinvocationContext(),
    reinvoke: false,
  },
): Promise<MapDispatch> {
  const state = reinvocation.context;
  const reinvoke = reinvocation.reinvoke;
  if (reinvoke && state.outputChangedSinceLastInvocation(attributes.object)) state.requireReinvokingPreviouslyInvoked();
  const dispatch: MapDispatch = { object: attributes.object, changed: false, evaluations: [], ignored: [] };
  for (const compiled of policies) {
    const evaluation = await evaluateMutatingAdmissionPolicy(
      compiled,
      bindings,
      { ...attributes, object: dispatch.object },
      context,
      {
        admit: (key) => !reinvoke || state.shouldReinvoke(key),
        invoked: (key, invocation) => {
          if (invocation.changed) {
            state.requireReinvokingPreviouslyInvoked();
            state.requested = true;
          }
          if (compiled.spec.reinvocationPolicy === 'IfNeeded') state.addReinvocable(key);
        },
      },
    );
    dispatch.evaluations.push(evaluation);
    dispatch.object = evaluation.object;
    for (const error of evaluation.errors) {
      if (compiled.spec.failurePolicy === 'Ignore') dispatch.ignored.push(error);
      else dispatch.denied ??= { ...error, message: denialMessage(error) };
    }
  }
  state.setLastOutput(dispatch.object);
  dispatch.changed = !deepEqual(attributes.object, dispatch.object);
  return dispatch;
}

/**
 * The plugin as the admission chain runs it when it is the only mutating plugin: once, and once
 * more when a mutation asked for reinvocation (only IfNeeded policies invoked before a later change
 * run then).
 */
export async function admitMutatingAdmissionPolicies(
  policies: readonly CompiledMutatingAdmissionPolicy[],
  bindings: readonly JsonObject[],
  attributes: AdmissionAttributes,
  context: MapContext = {},
): Promise<MapDispatch & { reinvocation?: MapDispatch }> {
  const state = new MapReinvocationContext();
  const first = await dispatchMutatingAdmissionPolicies(policies, bindings, attributes, context, {
    context: state,
    reinvoke: false,
  });
  if (first.denied || !state.requested) return first;
  const second = await dispatchMutatingAdmissionPolicies(
    policies,
    bindings,
    { ...attributes, object: first.object },
    context,
    { context: state, reinvoke: true },
  );
  return {
    ...second,
    changed: !deepEqual(attributes.object, second.object),
    ignored: [...first.ignored, ...second.ignored],
    reinvocation: second,
    evaluations: first.evaluations,
  };
}

function denialMessage(error: MapPolicyError): string {
  const binding = error.binding !== undefined ? ` with binding '${error.binding}'` : '';
  return `policy '${error.policy}'${binding} denied request: ${error.message}`;
}

import { AccessReviews, CelLimitExceeded, CelMeter, describeCelError, kyvernoActivation, toCel } from '@edict/cel';
import {
  DEFAULT_EVALUATION_LIMITS,
  EvaluationBudget,
  isBudgetError,
  errorMessage,
  type JsonObject,
  type KubeObject,
} from '@edict/foundation';
import { matchResources, type AdmissionAttributes } from '@edict/native-policies';
import type { MatchResources } from '../api/types';
import type { NamedProgram } from '../compile/compiled-expressions';
import { celValue } from '../evaluate/activation';
import { namespaceOf } from '../evaluate/attributes';
import { applicableExceptions, typeName, withLibraries } from '../evaluate/evaluate-policy';
import type { CelPolicyContext } from '../evaluate/input';
import { SpecRun } from '../evaluate/spec-run';
import { deletingProgramsOf } from './compile';
import type { CompiledDeletingPolicy } from './compiled-policy';

/** One existing object a DeletingPolicy is asked about. */
export interface DeletingPolicyInput {
  readonly object: KubeObject;
  /** Group, version and plural of the object's type (for matchConstraints). */
  readonly resource: { readonly group: string; readonly version: string; readonly resource: string };
  /** The object's Namespace (its labels for namespaceSelector, `namespaceObject` in CEL); null when none. */
  readonly namespaceObject?: KubeObject | null;
}

/**
 * Kyverno's answer for one object: `delete` when it matches and every condition holds; `keep` with
 * why otherwise (outside a namespaced policy's namespace, not matched by matchConstraints, a
 * condition false, or PolicyExceptions naming the policy whose conditions hold); `error` when
 * matching or a condition failed (an error, a non-bool, CEL's cost or the deadline).
 */
export type DeletingPolicyOutcome =
  | { readonly result: 'delete' }
  | {
      readonly result: 'keep';
      readonly reason: 'namespace' | 'unmatched' | 'conditions' | 'exception';
      /** For `exception`: the exceptions (`namespace/name`) that hold. */
      readonly exceptions?: readonly string[];
    }
  | { readonly result: 'error'; readonly error: string };

/** `exceptions` as a DeletingPolicy's expressions see it (nothing allowed: they only skip). */
const NO_EXCEPTIONS = toCel({ allowedImages: [], allowedValues: [] });

/**
 * Evaluates a DeletingPolicy on an existing object as Kyverno's dpol engine does: matchConstraints
 * with every operation (there is no request), then the PolicyExceptions naming the policy (any
 * whose match conditions all hold keeps the object), then the conditions: any false keeps it, else
 * an error is the answer, else it is deleted. Conditions and variables see `object`,
 * `namespaceObject`, `variables` and Kyverno's libraries (`request` and `oldObject` are null);
 * a namespaced policy's library calls stay in its namespace. Bounded by CEL's cost and the
 * context's deadline.
 */
export async function evaluateDeletingPolicy(
  compiled: CompiledDeletingPolicy,
  input: DeletingPolicyInput,
  context: CelPolicyContext,
): Promise<DeletingPolicyOutcome> {
  const programs = deletingProgramsOf(compiled);
  const { object } = input;
  const objectNamespace = namespaceOf(object);
  // A namespaced policy never reaches outside its namespace: cluster-scoped objects included.
  if (compiled.namespace !== undefined && objectNamespace !== compiled.namespace) {
    return { result: 'keep', reason: 'namespace' };
  }
  const namespaceObject = (input.namespaceObject ?? null) as JsonObject | null;
  const decision = matchResources(anyOperation(compiled.matchConstraints), attributesOf(input), namespaceObject);
  if (!decision.matches) {
    if (decision.error !== undefined) return { result: 'error', error: `failed to match: ${decision.error}` };
    return { result: 'keep', reason: 'unmatched' };
  }

  const exceptions = applicableExceptions(compiled, context);
  const budget = new EvaluationBudget(DEFAULT_EVALUATION_LIMITS, context.deadline);
  const libraries =
    programs.readsLibraries || exceptions.some((exception) => exception.readsLibraries)
      ? kyvernoActivation(context.ports, {
          ...(compiled.namespace !== undefined ? { policyNamespace: compiled.namespace } : {}),
          ...(context.deadline ? { deadline: context.deadline } : {}),
          ...(context.allowHttpInNamespacedPolicies ? { allowHttpInNamespacedPolicies: true } : {}),
        })
      : undefined;
  const activation = withLibraries(
    {
      object: celValue(object),
      oldObject: null,
      request: null,
      namespaceObject: celValue(input.namespaceObject),
      exceptions: NO_EXCEPTIONS,
    },
    libraries,
  );
  try {
    const run = new SpecRun(programs.spec, activation, new CelMeter(budget), new AccessReviews(0), budget);
    const held: string[] = [];
    for (const exception of exceptions) {
      const outcome = await allHold(run, exception.matchConditions, 'matchCondition');
      if ('error' in outcome) return { result: 'error', error: outcome.error };
      if (outcome.holds) held.push(exception.key);
    }
    if (held.length > 0) return { result: 'keep', reason: 'exception', exceptions: held };
    const outcome = await allHold(run, programs.conditions, 'condition');
    if ('error' in outcome) return { result: 'error', error: outcome.error };
    return outcome.holds ? { result: 'delete' } : { result: 'keep', reason: 'conditions' };
  } catch (error) {
    if (error instanceof CelLimitExceeded || isBudgetError(error))
      return { result: 'error', error: errorMessage(error) };
    throw error;
  }
}

/** Any false: does not hold; otherwise every error (or non-bool) together; otherwise holds. */
async function allHold(
  run: SpecRun,
  conditions: readonly NamedProgram[],
  what: string,
): Promise<{ holds: boolean } | { error: string }> {
  const failures: string[] = [];
  for (const condition of conditions) {
    const pending = run.evaluate(condition.program, condition.reads);
    const outcome = pending instanceof Promise ? await pending : pending;
    if ('error' in outcome) {
      failures.push(`${what} '${condition.name}': ${describeCelError(outcome.error)}`);
      continue;
    }
    if (outcome.value === false) return { holds: false };
    if (outcome.value !== true)
      failures.push(`${what} '${condition.name}': expected a bool, got ${typeName(outcome.value)}`);
  }
  return failures.length === 0 ? { holds: true } : { error: failures.join('; ') };
}

/** Kyverno matches a DeletingPolicy's resource rules for every operation (there is no request). */
function anyOperation(constraints: MatchResources): MatchResources {
  return {
    ...constraints,
    ...(constraints.resourceRules
      ? { resourceRules: constraints.resourceRules.map((rule) => ({ ...rule, operations: ['*'] })) }
      : {}),
  } as MatchResources;
}

function attributesOf(input: DeletingPolicyInput): AdmissionAttributes {
  const { object } = input;
  const apiVersion = object.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  const kubeNamespace =
    object.kind === 'Namespace' && (apiVersion === 'v1' || apiVersion === '')
      ? (object.metadata?.name ?? '')
      : (object.metadata?.namespace ?? '');
  return {
    operation: 'CREATE',
    kind: {
      group: slash < 0 ? '' : apiVersion.slice(0, slash),
      version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
      kind: object.kind ?? '',
    },
    resource: { ...input.resource },
    subresource: '',
    name: object.metadata?.name ?? '',
    namespace: kubeNamespace,
    object: object as unknown as JsonObject,
    oldObject: null,
  };
}

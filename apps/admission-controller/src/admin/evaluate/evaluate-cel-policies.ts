/**
 * The dry run of the loaded MutatingPolicies, GeneratingPolicies and DeletingPolicies for
 * `POST /admin/evaluate`, through @edict/cel-policies' own engines: the MutatingPolicies as the
 * admission chain runs them (each on the object the previous one left, reinvoked when needed),
 * with each policy's patch and the mutated object; the objects each GeneratingPolicy would
 * generate for the request as trigger (its `generator.Apply` recorded, never written); and, for
 * the request's object, whether each DeletingPolicy would delete it when its schedule comes
 * (matchConstraints, exceptions and conditions; the schedule itself plays no part). Nothing here
 * writes or counts anything.
 */
import { celPolicyInput, toResourceRequest, type AdmissionRequest } from '@edict/admission';
import {
  evaluateDeletingPolicy,
  evaluateGeneratingPolicy,
  evaluateMutatingPolicies,
  type CelPolicyContext,
  type CompiledDeletingPolicy,
  type CompiledGeneratingPolicy,
  type CompiledMutatingPolicy,
  type GeneratingPolicyContext,
} from '@edict/cel-policies';
import type { JsonPatchOperation } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';

/** What the CEL kinds' dry run reads besides the request. */
export interface CelPolicyEvaluation {
  readonly mutating: readonly CompiledMutatingPolicy[];
  readonly generating: readonly CompiledGeneratingPolicy[];
  readonly deleting: readonly CompiledDeletingPolicy[];
  /** Kyverno's CEL library ports (reads only: a GeneratingPolicy's generator is recorded), exceptions, deadline. */
  readonly context: CelPolicyContext;
  readonly namespaceObject: KubeObject | null;
  readonly namespaceLabels?: Record<string, string>;
  /** Discovery: whether a kind is namespaced (a generated cluster-scoped object gets no namespace). */
  readonly isNamespaced?: (apiVersion: string, kind: string) => boolean | undefined;
}

/** One MutatingPolicy that applied. */
export interface MutatingPolicyTrace {
  /** `name`, or `namespace/name` for a NamespacedMutatingPolicy. */
  readonly policy: string;
  readonly policyKind: string;
  readonly status: 'pass' | 'fail' | 'skip' | 'error';
  readonly message: string;
  readonly failurePolicy: 'Fail' | 'Ignore';
  /** This policy's own changes, from the object it was given to the object it left. */
  readonly patch: readonly JsonPatchOperation[];
  /** The object this policy left (status pass). */
  readonly mutatedResource?: KubeObject;
}

export interface MutatingPoliciesOutcome {
  readonly policies: readonly MutatingPolicyTrace[];
  /** The object after every MutatingPolicy (undefined: none changed it). */
  readonly mutatedResource?: KubeObject;
  /** Why the request is refused: a policy erred under failurePolicy Fail. */
  readonly denial?: string;
}

/** One GeneratingPolicy that applied. */
export interface GeneratingPolicyTrace {
  readonly policy: string;
  readonly policyKind: string;
  readonly status: 'pass' | 'skip' | 'error';
  readonly message: string;
  /** The objects it would create or update (not written by an evaluation). */
  readonly generated: readonly KubeObject[];
  readonly exceptions?: readonly string[];
}

/** One DeletingPolicy's answer for the request's object. */
export interface DeletingPolicyTrace {
  readonly policy: string;
  readonly policyKind: string;
  /** Whether its next run would delete the object. */
  readonly wouldDelete: boolean;
  readonly result: 'delete' | 'keep' | 'error';
  /** For keep: outside its namespace, not matched, a condition false, or an exception. */
  readonly reason?: 'namespace' | 'unmatched' | 'conditions' | 'exception';
  readonly exceptions?: readonly string[];
  readonly error?: string;
}

const keyOf = (compiled: { name: string; namespace?: string }) =>
  compiled.namespace !== undefined ? `${compiled.namespace}/${compiled.name}` : compiled.name;

function inputOf(request: AdmissionRequest, cel: CelPolicyEvaluation) {
  const resourceRequest = toResourceRequest(request, { namespaceLabels: cel.namespaceLabels });
  return celPolicyInput(resourceRequest, cel.namespaceObject);
}

/** The MutatingPolicies (admission enabled) on the request, in the chain's order. */
export async function mutateWithCelPolicies(
  request: AdmissionRequest,
  cel: CelPolicyEvaluation,
): Promise<MutatingPoliciesOutcome> {
  const policies = cel.mutating.filter((policy) => policy.admission);
  if (policies.length === 0 || request.operation === 'DELETE' || request.operation === 'CONNECT')
    return { policies: [] };
  const chain = await evaluateMutatingPolicies(policies, inputOf(request, cel), cel.context);
  const traces = chain.results.map(({ policy, result }): MutatingPolicyTrace => ({
    policy: keyOf(policy),
    policyKind: policy.kind,
    status: result.status,
    message: result.message,
    failurePolicy: policy.failurePolicy,
    patch: result.patches,
    ...(result.status === 'pass' && result.patchedResource ? { mutatedResource: result.patchedResource } : {}),
  }));
  const failed = traces.find((trace) => trace.status === 'error' && trace.failurePolicy === 'Fail');
  return {
    policies: traces,
    ...(chain.patches.length > 0 && chain.patchedResource ? { mutatedResource: chain.patchedResource } : {}),
    ...(failed ? { denial: `MutatingPolicy ${failed.policy} failed: ${failed.message}` } : {}),
  };
}

/** What each GeneratingPolicy (admission enabled) would generate for the request as trigger. */
export async function generateWithCelPolicies(
  request: AdmissionRequest,
  cel: CelPolicyEvaluation,
): Promise<GeneratingPolicyTrace[]> {
  const input = inputOf(request, cel);
  const context: GeneratingPolicyContext = {
    ...cel.context,
    ...(cel.isNamespaced ? { isNamespaced: cel.isNamespaced } : {}),
  };
  const traces: GeneratingPolicyTrace[] = [];
  for (const policy of cel.generating.filter((candidate) => candidate.admission)) {
    const result = await evaluateGeneratingPolicy(policy, input, context);
    if (!result) continue;
    traces.push({
      policy: keyOf(policy),
      policyKind: policy.kind,
      status: result.status,
      message: result.message,
      generated: result.status === 'pass' ? result.downstream : [],
      ...(result.exceptions && result.exceptions.length > 0 ? { exceptions: result.exceptions } : {}),
    });
  }
  return traces;
}

/** Whether each DeletingPolicy would delete the request's object (its new one, or the old one of a DELETE). */
export async function deleteWithCelPolicies(
  request: AdmissionRequest,
  cel: CelPolicyEvaluation,
): Promise<DeletingPolicyTrace[]> {
  const object = request.object ?? request.oldObject;
  if (!object || cel.deleting.length === 0) return [];
  const input = {
    object,
    resource: { group: request.resource.group, version: request.resource.version, resource: request.resource.resource },
    namespaceObject: cel.namespaceObject,
  };
  const traces: DeletingPolicyTrace[] = [];
  for (const policy of cel.deleting) {
    const outcome = await evaluateDeletingPolicy(policy, input, cel.context);
    const base = { policy: keyOf(policy), policyKind: policy.kind, wouldDelete: outcome.result === 'delete' };
    if (outcome.result === 'delete') traces.push({ ...base, result: 'delete' });
    else if (outcome.result === 'error') traces.push({ ...base, result: 'error', error: outcome.error });
    else
      traces.push({
        ...base,
        result: 'keep',
        reason: outcome.reason,
        ...(outcome.exceptions ? { exceptions: outcome.exceptions } : {}),
      });
  }
  return traces;
}

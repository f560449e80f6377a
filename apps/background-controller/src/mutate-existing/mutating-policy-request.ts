/**
 * A `cel-mutate` UpdateRequest, as Kyverno's background controller processes a MutatingPolicy's
 * mutate-existing work (pkg/background/mpol):
 *  - the policy from the CEL policy cache: `namespace/name` names a NamespacedMutatingPolicy, a bare
 *    name a MutatingPolicy, else a NamespacedMutatingPolicy of the admission request's namespace;
 *  - the targets: with `targetMatchConstraints.expression`, the objects it names for the trigger
 *    (from the admission request; read again from the cluster unless deleted); otherwise every
 *    object of the types targetMatchConstraints' (or, without resource rules, matchConstraints')
 *    resource rules name, filtered by resourceNames, objectSelector and namespaceSelector, and for a
 *    NamespacedMutatingPolicy only in its namespace;
 *  - each target evaluated under the trigger's admission request (or, for a request a policy change
 *    made, an UPDATE of the target itself); a patched target is read again and written at its
 *    current resourceVersion, through the namespaced policy's confinement (tenantClusterObjects);
 *  - each target written is a `PolicyApplied` Event on the policy; failures to list, read or write
 *    fail the request with Kyverno's messages (joined by `; `) and it is retried.
 * Bounded: at most MAX_MUTATE_EXISTING_TARGETS targets per request, else the request fails.
 */
import type { UpdateRequestSpec } from '@edict/admission';
import {
  evaluateMutatingPolicyOnTarget,
  MAX_MUTATE_EXISTING_TARGETS,
  mutateExistingTargets,
  type CelPolicyInput,
  type CompiledMutatingPolicy,
  type MatchResources,
  type MutatingPolicyContext,
  type TargetCandidate,
} from '@edict/cel-policies';
import { errorMessage, isObject, type KubeObject } from '@edict/foundation';
import type { EventInput } from '@edict/kube';
import type { EphemeralReportObject } from '@edict/reports';
import { MUTATE_EXISTING_EVENT_SOURCE, type BackgroundEventSource } from '../events/background-events';
import { admissionRequestOf, operationOf } from '../update-requests/background-request';
import type { ClusterObjects } from '../update-requests/cluster-objects';
import { done, failed, type RuleWorkOutcome } from '../update-requests/rule-work';
import { tenantClusterObjects } from '../update-requests/tenant-cluster-objects';
import { mutatingPolicyAppliedEvent } from './mutating-policy-events';
import { mutateExistingReport } from './mutating-policy-report';
import { resourceRuleObjects, type ResourceLookup, type RuleObject } from './resource-rule-objects';

export type { ServedResource } from './resource-rule-objects';

/** What MutatingPolicy work reads besides the cluster: the cache, discovery and the CEL context. */
export interface MutatingPolicyPorts {
  /** The served MutatingPolicies and NamespacedMutatingPolicies (the CEL policy cache). */
  mutatingPolicies(): readonly CompiledMutatingPolicy[];
  /** The resource `plural` of `apiVersion`; undefined when the API server does not serve it. */
  resourceNamed: ResourceLookup;
  /** Kyverno's CEL libraries' ports and the CEL PolicyExceptions in force. */
  celContext(): MutatingPolicyContext;
}

export interface MutatingPolicyWorkDeps {
  readonly cluster: ClusterObjects;
  emit(source: BackgroundEventSource, event: EventInput): void;
  readonly mutating: MutatingPolicyPorts;
  /** Writes the report about a patched target (enableReporting mutateExisting); never throws. Absent: none. */
  report?(report: EphemeralReportObject): Promise<void>;
  readonly now?: () => Date;
}

type Target = RuleObject;

export async function mutatingPolicyForRequest(
  request: { metadata: { name: string; uid?: string }; spec: UpdateRequestSpec },
  deps: MutatingPolicyWorkDeps,
): Promise<RuleWorkOutcome> {
  const spec = request.spec;
  if (!spec.policy) return failed(`update request ${request.metadata.name} has empty policy key`);
  const compiled = findPolicy(spec, deps.mutating.mutatingPolicies());
  if (!compiled) return failed(`failed to fetch mpol ${spec.policy}: ${notFound(spec.policy)}`);
  const key = spec.policy;
  const context = deps.mutating.celContext();
  const failures: string[] = [];
  let targets: Target[];
  try {
    const found = await findTargets(compiled, spec, deps, context, failures);
    if ('error' in found) return failed(found.error);
    targets = found.targets;
  } catch (error) {
    return failed(errorMessage(error));
  }
  if (targets.length > MAX_MUTATE_EXISTING_TARGETS) {
    return failed(
      `mpol ${key} selects ${targets.length} targets: at most ${MAX_MUTATE_EXISTING_TARGETS} are patched per request`,
    );
  }
  const writer = tenantClusterObjects(deps.cluster, compiled);
  const admission = admissionRequestOf(spec);
  for (const target of targets) {
    const trigger = admission ? triggerInput(spec) : ownUpdate(target);
    const result = await evaluateMutatingPolicyOnTarget(compiled, target.object, trigger, {
      ...context,
      targetNamespaceObject: await namespaceObject(deps.cluster, target.object),
    });
    // Kyverno writes a target only when the policy passed on it; skips and errors leave it as it is.
    if (result?.status !== 'pass' || !result.patchedResource) continue;
    let current: KubeObject | undefined;
    try {
      current = await deps.cluster.get(refOf(target.object));
    } catch (error) {
      failures.push(`failed to refresh target resource for mpol ${key}: ${errorMessage(error)}`);
      continue;
    }
    if (!current) {
      failures.push(`failed to refresh target resource for mpol ${key}: ${notFoundObject(target.object)}`);
      continue;
    }
    if (result.patches.length > 0) {
      const patched: KubeObject = structuredClone(result.patchedResource);
      const resourceVersion = current.metadata?.resourceVersion;
      if (resourceVersion !== undefined) patched.metadata.resourceVersion = resourceVersion;
      else delete patched.metadata.resourceVersion;
      try {
        // A target matched through a subresource (pods/status, pods/resize) is written through it, as
        // Kyverno does: the API server keeps only what that subresource may change.
        await writer.replace(patched, target.subresource === '' ? undefined : target.subresource);
      } catch (error) {
        failures.push(`failed to update target resource for mpol ${key}: ${errorMessage(error)}`);
        continue;
      }
    }
    deps.emit(MUTATE_EXISTING_EVENT_SOURCE, mutatingPolicyAppliedEvent(compiled, current));
    if (deps.report) {
      const requestKey = request.metadata.uid ?? request.metadata.name;
      const report = mutateExistingReport(compiled, result, current, requestKey, (deps.now ?? (() => new Date()))());
      if (report) await deps.report(report);
    }
  }
  return failures.length > 0 ? failed(failures.join('; ')) : done();
}

/** Kyverno's lookup by the request's key: `namespace/name`, or a bare name (cluster first, then the request's namespace). */
function findPolicy(spec: UpdateRequestSpec, policies: readonly CompiledMutatingPolicy[]) {
  const slash = spec.policy.indexOf('/');
  if (slash >= 0) {
    const namespace = spec.policy.slice(0, slash);
    const name = spec.policy.slice(slash + 1);
    return policies.find((policy) => policy.namespace === namespace && policy.name === name);
  }
  const cluster = policies.find((policy) => policy.namespace === undefined && policy.name === spec.policy);
  if (cluster) return cluster;
  const namespace = admissionRequestOf(spec)?.namespace;
  if (!namespace) return undefined;
  return policies.find((policy) => policy.namespace === namespace && policy.name === spec.policy);
}

function notFound(key: string): string {
  const slash = key.indexOf('/');
  return slash >= 0
    ? `namespacedmutatingpolicies.policies.kyverno.io "${key.slice(slash + 1)}" not found`
    : `mutatingpolicies.policies.kyverno.io "${key}" not found`;
}

function notFoundObject(object: KubeObject): string {
  return `${(object.kind ?? '').toLowerCase()} "${object.metadata?.name ?? ''}" not found`;
}

async function findTargets(
  compiled: CompiledMutatingPolicy,
  spec: UpdateRequestSpec,
  deps: MutatingPolicyWorkDeps,
  context: MutatingPolicyContext,
  failures: string[],
): Promise<{ targets: Target[] } | { error: string }> {
  const own = compiled.targetMatchConstraints;
  const expression = typeof own?.expression === 'string' && own.expression.trim() !== '';
  const rulesOf = (constraints: MatchResources | undefined) => constraints?.resourceRules ?? [];
  if (!expression) {
    const constraints = rulesOf(own).length > 0 ? own! : ownMatchConstraints(compiled);
    return { targets: await listTargets(compiled, constraints, deps, failures, spec.policy) };
  }
  // The expression names the targets for the trigger of the admission request.
  const admission = admissionRequestOf(spec);
  const kept = (operationOf(spec) === 'DELETE' ? admission?.oldObject : admission?.object) as KubeObject | undefined;
  if (!admission || !isObject(kept)) {
    return { error: 'invalid update request passed, the fields needed to extract resource data are nil' };
  }
  let trigger = kept;
  if (operationOf(spec) !== 'DELETE') {
    const current = await deps.cluster.get(refOf(kept));
    if (!current) return { error: notFoundObject(kept) };
    trigger = current;
  }
  const candidates = await listTargets(compiled, own!, deps, failures, spec.policy);
  const input = { ...triggerInput(spec), request: { ...triggerInput(spec).request, resource: trigger } };
  const selection = await mutateExistingTargets(
    compiled,
    { ...input, namespaceObject: await namespaceObject(deps.cluster, trigger) },
    candidates as TargetCandidate[],
    context,
  );
  if ('error' in selection) return { error: selection.error };
  const chosen = new Set(selection.targets);
  return { targets: candidates.filter((candidate) => chosen.has(candidate.object)) };
}

/** The policy's own matchConstraints (without the autogen configs' resources, as Kyverno reads them). */
function ownMatchConstraints(compiled: CompiledMutatingPolicy): MatchResources {
  const spec = isObject(compiled.policy.spec) ? compiled.policy.spec : {};
  return (isObject(spec.matchConstraints) ? spec.matchConstraints : {}) as MatchResources;
}

/** The objects the constraints name; the types that could not be listed are failures (Kyverno's message). */
async function listTargets(
  compiled: CompiledMutatingPolicy,
  constraints: MatchResources,
  deps: MutatingPolicyWorkDeps,
  failures: string[],
  key: string,
): Promise<Target[]> {
  const listing = await resourceRuleObjects(
    compiled,
    constraints,
    deps.cluster,
    deps.mutating.resourceNamed,
    MAX_MUTATE_EXISTING_TARGETS,
  );
  for (const failure of listing.failures) {
    failures.push(`failed to fetch targets ${failure.type} for mpol ${key}: ${failure.error}`);
  }
  return listing.objects;
}

/** The trigger's request as the UpdateRequest kept it: the admission request's operation, objects and requester. */
function triggerInput(spec: UpdateRequestSpec): CelPolicyInput {
  const admission = admissionRequestOf(spec)!;
  const info = spec.context?.userInfo;
  const gvr = admission.resource;
  const object = admission.object as KubeObject | null | undefined;
  const oldObject = admission.oldObject as KubeObject | null | undefined;
  return {
    request: {
      operation: operationOf(spec),
      ...(isObject(object) ? { resource: object } : {}),
      ...(isObject(oldObject) ? { oldResource: oldObject } : {}),
      user: { userInfo: info?.userInfo ?? {}, roles: info?.roles ?? [], clusterRoles: info?.clusterRoles ?? [] },
      ...(admission.subResource ? { subresource: admission.subResource } : {}),
      admissionRequest: admission as unknown as NonNullable<CelPolicyInput['request']['admissionRequest']>,
    },
    resource: { group: gvr?.group ?? '', version: gvr?.version ?? '', resource: gvr?.resource ?? '' },
  };
}

/** A request a policy change made has no trigger: each target is evaluated as an UPDATE of itself (Kyverno). */
function ownUpdate(target: Target): CelPolicyInput {
  return {
    request: {
      operation: 'UPDATE',
      resource: target.object,
      ...(target.subresource ? { subresource: target.subresource } : {}),
    },
    resource: target.resource,
  };
}

async function namespaceObject(cluster: ClusterObjects, object: KubeObject): Promise<KubeObject | null> {
  const namespace = object.metadata?.namespace;
  if (!namespace) return null;
  return (await cluster.get<KubeObject>({ apiVersion: 'v1', kind: 'Namespace', name: namespace })) ?? null;
}

function refOf(object: KubeObject) {
  const namespace = object.metadata?.namespace;
  return {
    apiVersion: object.apiVersion ?? '',
    kind: object.kind ?? '',
    ...(namespace ? { namespace } : {}),
    name: object.metadata?.name ?? '',
  };
}

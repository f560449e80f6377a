/**
 * One run of a cleanup policy: every object of the kinds its `match` names (in its namespace for a
 * CleanupPolicy) that match/exclude select and whose conditions hold — with `target` the object and
 * the policy's context entries loaded for it — is deleted with the policy's propagation policy.
 * Matching is the engine's rule matching without a request: there is no operation or user to
 * filter on, so those parts of the filters are left out, as Kyverno's cleanup matching does. Each
 * object's outcome is reported (Events, metrics); one object failing does not stop the others.
 */
import {
  cleanupPolicyKinds,
  EvaluationContext,
  evaluateConditions,
  loadContextEntries,
  ruleMatches,
  substituteVariables,
  type CleanupPolicy,
  type Condition,
  type ContextLoaders,
  type MatchResources,
  type ResourceFilter,
  type Rule,
} from '@edict/engine';
import { type JsonObject, type JsonValue, errorMessage, type KubeObject } from '@edict/foundation';
import { checkTenantWrite, type WriteTarget } from '@edict/context';
import type { CleanupCluster } from '../cluster/cleanup-cluster';

export interface CleanupRunPorts {
  readonly cluster: CleanupCluster;
  readonly loaders: ContextLoaders;
  /** Objects one run may look at. */
  readonly maxTargets: number;
  /** Called once per selected object: deleted (no error) or not (the reason). */
  readonly report: (target: KubeObject, error?: string) => void;
}

export interface CleanupRunResult {
  readonly deleted: number;
  readonly failed: number;
}

export async function runCleanupPolicy(policy: CleanupPolicy, ports: CleanupRunPorts): Promise<CleanupRunResult> {
  const namespace = policy.kind === 'CleanupPolicy' ? policy.metadata.namespace : undefined;
  const rule = {
    name: policy.metadata.name,
    match: withoutRequestFilters(policy.spec.match),
    ...(policy.spec.exclude ? { exclude: withoutRequestFilters(policy.spec.exclude) } : {}),
  } as Rule;
  const owner = {
    kind: policy.kind ?? 'CleanupPolicy',
    name: policy.metadata.name,
    ...(namespace ? { namespace } : {}),
  };
  let deleted = 0;
  let failed = 0;
  let seen = 0;
  const namespaces = new Map<string, Promise<Record<string, string>>>(); // read once per run
  const labelsOf = (name: string) => {
    let labels = namespaces.get(name);
    if (!labels) namespaces.set(name, (labels = ports.cluster.namespaceLabels(name)));
    return labels;
  };
  for (const selector of cleanupPolicyKinds(policy.spec.match)) {
    for (const type of await ports.cluster.typesOf(selector)) {
      if (namespace !== undefined && !type.namespaced) continue;
      const objects = await ports.cluster.list(type, namespace, ports.maxTargets - seen);
      seen += objects.length;
      for (const object of objects) {
        const objectNamespace = object.metadata?.namespace;
        const namespaceLabels = objectNamespace ? await labelsOf(objectNamespace) : undefined;
        const request = {
          resource: object,
          operation: 'CREATE' as const, // unused: the filters' operations were left out above
          ...(namespaceLabels ? { namespaceLabels } : {}),
        };
        if (!ruleMatches(rule, request, namespace).matched) continue;
        let error: string | undefined;
        try {
          if (!(await conditionsHold(policy, object, ports.loaders))) continue;
          // A CleanupPolicy deletes only namespaced objects of its namespace, never Kyverno's kinds.
          checkTenantWrite(owner, 'delete', targetOf(object, type.apiVersion, type.kind), type.namespaced);
          // Gone meanwhile: nothing was deleted, nothing to report.
          if (!(await ports.cluster.delete(object, policy.spec.deletionPropagationPolicy))) continue;
        } catch (caught) {
          error = errorMessage(caught);
        }
        if (error === undefined) deleted++;
        else failed++;
        ports.report(object, error);
      }
    }
  }
  return { deleted, failed };
}

function targetOf(object: KubeObject, apiVersion: string, kind: string): WriteTarget {
  const { namespace, name } = object.metadata ?? {};
  return { apiVersion: object.apiVersion ?? apiVersion, kind: object.kind ?? kind, namespace, name };
}

async function conditionsHold(policy: CleanupPolicy, target: KubeObject, loaders: ContextLoaders): Promise<boolean> {
  if (!policy.spec.conditions) return true;
  const ctx = new EvaluationContext({ target: target as JsonObject });
  await loadContextEntries(policy.spec.context, ctx, {
    loaders,
    ...(policy.metadata.namespace ? { scope: { policyNamespace: policy.metadata.namespace } } : {}),
  });
  const prepare = (condition: Condition) =>
    substituteVariables(condition as unknown as JsonValue, ctx) as unknown as Condition;
  return evaluateConditions(policy.spec.conditions, prepare).passed;
}

/** A match block without what only an admission request has (operations, user information). */
function withoutRequestFilters(match: MatchResources | undefined): MatchResources {
  const strip = (filter: ResourceFilter): ResourceFilter => {
    const { resources, ...rest } = filter;
    const { roles: _roles, clusterRoles: _clusterRoles, subjects: _subjects, ...kept } = rest;
    if (!resources) return kept;
    const { operations: _operations, ...described } = resources;
    return { ...kept, resources: described };
  };
  const block = match ?? {};
  return {
    ...strip(block),
    ...(block.any ? { any: block.any.map(strip) } : {}),
    ...(block.all ? { all: block.all.map(strip) } : {}),
  };
}

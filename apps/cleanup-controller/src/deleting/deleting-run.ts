/**
 * One run of a DeletingPolicy, as Kyverno's deleting controller does it: for every type its
 * matchConstraints name (in its namespace for a NamespacedDeletingPolicy; cluster-scoped types are
 * not a namespaced policy's), every object the engine says to delete (matchConstraints, exceptions,
 * conditions) is deleted with the policy's deletionPropagationPolicy, at its uid (an object replaced
 * meanwhile is left alone). Each deletion, and each failure, is reported (Events, metrics); one
 * object or type failing does not stop the others: a type the controller may not list (its policy
 * is admitted all the same, as Kyverno admits it) is logged as such and nothing of it is deleted;
 * an object it may not delete stays, with a PolicyError Event naming the refusal. At most `maxTargets` objects are looked at.
 */
import { evaluateDeletingPolicy, type CelPolicyContext, type CompiledDeletingPolicy } from '@edict/cel-policies';
import { checkTenantWrite } from '@edict/context';
import { errorMessage, type KubeObject } from '@edict/foundation';
import { isForbidden } from '@edict/kube';
import type { CleanupCluster, ObjectType } from '../cluster/cleanup-cluster';
import { deletingPolicyTypes } from './deleting-types';

export interface DeletingRunPorts {
  readonly cluster: CleanupCluster;
  /** Kyverno's CEL libraries' ports, the exceptions that may apply, the deadline. */
  readonly context: CelPolicyContext;
  /** Objects one run may look at. */
  readonly maxTargets: number;
  /** Called once per object the policy selected: deleted (no error) or not (the reason). */
  readonly report: (target: KubeObject, error?: string) => void;
  /** Called when a type could not be listed (or an object not judged): the run goes on with the rest. */
  readonly failed: (kind: string, namespace: string | undefined, error: string) => void;
}

export interface DeletingRunResult {
  readonly deleted: number;
  readonly failed: number;
}

export async function runDeletingPolicy(
  compiled: CompiledDeletingPolicy,
  ports: DeletingRunPorts,
): Promise<DeletingRunResult> {
  const namespace = compiled.namespace;
  const owner = { kind: compiled.kind, name: compiled.name, ...(namespace ? { namespace } : {}) };
  const namespaces = new Map<string, Promise<KubeObject | null>>(); // read once per run
  const namespaceObject = (name: string) => {
    let found = namespaces.get(name);
    if (!found) namespaces.set(name, (found = ports.cluster.namespace(name)));
    return found;
  };
  let deleted = 0;
  let failed = 0;
  let seen = 0;
  for (const type of await deletingPolicyTypes(ports.cluster, compiled.matchConstraints)) {
    if (namespace !== undefined && !type.namespaced) continue;
    let objects: KubeObject[];
    try {
      objects = await ports.cluster.list(type, namespace, ports.maxTargets - seen);
    } catch (error) {
      failed++;
      // As Kyverno: a kind the controller may not list is skipped, the others still run.
      const cause = isForbidden(error)
        ? `cleanup controller has no permission to list kind ${type.kind}${namespace ? ` in namespace ${namespace}` : ''}, nothing of this kind deleted: ${errorMessage(error)}`
        : errorMessage(error);
      ports.failed(type.kind, namespace, cause);
      continue;
    }
    seen += objects.length;
    for (const listed of objects) {
      const object = withType(listed, type);
      const objectNamespace = object.metadata?.namespace;
      let outcome;
      try {
        outcome = await evaluateDeletingPolicy(
          compiled,
          {
            object,
            resource: { group: type.group, version: type.version, resource: type.resource },
            namespaceObject: objectNamespace ? await namespaceObject(objectNamespace) : null,
          },
          ports.context,
        );
      } catch (error) {
        outcome = { result: 'error' as const, error: errorMessage(error) };
      }
      if (outcome.result === 'keep') continue;
      if (outcome.result === 'error') {
        failed++;
        ports.failed(type.kind, objectNamespace, outcome.error);
        continue;
      }
      let error: string | undefined;
      try {
        // Second line of defence: a namespaced policy deletes only namespaced objects of its namespace.
        checkTenantWrite(owner, 'delete', targetOf(object, type), type.namespaced);
        // Gone meanwhile (a second run, another replica): nothing deleted, nothing to report.
        if (!(await ports.cluster.delete(object, compiled.deletionPropagationPolicy))) continue;
      } catch (caught) {
        error = errorMessage(caught);
      }
      if (error === undefined) deleted++;
      else failed++;
      ports.report(object, error);
    }
  }
  return { deleted, failed };
}

/** Items of a list carry no kind or apiVersion: they are the listed type's. */
function withType(object: KubeObject, type: ObjectType): KubeObject {
  return { ...object, apiVersion: object.apiVersion || type.apiVersion, kind: object.kind || type.kind };
}

function targetOf(object: KubeObject, type: ObjectType) {
  const { namespace, name } = object.metadata ?? {};
  return { apiVersion: object.apiVersion ?? type.apiVersion, kind: object.kind ?? type.kind, namespace, name };
}

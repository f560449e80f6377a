/**
 * `evaluation.generateExisting` of GeneratingPolicies, as Kyverno's background controller does it:
 * when such a policy appears (or its spec changes, or a replica starts leading), every existing
 * object of the kinds its matchConstraints name is a trigger: one `cel-generate` UpdateRequest
 * each, without an admission request (the object is taken as created now), which the
 * UpdateRequest processor evaluates and generates for (objects the policy does not match complete
 * with nothing). A NamespacedGeneratingPolicy lists its own namespace only. Requests have names
 * derived from the policy version and the trigger, so a repeated pass (another leader, a retry)
 * makes no second request. Wildcard resource rules are not expanded (logged, nothing listed).
 */
import { createHash } from 'node:crypto';
import type { UpdateRequestResourceSpec, UpdateRequestSpec } from '@edict/admission';
import type { CompiledGeneratingPolicy } from '@edict/cel-policies';
import { isObject, type KubeObject } from '@edict/foundation';
import { isAlreadyExists } from '@edict/kube';
import type { ClusterObjects } from '../update-requests/cluster-objects';
import { UPDATE_REQUEST_API_VERSION, UPDATE_REQUEST_KIND } from '../update-requests/update-request';

/** Kyverno's UpdateRequest label naming a generate request's policy. */
const UR_GENERATE_POLICY = 'generate.kyverno.io/policy-name';

export interface ExistingTriggerDeps {
  readonly cluster: Pick<ClusterObjects, 'list' | 'create'>;
  /** The kind served under `apiVersion` with the plural `resource`; undefined when not served. */
  kindOf(apiVersion: string, resource: string): Promise<string | undefined>;
  /** The controller's namespace, where UpdateRequests live. */
  readonly namespace: string;
  /** Requests one policy may create in one pass. */
  readonly maxRequests: number;
  warn(message: string): void;
}

/** Creates the UpdateRequests of one pass for `compiled`; returns how many triggers it found. */
export async function generateForExisting(
  compiled: CompiledGeneratingPolicy,
  deps: ExistingTriggerDeps,
): Promise<number> {
  const policyKey = compiled.namespace !== undefined ? `${compiled.namespace}/${compiled.name}` : compiled.name;
  const version = `${String(compiled.policy.metadata?.uid ?? '')}@${String(compiled.policy.metadata?.generation ?? compiled.policy.metadata?.resourceVersion ?? '')}`;
  let found = 0;
  for (const { apiVersion, resource } of listedTypes(compiled)) {
    if (resource.includes('*') || apiVersion.includes('*')) {
      deps.warn(`generateExisting of ${policyKey}: wildcard resource rule ${apiVersion}/${resource} is not expanded`);
      continue;
    }
    const kind = await deps.kindOf(apiVersion, resource);
    if (kind === undefined) continue;
    const request = {
      apiVersion,
      kind,
      ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
    };
    for await (const page of deps.cluster.list(request)) {
      for (const object of page) {
        if (found >= deps.maxRequests) {
          deps.warn(`generateExisting of ${policyKey}: more than ${deps.maxRequests} triggers; the rest are left`);
          return found;
        }
        found += 1;
        await createRequest(policyKey, version, triggerOf(object, apiVersion, kind), compiled, deps);
      }
    }
  }
  return found;
}

async function createRequest(
  policyKey: string,
  version: string,
  trigger: UpdateRequestResourceSpec,
  compiled: CompiledGeneratingPolicy,
  deps: ExistingTriggerDeps,
): Promise<void> {
  const spec: UpdateRequestSpec = {
    requestType: 'cel-generate',
    policy: policyKey,
    rule: '',
    deleteDownstream: false,
    ...(compiled.synchronize ? { synchronize: true } : {}),
    ruleContext: [
      { rule: policyKey, deleteDownstream: false, ...(compiled.synchronize ? { synchronize: true } : {}), trigger },
    ],
    resource: trigger,
    context: { userInfo: { userInfo: {} }, admissionRequestInfo: {} },
  };
  const digest = createHash('sha256')
    .update(
      [
        policyKey,
        version,
        trigger.uid ?? '',
        trigger.apiVersion,
        trigger.kind,
        trigger.namespace ?? '',
        trigger.name,
      ].join('\u0000'),
    )
    .digest('hex')
    .slice(0, 40);
  try {
    await deps.cluster.create({
      apiVersion: UPDATE_REQUEST_API_VERSION,
      kind: UPDATE_REQUEST_KIND,
      metadata: {
        name: `ur-existing-${digest}`,
        namespace: deps.namespace,
        labels: { [UR_GENERATE_POLICY]: compiled.name },
      },
      spec,
    });
  } catch (error) {
    if (!isAlreadyExists(error)) throw error;
  }
}

/** The group/version/plural pairs the policy's resource rules name, without repeats. */
function listedTypes(compiled: CompiledGeneratingPolicy): Array<{ apiVersion: string; resource: string }> {
  const seen = new Map<string, { apiVersion: string; resource: string }>();
  const rules = compiled.matchConstraints.resourceRules ?? [];
  for (const rule of rules) {
    if (!isObject(rule)) continue;
    const strings = (value: unknown) =>
      Array.isArray(value) ? value.filter((v): v is string => typeof v === 'string') : [];
    for (const group of strings(rule.apiGroups))
      for (const version of strings(rule.apiVersions))
        for (const resource of strings(rule.resources)) {
          if (resource.includes('/')) continue; // subresources are not objects to list
          const apiVersion = group === '' ? version : `${group}/${version}`;
          seen.set(`${apiVersion} ${resource}`, { apiVersion, resource });
        }
  }
  return [...seen.values()];
}

function triggerOf(object: KubeObject, apiVersion: string, kind: string): UpdateRequestResourceSpec {
  return {
    apiVersion: object.apiVersion ?? apiVersion,
    kind: object.kind ?? kind,
    ...(object.metadata?.namespace ? { namespace: object.metadata.namespace } : {}),
    name: object.metadata?.name ?? '',
    ...(object.metadata?.uid ? { uid: object.metadata.uid } : {}),
  };
}

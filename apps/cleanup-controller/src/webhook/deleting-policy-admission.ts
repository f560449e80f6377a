/**
 * A DeletingPolicy or NamespacedDeletingPolicy at admission, in the cleanup controller's webhook,
 * as Kyverno's policy webhook judges it (pkg/cel/policies/dpol Validate): refused with the field
 * and reason when it does not compile or names no resource rule (deletingPolicyErrors). Kyverno
 * checks no permission here: a policy on a kind the controller may not list or delete is admitted
 * and its runs delete nothing of that kind (the list or the delete is forbidden; see runDeletingPolicy).
 * Edict says so at once: each type its matchConstraints name that is not served, or that the
 * controller's ServiceAccount may not list and delete (SelfSubjectAccessReviews, in the policy's
 * namespace for a namespaced one), comes back as an admission warning naming the missing permission.
 */
import { allow, deny, type AdmissionDecision } from '@edict/admission';
import { compileDeletingPolicy, deletingPolicyErrors } from '@edict/cel-policies';
import type { AccessReviewer } from '@edict/engine';
import { errorMessage, type KubeObject } from '@edict/foundation';
import type { CleanupCluster } from '../cluster/cleanup-cluster';
import { deletingPolicyTypes } from '../deleting/deleting-types';

const VERBS = ['list', 'delete'] as const;

export async function deletingPolicyAdmission(
  policy: KubeObject,
  cluster: CleanupCluster,
  reviewer: AccessReviewer,
): Promise<AdmissionDecision> {
  const errors = deletingPolicyErrors(policy);
  if (errors.length > 0) return deny(errors.map((error) => `${error.field}: ${error.message}`).join('; '));
  return allow(await permissionWarnings(policy, cluster, reviewer));
}

/** What keeps the controller from doing the policy's work, one warning per missing permission. */
async function permissionWarnings(
  policy: KubeObject,
  cluster: CleanupCluster,
  reviewer: AccessReviewer,
): Promise<string[]> {
  const compiled = compileDeletingPolicy(policy);
  const subject = `${compiled.kind}/${compiled.name}`;
  const where = compiled.namespace !== undefined ? ` in namespace ${compiled.namespace}` : '';
  let types;
  try {
    types = await deletingPolicyTypes(cluster, compiled.matchConstraints);
  } catch (error) {
    return [`${subject}: cleanup controller could not look up the kinds it matches: ${errorMessage(error)}`];
  }
  if (compiled.namespace !== undefined) types = types.filter((type) => type.namespaced);
  if (types.length === 0) return [`${subject}: cleanup controller found no served resource its matchConstraints name`];
  const warnings: string[] = [];
  for (const type of types) {
    for (const verb of VERBS) {
      let allowed: boolean;
      try {
        const decision = await reviewer.review({
          user: '',
          resourceAttributes: {
            group: type.group,
            version: type.version,
            resource: type.resource,
            verb,
            ...(compiled.namespace !== undefined ? { namespace: compiled.namespace } : {}),
          },
        });
        allowed = decision.allowed;
      } catch (error) {
        warnings.push(
          `${subject}: cleanup controller could not check its permission to ${verb} kind ${type.kind}${where}: ${errorMessage(error)}`,
        );
        continue;
      }
      if (!allowed) {
        warnings.push(
          `${subject}: cleanup controller has no permission to ${verb} kind ${type.kind}${where}: it deletes nothing of this kind until granted`,
        );
      }
    }
  }
  return warnings;
}

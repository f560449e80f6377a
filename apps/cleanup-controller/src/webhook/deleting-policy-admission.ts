/**
 * A DeletingPolicy or NamespacedDeletingPolicy at admission, in the cleanup controller's webhook:
 * refused with the field and reason when it does not compile (deletingPolicyErrors), then refused
 * when this controller could not do its work, as classic cleanup policies are: every type its
 * matchConstraints name must be served, and the controller's ServiceAccount must be allowed to list
 * and delete it (SelfSubjectAccessReviews, in the policy's namespace for a namespaced one).
 */
import { allow, deny, type AdmissionDecision } from '@edict/admission';
import { compileDeletingPolicy, deletingPolicyErrors } from '@edict/cel-policies';
import type { AccessReviewer } from '@edict/engine';
import { errorMessage, type KubeObject } from '@edict/foundation';
import type { CleanupCluster } from '../cluster/cleanup-cluster';
import { deletingPolicyTypes } from '../deleting/deleting-types';

const VERBS = ['delete', 'list'] as const;

export async function deletingPolicyAdmission(
  policy: KubeObject,
  cluster: CleanupCluster,
  reviewer: AccessReviewer,
): Promise<AdmissionDecision> {
  const errors = deletingPolicyErrors(policy);
  if (errors.length > 0) return deny(errors.map((error) => `${error.field}: ${error.message}`).join('; '));
  const compiled = compileDeletingPolicy(policy);
  const subject = `${compiled.kind}/${compiled.name}`;
  let types;
  try {
    types = await deletingPolicyTypes(cluster, compiled.matchConstraints);
  } catch (error) {
    return deny(`${subject}: cleanup controller could not look up the kinds it matches: ${errorMessage(error)}`);
  }
  if (compiled.namespace !== undefined) types = types.filter((type) => type.namespaced);
  if (types.length === 0) {
    return deny(`${subject}: cleanup controller found no served resource its matchConstraints name`);
  }
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
        return deny(
          `${subject}: cleanup controller could not check its permission to ${verb} kind ${type.kind}: ${errorMessage(error)}`,
        );
      }
      if (!allowed) return deny(`${subject}: cleanup controller has no permission to ${verb} kind ${type.kind}`);
    }
  }
  return allow();
}

/**
 * Kubernetes' MutatingAdmissionPolicies of a CLI test (with their bindings and the test's params),
 * as Kyverno's CLI runs them: each policy on every resource as a CREATE; a policy or binding that
 * does not select the resource gives no response; otherwise one Mutation rule per mutation and the
 * patched resource, which `patchedResources` is compared with as for classic mutate.
 */
import type { PolicyResponse } from '@edict/engine';
import { errorMessage, type KubeObject } from '@edict/foundation';
import { evaluateMutatingPolicyForCli } from '@edict/native-policies';
import { resourceOf } from './cel-resource';
import type { CelEvaluation } from './evaluate-cel';
import type { LoadedTest } from './types';

export async function evaluateMutatingAdmissionPolicies(test: LoadedTest, evaluation: CelEvaluation): Promise<void> {
  const policies = test.cel.mutatingAdmissionPolicies;
  for (const resource of policies.length > 0 ? test.resources : []) {
    const namespace = resource.metadata.namespace;
    const namespaceLabels = namespace ? test.values.namespaceLabels[namespace] : undefined;
    for (const policy of policies) {
      try {
        const result = await evaluateMutatingPolicyForCli({
          policy,
          bindings: test.cel.mutatingAdmissionPolicyBindings,
          params: test.params,
          resource,
          resourceName: resourceOf(resource, test.crdPlurals).resource,
          ...(namespaceLabels ? { namespaceLabels } : {}),
          ...(test.user?.userInfo ? { userInfo: test.user.userInfo } : {}),
        });
        if (result.rules.length === 0) continue;
        const patchedResource = (result.patchedResource ?? resource) as KubeObject;
        evaluation.responses.push({
          kind: 'MutatingAdmissionPolicy',
          policy,
          resource,
          stage: 'mutate',
          patchedResource,
          response: {
            policy: { name: result.policy, kind: 'MutatingAdmissionPolicy' },
            resource: responseResource(resource),
            rules: result.rules.map((rule) => ({
              name: rule.name,
              type: 'Mutation',
              status: rule.status,
              message: rule.message,
              ...(rule.status === 'pass' ? { patchedResource } : {}),
            })),
            validationFailureAction: 'Audit',
          },
        });
      } catch (error) {
        evaluation.errors.push(
          `MutatingAdmissionPolicy ${policy.metadata.name ?? ''} on ${resource.kind}/${resource.metadata.name ?? ''}: ${errorMessage(error)}`,
        );
      }
    }
  }
}

function responseResource(resource: KubeObject): PolicyResponse['resource'] {
  return {
    apiVersion: resource.apiVersion,
    kind: resource.kind,
    name: resource.metadata.name ?? '',
    ...(resource.metadata.namespace ? { namespace: resource.metadata.namespace } : {}),
  };
}

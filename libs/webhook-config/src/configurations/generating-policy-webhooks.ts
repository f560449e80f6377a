/**
 * The GeneratingPolicy webhooks Kyverno publishes in its resource validating configuration
 * (`gpol.<validating webhook name>`, paths under `/gpol/`), built as the ValidatingPolicy ones
 * (fine-grained for match conditions, matchPolicy Exact or a timeout; a namespaced policy only in
 * its own namespace; shared ones grouped by selectors) with what differs for generate:
 *  - every rule asks for CREATE, UPDATE, DELETE and CONNECT whatever the policy's operations
 *    (the policy's own matchConstraints decide at evaluation; the background side needs to hear
 *    of updates and deletions of triggers);
 *  - the failure policy is always Ignore: generating never blocks a request;
 *  - a policy with `evaluation.admission.enabled: false` gets no webhook.
 */
import { isObject, type JsonObject } from '@edict/foundation';
import {
  validatingPolicyWebhooks,
  type ValidatingPolicyWebhookOptions,
  type ValidatingPolicyWebhookSource,
} from './validating-policy-webhooks';
import type { ValidatingWebhook } from './types';

/** Kyverno's prefix and path of GeneratingPolicy webhooks. */
export const GENERATING_POLICY_PREFIX = 'gpol';
export const GENERATING_POLICY_PATH = '/gpol';

/** The operations of every GeneratingPolicy webhook rule. */
const GENERATE_OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

/** What the builder reads of a compiled GeneratingPolicy (CompiledGeneratingPolicy fits). */
export interface GeneratingPolicyWebhookSource {
  readonly kind: 'GeneratingPolicy' | 'NamespacedGeneratingPolicy';
  readonly name: string;
  readonly namespace?: string;
  /** evaluation.admission.enabled (default true). */
  readonly admission: boolean;
  readonly timeoutSeconds?: number;
  /** The policy object: spec.matchConstraints and spec.matchConditions as written. */
  readonly policy: JsonObject;
}

/** The `gpol` webhooks of the policies, in name order. */
export function generatingPolicyWebhooks(
  policies: Iterable<GeneratingPolicyWebhookSource>,
  options: Omit<ValidatingPolicyWebhookOptions, 'prefix' | 'path'>,
): ValidatingWebhook[] {
  const sources: ValidatingPolicyWebhookSource[] = [];
  for (const policy of policies) {
    sources.push({
      kind: policy.kind,
      name: policy.name,
      ...(policy.namespace !== undefined ? { namespace: policy.namespace } : {}),
      failurePolicy: 'Ignore',
      admission: policy.admission,
      ...(policy.timeoutSeconds !== undefined ? { timeoutSeconds: policy.timeoutSeconds } : {}),
      policy: withAllOperations(policy.policy),
      autogenStatus: {},
    });
  }
  return validatingPolicyWebhooks(sources, {
    ...options,
    prefix: GENERATING_POLICY_PREFIX,
    path: GENERATING_POLICY_PATH,
  });
}

/** The policy with every resource rule's operations set to the four generate listens to. */
function withAllOperations(policy: JsonObject): JsonObject {
  const spec = isObject(policy.spec) ? policy.spec : {};
  const match = isObject(spec.matchConstraints) ? spec.matchConstraints : {};
  const rules = Array.isArray(match.resourceRules) ? match.resourceRules : [];
  return {
    ...policy,
    spec: {
      ...spec,
      matchConstraints: {
        ...match,
        resourceRules: rules.map((rule) => (isObject(rule) ? { ...rule, operations: [...GENERATE_OPERATIONS] } : rule)),
      },
    },
  };
}

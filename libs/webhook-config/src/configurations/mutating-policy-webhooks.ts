/**
 * The MutatingPolicy webhooks Kyverno publishes in its resource mutating configuration: built as
 * the ValidatingPolicy ones are (validatingPolicyWebhooks: `mpol.<validating webhook name>` with
 * `-fail` / `-ignore`, fine-grained `-fail-finegrained-<name>` for a policy with match conditions,
 * matchPolicy Exact, a timeout, or a namespace; rules from matchConstraints and the autogen configs;
 * paths under `/mpol`), then made mutating webhooks. Each carries the reinvocationPolicy of its
 * policies (IfNeeded when any policy it serves asks for it, else Never), as Kyverno copies it.
 * Policies with admission disabled have none (JSON-mode ones, which Kyverno leaves out too, are
 * refused at compile time: the cache never serves them).
 */
import type { MutatingWebhook, WebhookClientConfig } from './types';
import {
  validatingPolicyWebhooks,
  type ValidatingPolicyWebhookOptions,
  type ValidatingPolicyWebhookSource,
} from './validating-policy-webhooks';

/** What the builder reads of a compiled MutatingPolicy (CompiledMutatingPolicy fits). */
export interface MutatingPolicyWebhookSource extends ValidatingPolicyWebhookSource {
  readonly kind: 'MutatingPolicy' | 'NamespacedMutatingPolicy';
  readonly reinvocationPolicy: 'Never' | 'IfNeeded';
}

/** Kyverno's prefix and path of MutatingPolicy webhooks. */
export const MUTATING_POLICY_PREFIX = 'mpol';
export const MUTATING_POLICY_PATH = '/mpol';

/** The `mpol` webhooks of the policies, in name order. */
export function mutatingPolicyWebhooks(
  policies: Iterable<MutatingPolicyWebhookSource>,
  options: Omit<ValidatingPolicyWebhookOptions, 'prefix' | 'path'>,
): MutatingWebhook[] {
  const served = [...policies];
  const reinvoked = new Set(
    served.filter((policy) => policy.reinvocationPolicy === 'IfNeeded').map((policy) => policy.name),
  );
  return validatingPolicyWebhooks(served, {
    ...options,
    prefix: MUTATING_POLICY_PREFIX,
    path: MUTATING_POLICY_PATH,
  }).map((hook) => ({
    ...hook,
    reinvocationPolicy: servedNames(hook.clientConfig).some((name) => reinvoked.has(name)) ? 'IfNeeded' : 'Never',
  }));
}

/** The policy names a webhook's path carries (`/mpol/<name>/<name>...`). */
function servedNames(client: WebhookClientConfig): string[] {
  const path = client.service?.path ?? (client.url ? new URL(client.url).pathname : '');
  const at = path.indexOf(`${MUTATING_POLICY_PATH}/`);
  return at < 0 ? [] : path.slice(at + MUTATING_POLICY_PATH.length + 1).split('/');
}

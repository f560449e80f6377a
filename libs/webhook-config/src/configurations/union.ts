/**
 * The narrowing guard's merge: what is published now, widened by what is wanted, never narrowed.
 * Used while the policy set is not known to be complete (cache not synced, kinds not resolved):
 * a webhook that disappears or loses rules could let requests through that a policy should see.
 */
import { RuleSet } from './rule-set';
import type { ValidatingWebhook, WebhookConfiguration } from './types';

/** `desired`, with each webhook's rules and timeout unioned with `observed`'s, and observed-only webhooks kept. */
export function unionConfiguration<T extends WebhookConfiguration>(observed: T | undefined, desired: T): T {
  if (!observed) return desired;
  const observedHooks = new Map<string, ValidatingWebhook>(
    ((observed.webhooks ?? []) as ValidatingWebhook[]).map((hook) => [hook.name, hook]),
  );
  const webhooks: ValidatingWebhook[] = [];
  for (const hook of desired.webhooks as ValidatingWebhook[]) {
    const old = observedHooks.get(hook.name);
    observedHooks.delete(hook.name);
    if (!old) {
      webhooks.push(hook);
      continue;
    }
    const wanted = RuleSet.fromRules(hook.rules);
    const published = RuleSet.fromRules(old.rules);
    // Keep the wanted rules verbatim when the published ones add nothing (no needless rewrite).
    let rules = hook.rules;
    if (!wanted.containsAll(published)) {
      wanted.addAll(published);
      rules = wanted.toRules();
    }
    // Match conditions narrow: while they differ from the published ones, the webhook goes without.
    const sameConditions = JSON.stringify(hook.matchConditions ?? []) === JSON.stringify(old.matchConditions ?? []);
    const { matchConditions: _dropped, ...unconditioned } = hook;
    webhooks.push({
      ...(sameConditions ? hook : unconditioned),
      rules,
      timeoutSeconds: Math.max(hook.timeoutSeconds, old.timeoutSeconds ?? 0),
    });
  }
  // Webhooks only the published side has keep their rules, but with today's client config (CA).
  for (const old of observedHooks.values()) {
    const sibling = (desired.webhooks as ValidatingWebhook[])[0];
    webhooks.push(
      sibling ? { ...old, clientConfig: { ...old.clientConfig, caBundle: sibling.clientConfig.caBundle } } : old,
    );
  }
  return { ...desired, webhooks } as T;
}

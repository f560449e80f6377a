/** Test helpers: fake feeds and small policy builders (and the CRD installer, re-exported). */
export {
  FakeFeed,
  fakePolicyFeeds,
  fakeCelPolicyFeeds,
  type FakePolicyFeeds,
  type FakeCelPolicyFeeds,
} from './fake-feed';
import type { Policy, PolicyException, Rule } from '@edict/engine';

/** Kept here too for existing specs; the function lives in the library (`@edict/policy`). */
export { installPolicyCrds } from '../crds/install-crds';

/** A validate rule requiring a label on `kinds`. */
export function labelRule(name: string, kinds: string[], label = 'team', extra: Partial<Rule> = {}): Rule {
  return {
    name,
    match: { any: [{ resources: { kinds } }] },
    validate: { message: `label ${label} is required`, pattern: { metadata: { labels: { [label]: '?*' } } } },
    ...extra,
  };
}

/** A ClusterPolicy (or a Policy when `namespace` is given). */
export function policyOf(name: string, rules: Rule[], spec: Partial<Policy['spec']> = {}, namespace?: string): Policy {
  return {
    apiVersion: 'kyverno.io/v1',
    kind: namespace ? 'Policy' : 'ClusterPolicy',
    metadata: { name, ...(namespace ? { namespace } : {}) },
    spec: { rules, ...spec },
  };
}

export function exceptionOf(
  name: string,
  namespace: string,
  policyName: string,
  ruleNames: string[],
  kinds = ['Pod'],
): PolicyException {
  return {
    apiVersion: 'kyverno.io/v2',
    kind: 'PolicyException',
    metadata: { name, namespace },
    spec: { match: { any: [{ resources: { kinds } }] }, exceptions: [{ policyName, ruleNames }] },
  };
}

/** Test helpers: install Edict's CRDs in an in-memory API server, and small policy builders. */
export { FakeFeed, fakePolicyFeeds, type FakePolicyFeeds } from './fake-feed';
import type { InMemoryApiServer } from '@edict/apiserver';
import type { JsonObject, Policy, PolicyException, Rule } from '@edict/engine';
import { readCrdManifests } from '../crds/crd-manifests';

/** Creates every CRD of charts/edict/crds in the server (skipping ones that exist). */
export function installPolicyCrds(server: Pick<InMemoryApiServer, 'create' | 'get'>, directory?: string): void {
  for (const crd of readCrdManifests(directory)) {
    const name = (crd.metadata as JsonObject).name as string;
    const existing = server.get('apiextensions.k8s.io/v1', 'CustomResourceDefinition', name);
    if (!existing) server.create(crd);
  }
}

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

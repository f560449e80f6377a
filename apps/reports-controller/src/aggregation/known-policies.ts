/**
 * The policies as aggregation sees them, from the policy cache: each one's rules (autogen ones
 * included) and resourceVersion, and which policies' specs changed between two cache snapshots.
 * Rule sets are computed once per cached policy object.
 */
import { isPolicyReportable, VALIDATING_POLICY_SOURCE, validatingPolicyKey } from '@edict/admission';
import type { CompiledValidatingPolicy } from '@edict/cel-policies';
import { generationOf, type CachedPolicy, type PolicySnapshot } from '@edict/policy';
import {
  LABEL_PREFIX_CLUSTER_POLICY,
  LABEL_PREFIX_POLICY,
  LABEL_PREFIX_VALIDATING_POLICY,
  type ReportPolicy,
} from '@edict/reports';

/**
 * A policy as the caches know it: what the report labels, and its rules (autogen ones included);
 * no rule set for a ValidatingPolicy, whose result rows are named by its engine.
 */
export interface KnownPolicy extends ReportPolicy {
  readonly rules?: ReadonlySet<string>;
}

/** Keys of ValidatingPolicies start with this, so that they never meet a ClusterPolicy of the same name. */
export const VALIDATING_POLICY_KEY_PREFIX = 'vpol:';

/** The key a result's policy is known by: its `policy`, prefixed for ValidatingPolicies (by `source`). */
export function resultPolicyKey(result: { readonly policy: string; readonly source: string }): string {
  return result.source === VALIDATING_POLICY_SOURCE ? VALIDATING_POLICY_KEY_PREFIX + result.policy : result.policy;
}

const known = new WeakMap<CachedPolicy, KnownPolicy>();
const knownCel = new WeakMap<readonly CompiledValidatingPolicy[], Map<string, KnownPolicy>>();

/**
 * The policy under `key` (`name` or `namespace/name`; `vpol:`-prefixed for a ValidatingPolicy of
 * `celPolicies`) in `snapshot`.
 */
export function knownPolicy(
  snapshot: PolicySnapshot,
  key: string,
  celPolicies: readonly CompiledValidatingPolicy[] = [],
): KnownPolicy | undefined {
  if (key.startsWith(VALIDATING_POLICY_KEY_PREFIX))
    return celPoliciesByKey(celPolicies).get(key.slice(VALIDATING_POLICY_KEY_PREFIX.length));
  const cached = snapshot.policies.get(key);
  // A policy left out of reports is, for the reports, not there: its older results are dropped.
  if (!cached || !isPolicyReportable(cached.compiled.policy)) return undefined;
  let policy = known.get(cached);
  if (!policy) {
    policy = {
      kind: cached.kind,
      name: cached.name,
      ...(cached.namespace ? { namespace: cached.namespace } : {}),
      ...(cached.resourceVersion ? { resourceVersion: cached.resourceVersion } : {}),
      rules: new Set((cached.compiled.policy.spec.rules ?? []).map((rule) => rule.name)),
    };
    known.set(cached, policy);
  }
  return policy;
}

function celPoliciesByKey(celPolicies: readonly CompiledValidatingPolicy[]): Map<string, KnownPolicy> {
  let byKey = knownCel.get(celPolicies);
  if (!byKey) {
    byKey = new Map();
    for (const compiled of celPolicies) {
      if (!isPolicyReportable(compiled.policy)) continue;
      const resourceVersion = compiled.policy.metadata?.resourceVersion;
      byKey.set(validatingPolicyKey(compiled), {
        kind: compiled.kind,
        name: compiled.name,
        ...(compiled.namespace ? { namespace: compiled.namespace } : {}),
        ...(resourceVersion ? { resourceVersion } : {}),
      });
    }
    knownCel.set(celPolicies, byKey);
  }
  return byKey;
}

/**
 * Each policy's spec version, by key: its generation (a status write moves the resourceVersion,
 * not the rules), else its resourceVersion; ValidatingPolicies under their `vpol:` keys.
 */
export function policyVersions(
  snapshot: PolicySnapshot,
  celPolicies: readonly CompiledValidatingPolicy[] = [],
): Map<string, string> {
  const versions = new Map(
    [...snapshot.policies].map(([key, policy]) => [
      key,
      specVersion(policy.source ? generationOf(policy.source) : undefined, policy.resourceVersion),
    ]),
  );
  for (const compiled of celPolicies) {
    const generation = compiled.policy.metadata?.generation;
    versions.set(
      VALIDATING_POLICY_KEY_PREFIX + validatingPolicyKey(compiled),
      specVersion(typeof generation === 'number' ? generation : undefined, compiled.policy.metadata?.resourceVersion),
    );
  }
  return versions;
}

function specVersion(generation: number | undefined, resourceVersion: string | undefined): string {
  return generation !== undefined ? `generation ${generation}` : (resourceVersion ?? '');
}

/** Keys of policies removed or changed from `before` to `after` (new ones bring no stale results). */
export function changedPolicies(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  return [...before].filter(([key, version]) => after.get(key) !== version).map(([key]) => key);
}

/** The report label naming a policy key, and where reports carrying it live (a Policy's namespace). */
export function policyLabelOf(key: string): { label: string; namespace?: string } {
  if (key.startsWith(VALIDATING_POLICY_KEY_PREFIX)) {
    const path = key.slice(VALIDATING_POLICY_KEY_PREFIX.length);
    const at = path.indexOf('/');
    return at < 0
      ? { label: LABEL_PREFIX_VALIDATING_POLICY + path }
      : { label: LABEL_PREFIX_VALIDATING_POLICY + path.slice(at + 1), namespace: path.slice(0, at) };
  }
  const slash = key.indexOf('/');
  return slash < 0
    ? { label: LABEL_PREFIX_CLUSTER_POLICY + key }
    : { label: LABEL_PREFIX_POLICY + key.slice(slash + 1), namespace: key.slice(0, slash) };
}

/** The policy key a report label names (undefined for other labels). */
export function policyKeyOfLabel(label: string, reportNamespace: string | undefined): string | undefined {
  // Kyverno labels both ValidatingPolicy kinds alike: the label names a cluster-wide one's key.
  if (label.startsWith(LABEL_PREFIX_VALIDATING_POLICY))
    return VALIDATING_POLICY_KEY_PREFIX + label.slice(LABEL_PREFIX_VALIDATING_POLICY.length);
  if (label.startsWith(LABEL_PREFIX_CLUSTER_POLICY)) return label.slice(LABEL_PREFIX_CLUSTER_POLICY.length);
  if (label.startsWith(LABEL_PREFIX_POLICY) && reportNamespace)
    return `${reportNamespace}/${label.slice(LABEL_PREFIX_POLICY.length)}`;
  return undefined;
}

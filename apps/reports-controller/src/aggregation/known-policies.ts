/**
 * The policies as aggregation sees them, from the policy cache: each one's rules (autogen ones
 * included) and resourceVersion, and which policies' specs changed between two cache snapshots.
 * Rule sets are computed once per cached policy object.
 */
import { generationOf, type CachedPolicy, type PolicySnapshot } from '@edict/policy';
import { LABEL_PREFIX_CLUSTER_POLICY, LABEL_PREFIX_POLICY, type ReportPolicy } from '@edict/reports';

/** A policy as the cache knows it: what the report labels, and its rules (autogen ones included). */
export interface KnownPolicy extends ReportPolicy {
  readonly rules: ReadonlySet<string>;
}

const known = new WeakMap<CachedPolicy, KnownPolicy>();

/** The policy under `key` (`name` or `namespace/name`) in `snapshot`. */
export function knownPolicy(snapshot: PolicySnapshot, key: string): KnownPolicy | undefined {
  const cached = snapshot.policies.get(key);
  if (!cached) return undefined;
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

/**
 * Each policy's spec version, by key: its generation (a status write moves the resourceVersion,
 * not the rules), else its resourceVersion.
 */
export function policyVersions(snapshot: PolicySnapshot): Map<string, string> {
  return new Map(
    [...snapshot.policies].map(([key, policy]) => {
      const generation = policy.source ? generationOf(policy.source) : undefined;
      return [key, generation !== undefined ? `generation ${generation}` : (policy.resourceVersion ?? '')];
    }),
  );
}

/** Keys of policies removed or changed from `before` to `after` (new ones bring no stale results). */
export function changedPolicies(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): string[] {
  return [...before].filter(([key, version]) => after.get(key) !== version).map(([key]) => key);
}

/** The report label naming a policy key, and where reports carrying it live (a Policy's namespace). */
export function policyLabelOf(key: string): { label: string; namespace?: string } {
  const slash = key.indexOf('/');
  return slash < 0
    ? { label: LABEL_PREFIX_CLUSTER_POLICY + key }
    : { label: LABEL_PREFIX_POLICY + key.slice(slash + 1), namespace: key.slice(0, slash) };
}

/** The policy key a report label names (undefined for other labels). */
export function policyKeyOfLabel(label: string, reportNamespace: string | undefined): string | undefined {
  if (label.startsWith(LABEL_PREFIX_CLUSTER_POLICY)) return label.slice(LABEL_PREFIX_CLUSTER_POLICY.length);
  if (label.startsWith(LABEL_PREFIX_POLICY) && reportNamespace)
    return `${reportNamespace}/${label.slice(LABEL_PREFIX_POLICY.length)}`;
  return undefined;
}

/**
 * Which policies a background scan runs, from a policy cache snapshot: those with validate rules and
 * `spec.background` not false (Kyverno's default is true), `spec.admission: false` ones included (a
 * background-only policy); a Policy only on its own namespace's resources. For each resource type
 * the candidates are the policies a validate rule of which names the kind; the engine decides the
 * rest of the match. Answers are memoised per snapshot, and so is each set's signature (the
 * policies' spec versions and the PolicyExceptions' versions, as Kyverno labels its reports with
 * both), which is what a resource's scan memory keeps.
 */
import { kindMatches, parseKind, type GroupVersionKind } from '@edict/foundation';
import {
  enforcedByGeneratedAdmissionPolicy,
  factsOf,
  generationOf,
  type CachedPolicy,
  type PolicySnapshot,
} from '@edict/policy';

export interface BackgroundPolicySet {
  readonly policies: readonly CachedPolicy[];
  /** `key=version` of each and of the exceptions in force: equal signatures mean nothing to evaluate again. */
  readonly signature: string;
}

interface SnapshotIndex {
  readonly policies: readonly { policy: CachedPolicy; kinds: readonly string[] }[];
  /** The exceptions in force and their versions: one changing may turn results into skips or back. */
  readonly exceptions: string;
  readonly sets: Map<string, BackgroundPolicySet>;
}

const indexes = new WeakMap<PolicySnapshot, SnapshotIndex>();

export function backgroundPoliciesFor(
  snapshot: PolicySnapshot,
  gvk: GroupVersionKind,
  namespace: string | undefined,
): BackgroundPolicySet {
  const index = indexOf(snapshot);
  const memoKey = `${gvk.group}/${gvk.version}/${gvk.kind}/${namespace ?? ''}`;
  let set = index.sets.get(memoKey);
  if (!set) {
    const policies = index.policies
      .filter(({ policy, kinds }) => {
        if (policy.namespace !== undefined && policy.namespace !== (namespace ?? '')) return false;
        return kindMatches(kinds, gvk, '', true);
      })
      .map(({ policy }) => policy);
    const versions = policies.map((policy) => `${policy.key}=${specVersion(policy)}`);
    set = { policies, signature: `${versions.join(',')};${index.exceptions}` };
    index.sets.set(memoKey, set);
  }
  return set;
}

/** The kind selectors (`Pod`, `apps/v1/Deployment`, `*`) of every background validate rule, sorted. */
export function backgroundKindSelectors(snapshot: PolicySnapshot): string[] {
  const selectors = new Set<string>();
  for (const { kinds } of indexOf(snapshot).policies) {
    for (const kind of kinds) if (parseKind(kind).kind !== '' && !parseKind(kind).subresource) selectors.add(kind);
  }
  return [...selectors].sort();
}

/**
 * Every background policy's and exception's version: when it is unchanged between two snapshots
 * (a policy's status was written, an admission-only policy changed), no scan has anything new to do.
 */
export function scanSignature(snapshot: PolicySnapshot): string {
  const index = indexOf(snapshot);
  return `${index.policies.map(({ policy }) => `${policy.key}=${specVersion(policy)}`).join(',')};${index.exceptions}`;
}

/** Whether Kyverno scans the policy in the background (not when the API server enforces it through a generated VAP). */
export function scansInBackground(policy: CachedPolicy): boolean {
  const { compiled } = policy;
  return (
    compiled.policy.spec.background !== false &&
    !enforcedByGeneratedAdmissionPolicy(policy.source ?? {}) &&
    (compiled.validateRules.length > 0 || compiled.imageVerifyRules.length > 0)
  );
}

/** The policy's spec version: its generation (a status write moves only the resourceVersion). */
function specVersion(policy: CachedPolicy): string {
  const generation = policy.source ? generationOf(policy.source) : undefined;
  return generation !== undefined ? `g${generation}` : (policy.resourceVersion ?? '');
}

function indexOf(snapshot: PolicySnapshot): SnapshotIndex {
  let index = indexes.get(snapshot);
  if (!index) {
    const policies = [...snapshot.policies.values()]
      .filter(scansInBackground)
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .map((policy) => ({
        policy,
        kinds: [...policy.compiled.validateRules, ...policy.compiled.imageVerifyRules].flatMap(
          (rule) => factsOf(rule).kinds,
        ),
      }));
    const exceptions = [...snapshot.allExceptions.values()]
      .filter((exception) => exception.used)
      .map(({ key, exception }) => `${key}=${exception.metadata?.resourceVersion ?? ''}`)
      .sort()
      .join(',');
    index = { policies, exceptions, sets: new Map() };
    indexes.set(snapshot, index);
  }
  return index;
}

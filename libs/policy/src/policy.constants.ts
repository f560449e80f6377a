/** Injection tokens of the policy module. */
export const POLICY_OPTIONS = Symbol('POLICY_OPTIONS');
/** The object feeds (informers) the cache follows: see {@link PolicyFeeds}. */
export const POLICY_FEEDS = Symbol('POLICY_FEEDS');
/** The informers on the policies.kyverno.io kinds the CEL policy cache follows: see CelPolicyFeeds. */
export const CEL_POLICY_FEEDS = Symbol('CEL_POLICY_FEEDS');
/** Optional: the compilers of the CEL policy cache (default: @edict/cel-policies'). */
export const CEL_POLICY_COMPILERS_TOKEN = Symbol('CEL_POLICY_COMPILERS');

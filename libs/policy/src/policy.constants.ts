/** Injection tokens of the policy module. */
export const POLICY_OPTIONS = Symbol('POLICY_OPTIONS');
/** The object feeds (informers) the cache follows: see {@link PolicyFeeds}. */
export const POLICY_FEEDS = Symbol('POLICY_FEEDS');

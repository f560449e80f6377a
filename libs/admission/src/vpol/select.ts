import type { CompiledValidatingPolicy } from '@edict/cel-policies';
import type { FailurePolicy } from '../decision';

/** What a `/vpol/...` webhook path asks for: its failure policy and, fine-grained, the policies it names. */
export interface ValidatingPolicyPath {
  /** `fail` or `ignore` in the path; unset (`/vpol/<names>`): every failure policy. */
  failurePolicy?: FailurePolicy;
  /** Fine-grained paths name their policies; empty or unset: every policy. */
  names?: readonly string[];
}

/** What path selection reads of a compiled CEL policy (ValidatingPolicy and ImageValidatingPolicy alike). */
export type PathPolicy = Pick<CompiledValidatingPolicy, 'admission' | 'failurePolicy' | 'name' | 'namespace'>;

/**
 * Kyverno's webhook paths for ValidatingPolicies: `/vpol/fail`, `/vpol/ignore`, the fine-grained
 * `/vpol/{fail,ignore}/finegrained/<policy>` (one path per policy that asks for its own webhook),
 * and the older `/vpol/<name>/<name>...` naming policies of any failure policy. `rest` is what
 * follows `/vpol/`. Undefined for a path that is none of these.
 */
export function parseValidatingPolicyPath(rest: string): ValidatingPolicyPath | undefined {
  const segments = rest.split('/').filter((segment) => segment !== '');
  const first = segments[0];
  const failurePolicy = first === 'fail' ? 'Fail' : first === 'ignore' ? 'Ignore' : undefined;
  if (!failurePolicy) return segments.every(isPolicyName) ? { names: segments } : undefined;
  if (segments.length === 1) return { failurePolicy };
  if (segments[1] !== 'finegrained' || segments.length < 3) return undefined;
  const names = segments.slice(2);
  return names.every(isPolicyName) ? { failurePolicy, names } : undefined;
}

/** A Kubernetes object name (DNS subdomain): anything else in a path is not a policy. */
function isPolicyName(segment: string): boolean {
  return segment.length <= 253 && /^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$/.test(segment);
}

/**
 * The ValidatingPolicies a path serves for a request in `namespace` ('' for cluster-scoped
 * objects): admission enabled, the path's failure policy, the names of a fine-grained path, and a
 * namespaced policy (NamespacedValidatingPolicy, NamespacedImageValidatingPolicy) only for requests in its own namespace (it never reaches outside it).
 * Ordered by kind, namespace and name, so every replica evaluates (and words) them alike.
 */
export function validatingPoliciesForPath<T extends PathPolicy>(
  policies: readonly T[],
  path: ValidatingPolicyPath,
  namespace: string,
): T[] {
  const names = path.names && path.names.length > 0 ? new Set(path.names) : undefined;
  return policies
    .filter(
      (compiled) =>
        compiled.admission &&
        (path.failurePolicy === undefined || compiled.failurePolicy === path.failurePolicy) &&
        (names === undefined || names.has(compiled.name)) &&
        (compiled.namespace === undefined || (namespace !== '' && compiled.namespace === namespace)),
    )
    .sort((a, b) => compare(orderKey(a), orderKey(b)));
}

const orderKey = (compiled: PathPolicy) =>
  `${compiled.namespace === undefined ? 0 : 1}/${compiled.namespace ?? ''}/${compiled.name}`;

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

/** How reports and the cache name a policy: `name`, or `namespace/name` for a namespaced one. */
export function validatingPolicyKey(compiled: Pick<CompiledValidatingPolicy, 'name' | 'namespace'>): string {
  return compiled.namespace ? `${compiled.namespace}/${compiled.name}` : compiled.name;
}

/**
 * Kubernetes' ValidatingAdmissionPolicies and MutatingAdmissionPolicies as aggregation knows them,
 * beside Kyverno's CEL policies: their results stay in PolicyReports while the policy is there and
 * reportable, and go when it changes or goes. Lists are memoised per snapshot, so the lookups of
 * known-policies (cached by list) stay cheap.
 */
import type { NativePolicySnapshot } from '../native-policies/native-policy-source';
import type { KnownCelPolicy } from './known-policies';

const natives = new WeakMap<NativePolicySnapshot, readonly KnownCelPolicy[]>();
const combined = new WeakMap<
  readonly KnownCelPolicy[],
  WeakMap<readonly KnownCelPolicy[], readonly KnownCelPolicy[]>
>();

/** The snapshot's reportable native policies, named as report results name them. */
export function knownNativePolicies(snapshot: NativePolicySnapshot): readonly KnownCelPolicy[] {
  let known = natives.get(snapshot);
  if (!known) {
    const entry = (kind: KnownCelPolicy['kind']) => (policy: NativePolicySnapshot['validating'][number]) => {
      const metadata = (policy.metadata ?? {}) as { name?: unknown };
      return { kind, name: typeof metadata.name === 'string' ? metadata.name : '', policy } as KnownCelPolicy;
    };
    known = [
      ...snapshot.validating.map(entry('ValidatingAdmissionPolicy')),
      ...snapshot.mutating.map(entry('MutatingAdmissionPolicy')),
    ];
    natives.set(snapshot, known);
  }
  return known;
}

/** `cel` followed by `native`: the same array for the same two arrays. */
export function withNativePolicies(
  cel: readonly KnownCelPolicy[],
  native: readonly KnownCelPolicy[],
): readonly KnownCelPolicy[] {
  if (native.length === 0) return cel;
  let byNative = combined.get(cel);
  if (!byNative) combined.set(cel, (byNative = new WeakMap()));
  let all = byNative.get(native);
  if (!all) byNative.set(native, (all = [...cel, ...native]));
  return all;
}

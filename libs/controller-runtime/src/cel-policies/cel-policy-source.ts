/**
 * What the controllers read of Kyverno's CEL policies: the ValidatingPolicies served (Ready ones)
 * and the CEL PolicyExceptions in force, from the CEL policy cache of `@edict/policy`, and a way to
 * hear when they change. One token for every app, so the webhook, the background scans and the
 * aggregation read the same cache.
 */
import type {
  CompiledCelPolicyException,
  CompiledGeneratingPolicy,
  CompiledImageValidatingPolicy,
  CompiledMutatingPolicy,
  CompiledValidatingPolicy,
} from '@edict/cel-policies';

export interface CelPolicySource {
  validatingPolicies(): readonly CompiledValidatingPolicy[];
  /** The ImageValidatingPolicies served (Ready ones); absent: none. */
  imageValidatingPolicies?(): readonly CompiledImageValidatingPolicy[];
  /** The MutatingPolicies and NamespacedMutatingPolicies served; absent: none. */
  mutatingPolicies?(): readonly CompiledMutatingPolicy[];
  /** The GeneratingPolicies and NamespacedGeneratingPolicies served; absent: none. */
  generatingPolicies?(): readonly CompiledGeneratingPolicy[];
  policyExceptions(): readonly CompiledCelPolicyException[];
  /** Called after changes; returns its removal. Without it, the source is polled. */
  onChange?(listener: () => void): () => void;
}

/** Injection token of the CelPolicySource. */
export const CEL_POLICY_SOURCE = Symbol('CEL_POLICY_SOURCE');

/**
 * Every CEL policy served (ValidatingPolicies, then ImageValidatingPolicies), one array per pair of
 * the source's arrays (so callers may cache by it).
 */
export function allCelPolicies(
  source: CelPolicySource,
): ReadonlyArray<CompiledValidatingPolicy | CompiledImageValidatingPolicy> {
  const validating = source.validatingPolicies();
  const image = source.imageValidatingPolicies?.() ?? NONE;
  if (image.length === 0) return validating;
  const cached = combined.get(validating);
  if (cached && cached.image === image) return cached.all;
  const all = [...validating, ...image];
  combined.set(validating, { image, all });
  return all;
}

const NONE: readonly CompiledImageValidatingPolicy[] = [];
const combined = new WeakMap<
  readonly CompiledValidatingPolicy[],
  {
    image: readonly CompiledImageValidatingPolicy[];
    all: ReadonlyArray<CompiledValidatingPolicy | CompiledImageValidatingPolicy>;
  }
>();

/**
 * The versions of the ValidatingPolicies, MutatingPolicies and CEL exceptions in force (kind, namespace, name,
 * uid, generation or resourceVersion): equal signatures mean nothing changed.
 */
export function celPolicySignature(source: CelPolicySource): string {
  const policies = [
    ...source.validatingPolicies(),
    ...(source.imageValidatingPolicies?.() ?? []),
    ...(source.mutatingPolicies?.() ?? []),
    ...(source.generatingPolicies?.() ?? []),
  ].map((compiled) => `${compiled.kind}:${versionOf(compiled.policy)}`);
  return `${policies.sort().join(',')};${celExceptionsSignature(source)}`;
}

/** The versions of the CEL PolicyExceptions in force alone. */
export function celExceptionsSignature(source: Pick<CelPolicySource, 'policyExceptions'>): string {
  return source
    .policyExceptions()
    .map((compiled) => versionOf(compiled.exception))
    .sort()
    .join(',');
}

function versionOf(object: { metadata?: { [key: string]: unknown } }): string {
  const metadata = object.metadata ?? {};
  const version = metadata['generation'] ?? metadata['resourceVersion'] ?? '';
  return `${String(metadata['namespace'] ?? '')}/${String(metadata['name'] ?? '')}@${String(metadata['uid'] ?? '')}:${String(version)}`;
}

/**
 * Calls `listener` whenever the signature changes (a status write changes nothing), told by the
 * source's `onChange` or, without one, checking every `intervalMs`; returns the stop.
 */
export function onCelPoliciesChange(source: CelPolicySource, listener: () => void, intervalMs = 1_000): () => void {
  let signature = celPolicySignature(source);
  const check = () => {
    const next = celPolicySignature(source);
    if (next === signature) return;
    signature = next;
    listener();
  };
  if (source.onChange) return source.onChange(check);
  const timer = setInterval(check, intervalMs);
  timer.unref?.();
  return () => clearInterval(timer);
}

/**
 * The policies as aggregation sees them, from the policy cache: each one's rules (autogen ones
 * included) and resourceVersion, and which policies' specs changed between two cache snapshots.
 * Rule sets are computed once per cached policy object.
 */
import {
  GENERATING_POLICY_SOURCE,
  IMAGE_VALIDATING_POLICY_SOURCE,
  isPolicyReportable,
  MUTATING_POLICY_SOURCE,
  VALIDATING_POLICY_SOURCE,
  validatingPolicyKey,
} from '@edict/admission';
import { allCelPolicies, type CelPolicySource } from '@edict/controller-runtime';
import type { KubeObject } from '@edict/foundation';
import { generationOf, type CachedPolicy, type PolicySnapshot } from '@edict/policy';
import {
  LABEL_PREFIX_CLUSTER_POLICY,
  LABEL_PREFIX_MUTATING_ADMISSION_POLICY,
  LABEL_PREFIX_VALIDATING_ADMISSION_POLICY,
  LABEL_PREFIX_GENERATING_POLICY,
  LABEL_PREFIX_IMAGE_VALIDATING_POLICY,
  LABEL_PREFIX_MUTATING_POLICY,
  LABEL_PREFIX_POLICY,
  LABEL_PREFIX_VALIDATING_POLICY,
  type ReportPolicy,
  type ReportPolicyKind,
} from '@edict/reports';

/**
 * What aggregation reads of a policy kept apart from classic ones by its key prefix: Kyverno's CEL
 * kinds and Kubernetes' admission policies (bindings hold no results).
 */
export interface KnownCelPolicy {
  readonly kind: Exclude<
    ReportPolicyKind,
    'ClusterPolicy' | 'Policy' | 'ValidatingAdmissionPolicyBinding' | 'MutatingAdmissionPolicyBinding'
  >;
  readonly name: string;
  readonly namespace?: string;
  readonly policy: KubeObject;
}

/**
 * A policy as the caches know it: what the report labels, and its rules (autogen ones included);
 * no rule set for a ValidatingPolicy, whose result rows are named by its engine.
 */
export interface KnownPolicy extends ReportPolicy {
  readonly rules?: ReadonlySet<string>;
}

/** Keys of ValidatingPolicies start with this, so that they never meet a ClusterPolicy of the same name. */
export const VALIDATING_POLICY_KEY_PREFIX = 'vpol:';
/** Keys of ImageValidatingPolicies start with this. */
export const IMAGE_VALIDATING_POLICY_KEY_PREFIX = 'ivpol:';
/** Keys of MutatingPolicies (and their Namespaced form) start with this. */
export const MUTATING_POLICY_KEY_PREFIX = 'mpol:';
/** Keys of Kubernetes' ValidatingAdmissionPolicies (results with source `ValidatingAdmissionPolicy`). */
export const VALIDATING_ADMISSION_POLICY_KEY_PREFIX = 'vap:';
/** Keys of Kubernetes' MutatingAdmissionPolicies (results with source `MutatingAdmissionPolicy`). */
export const MUTATING_ADMISSION_POLICY_KEY_PREFIX = 'map:';
/** Keys of GeneratingPolicies (and their Namespaced form) start with this. */
export const GENERATING_POLICY_KEY_PREFIX = 'gpol:';

/** The key prefix of each result `source` kept apart from classic policies (which have none). */
const SOURCE_KEY_PREFIXES: ReadonlyMap<string, string> = new Map([
  [VALIDATING_POLICY_SOURCE, VALIDATING_POLICY_KEY_PREFIX],
  [IMAGE_VALIDATING_POLICY_SOURCE, IMAGE_VALIDATING_POLICY_KEY_PREFIX],
  [MUTATING_POLICY_SOURCE, MUTATING_POLICY_KEY_PREFIX],
  [GENERATING_POLICY_SOURCE, GENERATING_POLICY_KEY_PREFIX],
  ['ValidatingAdmissionPolicy', VALIDATING_ADMISSION_POLICY_KEY_PREFIX],
  ['MutatingAdmissionPolicy', MUTATING_ADMISSION_POLICY_KEY_PREFIX],
]);

/** The key a result's policy is known by: its `policy`, prefixed for the CEL policy kinds (by `source`). */
export function resultPolicyKey(result: { readonly policy: string; readonly source: string }): string {
  return (SOURCE_KEY_PREFIXES.get(result.source) ?? '') + result.policy;
}

/** The prefixed key of a compiled CEL policy. */
function celPolicyKey(compiled: KnownCelPolicy): string {
  return CEL_KEY_PREFIXES[compiled.kind] + validatingPolicyKey(compiled);
}

const CEL_KEY_PREFIXES: Readonly<Record<KnownCelPolicy['kind'], string>> = {
  ValidatingPolicy: VALIDATING_POLICY_KEY_PREFIX,
  NamespacedValidatingPolicy: VALIDATING_POLICY_KEY_PREFIX,
  ImageValidatingPolicy: IMAGE_VALIDATING_POLICY_KEY_PREFIX,
  NamespacedImageValidatingPolicy: IMAGE_VALIDATING_POLICY_KEY_PREFIX,
  MutatingPolicy: MUTATING_POLICY_KEY_PREFIX,
  NamespacedMutatingPolicy: MUTATING_POLICY_KEY_PREFIX,
  ValidatingAdmissionPolicy: VALIDATING_ADMISSION_POLICY_KEY_PREFIX,
  MutatingAdmissionPolicy: MUTATING_ADMISSION_POLICY_KEY_PREFIX,
  GeneratingPolicy: GENERATING_POLICY_KEY_PREFIX,
  NamespacedGeneratingPolicy: GENERATING_POLICY_KEY_PREFIX,
};

const isCelKey = (key: string) => CEL_LABELS.some(([prefix]) => key.startsWith(prefix));

const combined = new WeakMap<
  readonly KnownCelPolicy[],
  { mutating: readonly KnownCelPolicy[]; generating: readonly KnownCelPolicy[]; all: readonly KnownCelPolicy[] }
>();

/**
 * Every CEL policy whose results reports hold (ValidatingPolicies, ImageValidatingPolicies,
 * MutatingPolicies, GeneratingPolicies), one array per set of the source's arrays (knownPolicy
 * caches by it).
 */
export function knownCelPolicies(source: CelPolicySource): readonly KnownCelPolicy[] {
  const validating = allCelPolicies(source);
  const mutating = source.mutatingPolicies?.() ?? NONE;
  const generating = source.generatingPolicies?.() ?? NONE;
  if (mutating.length === 0 && generating.length === 0) return validating;
  const cached = combined.get(validating);
  if (cached && cached.mutating === mutating && cached.generating === generating) return cached.all;
  const all = [...validating, ...mutating, ...generating];
  combined.set(validating, { mutating, generating, all });
  return all;
}

const NONE: readonly KnownCelPolicy[] = [];

const known = new WeakMap<CachedPolicy, KnownPolicy>();
const knownCel = new WeakMap<readonly KnownCelPolicy[], Map<string, KnownPolicy>>();

/**
 * The policy under `key` (`name` or `namespace/name`; `vpol:`-prefixed for a ValidatingPolicy of
 * `celPolicies`) in `snapshot`.
 */
export function knownPolicy(
  snapshot: PolicySnapshot,
  key: string,
  celPolicies: readonly KnownCelPolicy[] = [],
): KnownPolicy | undefined {
  if (isCelKey(key)) return celPoliciesByKey(celPolicies).get(key);
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

function celPoliciesByKey(celPolicies: readonly KnownCelPolicy[]): Map<string, KnownPolicy> {
  let byKey = knownCel.get(celPolicies);
  if (!byKey) {
    byKey = new Map();
    for (const compiled of celPolicies) {
      if (!isPolicyReportable(compiled.policy)) continue;
      const resourceVersion = compiled.policy.metadata?.resourceVersion;
      byKey.set(celPolicyKey(compiled), {
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
  celPolicies: readonly KnownCelPolicy[] = [],
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
      celPolicyKey(compiled),
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

/** The key prefix and report label prefix of each CEL policy family. */
const CEL_LABELS: ReadonlyArray<readonly [string, string]> = [
  [VALIDATING_POLICY_KEY_PREFIX, LABEL_PREFIX_VALIDATING_POLICY],
  [IMAGE_VALIDATING_POLICY_KEY_PREFIX, LABEL_PREFIX_IMAGE_VALIDATING_POLICY],
  [MUTATING_POLICY_KEY_PREFIX, LABEL_PREFIX_MUTATING_POLICY],
  [VALIDATING_ADMISSION_POLICY_KEY_PREFIX, LABEL_PREFIX_VALIDATING_ADMISSION_POLICY],
  [MUTATING_ADMISSION_POLICY_KEY_PREFIX, LABEL_PREFIX_MUTATING_ADMISSION_POLICY],
  [GENERATING_POLICY_KEY_PREFIX, LABEL_PREFIX_GENERATING_POLICY],
];

/** The report label naming a policy key, and where reports carrying it live (a Policy's namespace). */
export function policyLabelOf(key: string): { label: string; namespace?: string } {
  for (const [keyPrefix, labelPrefix] of CEL_LABELS) {
    if (!key.startsWith(keyPrefix)) continue;
    const path = key.slice(keyPrefix.length);
    const at = path.indexOf('/');
    return at < 0
      ? { label: labelPrefix + path }
      : { label: labelPrefix + path.slice(at + 1), namespace: path.slice(0, at) };
  }
  const slash = key.indexOf('/');
  return slash < 0
    ? { label: LABEL_PREFIX_CLUSTER_POLICY + key }
    : { label: LABEL_PREFIX_POLICY + key.slice(slash + 1), namespace: key.slice(0, slash) };
}

/** The policy key a report label names (undefined for other labels). */
export function policyKeyOfLabel(label: string, reportNamespace: string | undefined): string | undefined {
  // Kyverno labels both kinds of a CEL family alike: the label names a cluster-wide one's key.
  for (const [keyPrefix, labelPrefix] of CEL_LABELS)
    if (label.startsWith(labelPrefix)) return keyPrefix + label.slice(labelPrefix.length);
  if (label.startsWith(LABEL_PREFIX_CLUSTER_POLICY)) return label.slice(LABEL_PREFIX_CLUSTER_POLICY.length);
  if (label.startsWith(LABEL_PREFIX_POLICY) && reportNamespace)
    return `${reportNamespace}/${label.slice(LABEL_PREFIX_POLICY.length)}`;
  return undefined;
}

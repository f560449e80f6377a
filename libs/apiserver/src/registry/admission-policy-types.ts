/**
 * Which versions of `admissionregistration.k8s.io` the server serves ValidatingAdmissionPolicy and
 * MutatingAdmissionPolicy (with their bindings) in, decided as kube-apiserver decides it from its
 * Kubernetes version, `--runtime-config` and `--feature-gates` (what a kind cluster configuration sets:
 * Kyverno's CI runs its admission-policy tests on `vap-v1alpha1.yaml` and `vap-v1beta1.yaml`).
 *
 * ValidatingAdmissionPolicy: v1 from 1.30 (on by default); v1beta1 (1.28+) and v1alpha1 (1.26+)
 * only when the runtime config enables them. MutatingAdmissionPolicy: v1alpha1 from 1.32 and v1beta1
 * from 1.34, each when the runtime config enables the version and the `MutatingAdmissionPolicy` gate
 * is on; v1 from 1.36, where the gate is on by default.
 */
import { STANDARD_VERBS, type ResourceType } from './resource-type';

/** How the API server is set up, as a kind cluster configuration sets kube-apiserver. */
export interface ApiServerSettings {
  /** The Kubernetes minor version whose APIs are served, `1.33` (default: the version `/version` reports). */
  readonly kubernetesVersion?: string;
  /** kube-apiserver's `--runtime-config`: `group/version` → enabled (kind's `runtimeConfig`). */
  readonly runtimeConfig?: Readonly<Record<string, boolean>>;
  /** kube-apiserver's `--feature-gates` (kind's `featureGates`). */
  readonly featureGates?: Readonly<Record<string, boolean>>;
}

export const ADMISSION_REGISTRATION_GROUP = 'admissionregistration.k8s.io';
/** The minor version `/version` reports when the settings name none. */
export const DEFAULT_KUBERNETES_MINOR = 32;

export interface AdmissionPolicyVersions {
  /** ValidatingAdmissionPolicy(Binding) versions served. */
  readonly validating: readonly string[];
  /** MutatingAdmissionPolicy(Binding) versions served. */
  readonly mutating: readonly string[];
}

/** Throws on a kubernetesVersion that is not `1.<minor>` (optionally `v`-prefixed, with a patch). */
export function kubernetesMinor(settings: ApiServerSettings): number {
  const version = settings.kubernetesVersion;
  if (version === undefined) return DEFAULT_KUBERNETES_MINOR;
  const match = /^v?1\.(\d+)(?:\.\d+)?$/.exec(version);
  if (!match) throw new Error(`apiServer.kubernetesVersion: "${version}" is not a Kubernetes 1.x version`);
  return Number(match[1]);
}

export function admissionPolicyVersions(settings: ApiServerSettings = {}): AdmissionPolicyVersions {
  const minor = kubernetesMinor(settings);
  const enabled = (version: string, byDefault: boolean): boolean =>
    settings.runtimeConfig?.[`${ADMISSION_REGISTRATION_GROUP}/${version}`] ?? byDefault;
  const validating: string[] = [];
  if (minor >= 30 && enabled('v1', true)) validating.push('v1');
  if (minor >= 28 && enabled('v1beta1', false)) validating.push('v1beta1');
  if (minor >= 26 && enabled('v1alpha1', false)) validating.push('v1alpha1');
  const gate = settings.featureGates?.['MutatingAdmissionPolicy'] ?? minor >= 36;
  const mutating: string[] = [];
  if (gate && minor >= 36 && enabled('v1', true)) mutating.push('v1');
  if (gate && minor >= 34 && enabled('v1beta1', false)) mutating.push('v1beta1');
  if (gate && minor >= 32 && enabled('v1alpha1', false)) mutating.push('v1alpha1');
  return { validating, mutating };
}

function policyType(version: string, kind: string, plural: string, status: boolean): ResourceType {
  return {
    group: ADMISSION_REGISTRATION_GROUP,
    version,
    kind,
    listKind: `${kind}List`,
    plural,
    singular: kind.toLowerCase(),
    namespaced: false,
    shortNames: [],
    categories: ['api-extensions'],
    verbs: STANDARD_VERBS,
    subresources: status ? ['status'] : [],
    tracksGeneration: true,
    builtin: true,
    selectableFields: [],
  };
}

/** The served types of the four kinds, for the registry. */
export function admissionPolicyTypes(settings: ApiServerSettings = {}): ResourceType[] {
  const { validating, mutating } = admissionPolicyVersions(settings);
  return [
    ...validating.flatMap((version) => [
      policyType(version, 'ValidatingAdmissionPolicy', 'validatingadmissionpolicies', true),
      policyType(version, 'ValidatingAdmissionPolicyBinding', 'validatingadmissionpolicybindings', false),
    ]),
    ...mutating.flatMap((version) => [
      policyType(version, 'MutatingAdmissionPolicy', 'mutatingadmissionpolicies', false),
      policyType(version, 'MutatingAdmissionPolicyBinding', 'mutatingadmissionpolicybindings', false),
    ]),
  ];
}

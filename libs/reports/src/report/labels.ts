/**
 * Kyverno's names on its intermediate reports (reports.kyverno.io/v1 EphemeralReport and
 * ClusterEphemeralReport): the resource's identity goes into labels so the reports controller can
 * find and aggregate reports per resource, `audit.kyverno.io/source` tells an admission report from
 * a background scan one, and each policy whose results are in the report is a label holding the
 * policy's resourceVersion.
 */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
/** Kyverno's value, kept so Kyverno's reports controller (and ours) treat the reports alike. */
export const MANAGED_BY_KYVERNO = 'kyverno';
export const LABEL_RESOURCE_UID = 'audit.kyverno.io/resource.uid';
export const LABEL_RESOURCE_HASH = 'audit.kyverno.io/resource.hash';
export const LABEL_RESOURCE_GVR = 'audit.kyverno.io/resource.gvr';
export const LABEL_RESOURCE_GROUP = 'audit.kyverno.io/resource.group';
export const LABEL_RESOURCE_VERSION = 'audit.kyverno.io/resource.version';
export const LABEL_RESOURCE_KIND = 'audit.kyverno.io/resource.kind';
export const LABEL_SOURCE = 'audit.kyverno.io/source';
export const SOURCE_ADMISSION = 'admission';
export const SOURCE_BACKGROUND_SCAN = 'background-scan';
/** When a background scan last evaluated every policy on the resource (RFC 3339). */
export const ANNOTATION_LAST_SCAN_TIME = 'audit.kyverno.io/last-scan-time';
export const ANNOTATION_RESOURCE_NAMESPACE = 'audit.kyverno.io/resource.namespace';
export const ANNOTATION_RESOURCE_NAME = 'audit.kyverno.io/resource.name';
export const LABEL_PREFIX_CLUSTER_POLICY = 'cpol.kyverno.io/';
export const LABEL_PREFIX_POLICY = 'pol.kyverno.io/';
/** ValidatingPolicies and NamespacedValidatingPolicies alike (Kyverno's LabelPrefixValidatingPolicy). */
export const LABEL_PREFIX_VALIDATING_POLICY = 'vpol.kyverno.io/';
/** ImageValidatingPolicies and their Namespaced form alike (Kyverno's LabelPrefixImageValidatingPolicy). */
export const LABEL_PREFIX_IMAGE_VALIDATING_POLICY = 'ivpol.kyverno.io/';
/** MutatingPolicies and their Namespaced form alike (Kyverno's LabelPrefixMutatingPolicy). */
export const LABEL_PREFIX_MUTATING_POLICY = 'mpol.kyverno.io/';
/** Kubernetes' ValidatingAdmissionPolicies (Kyverno's LabelPrefixValidatingAdmissionPolicy). */
export const LABEL_PREFIX_VALIDATING_ADMISSION_POLICY = 'validatingadmissionpolicy.apiserver.io/';
export const LABEL_PREFIX_VALIDATING_ADMISSION_POLICY_BINDING = 'validatingadmissionpolicybinding.apiserver.io/';
/** Kubernetes' MutatingAdmissionPolicies (Kyverno's LabelPrefixMutatingAdmissionPolicy). */
export const LABEL_PREFIX_MUTATING_ADMISSION_POLICY = 'mutatingadmissionpolicy.apiserver.io/';
export const LABEL_PREFIX_MUTATING_ADMISSION_POLICY_BINDING = 'mutatingadmissionpolicybinding.apiserver.io/';
/** GeneratingPolicies and their Namespaced form alike (Kyverno's LabelPrefixGeneratingPolicy). */
export const LABEL_PREFIX_GENERATING_POLICY = 'gpol.kyverno.io/';

/** The policy kinds whose results reports hold. */
export type ReportPolicyKind =
  | 'ClusterPolicy'
  | 'Policy'
  | 'ValidatingPolicy'
  | 'NamespacedValidatingPolicy'
  | 'ImageValidatingPolicy'
  | 'NamespacedImageValidatingPolicy'
  | 'MutatingPolicy'
  | 'NamespacedMutatingPolicy'
  | 'ValidatingAdmissionPolicy'
  | 'ValidatingAdmissionPolicyBinding'
  | 'MutatingAdmissionPolicy'
  | 'MutatingAdmissionPolicyBinding'
  | 'GeneratingPolicy'
  | 'NamespacedGeneratingPolicy';

export const REPORTS_API_VERSION = 'reports.kyverno.io/v1';
export const EPHEMERAL_REPORT_KIND = 'EphemeralReport';
export const CLUSTER_EPHEMERAL_REPORT_KIND = 'ClusterEphemeralReport';

/** The intermediate report kind for a resource in `namespace` (none or '': cluster-scoped). */
export function ephemeralReportKind(namespace: string | undefined): 'EphemeralReport' | 'ClusterEphemeralReport' {
  return namespace ? EPHEMERAL_REPORT_KIND : CLUSTER_EPHEMERAL_REPORT_KIND;
}

/** A group/version/resource, as in an AdmissionRequest's `resource`. */
export interface GroupVersionResource {
  group?: string;
  version: string;
  resource: string;
}

/** Label values are at most 63 characters: longer ones are left out rather than rejected by the API server. */
export function fitsLabelValue(value: string): boolean {
  return value.length <= 63;
}

/** Kyverno's gvr label value: `resource.version.group`, or `resource.version` for the core group. */
export function gvrLabel(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.version}.${gvr.group}` : `${gvr.resource}.${gvr.version}`;
}

/**
 * The label naming a policy in a report: `cpol.kyverno.io/<name>`, `pol.kyverno.io/<name>`, or
 * `vpol.kyverno.io/<name>` for a (Namespaced)ValidatingPolicy, `ivpol.kyverno.io/<name>` for a
 * (Namespaced)ImageValidatingPolicy.
 */
export function policyLabel(policy: { kind: ReportPolicyKind; name: string }): string {
  return LABEL_PREFIXES[policy.kind] + policy.name;
}

const LABEL_PREFIXES: Readonly<Record<ReportPolicyKind, string>> = {
  Policy: LABEL_PREFIX_POLICY,
  ClusterPolicy: LABEL_PREFIX_CLUSTER_POLICY,
  ValidatingPolicy: LABEL_PREFIX_VALIDATING_POLICY,
  NamespacedValidatingPolicy: LABEL_PREFIX_VALIDATING_POLICY,
  ImageValidatingPolicy: LABEL_PREFIX_IMAGE_VALIDATING_POLICY,
  NamespacedImageValidatingPolicy: LABEL_PREFIX_IMAGE_VALIDATING_POLICY,
  MutatingPolicy: LABEL_PREFIX_MUTATING_POLICY,
  NamespacedMutatingPolicy: LABEL_PREFIX_MUTATING_POLICY,
  ValidatingAdmissionPolicy: LABEL_PREFIX_VALIDATING_ADMISSION_POLICY,
  ValidatingAdmissionPolicyBinding: LABEL_PREFIX_VALIDATING_ADMISSION_POLICY_BINDING,
  MutatingAdmissionPolicy: LABEL_PREFIX_MUTATING_ADMISSION_POLICY,
  MutatingAdmissionPolicyBinding: LABEL_PREFIX_MUTATING_ADMISSION_POLICY_BINDING,
  GeneratingPolicy: LABEL_PREFIX_GENERATING_POLICY,
  NamespacedGeneratingPolicy: LABEL_PREFIX_GENERATING_POLICY,
};

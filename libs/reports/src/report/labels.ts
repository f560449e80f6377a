/**
 * Kyverno's names on admission reports (pkg/utils/report/labels.go): the resource's identity goes
 * into labels so the reports controller can find and aggregate reports per resource, and each
 * policy whose results are in the report is a label holding the policy's resourceVersion.
 */
export const LABEL_MANAGED_BY = 'app.kubernetes.io/managed-by';
/** Kyverno's value, kept so Kyverno's reports controller (and ours) treat the reports alike. */
export const MANAGED_BY_KYVERNO = 'kyverno';
export const LABEL_RESOURCE_UID = 'audit.kyverno.io/resource.uid';
export const LABEL_RESOURCE_HASH = 'audit.kyverno.io/resource.hash';
export const LABEL_RESOURCE_GVR = 'audit.kyverno.io/resource.gvr';
export const ANNOTATION_RESOURCE_NAMESPACE = 'audit.kyverno.io/resource.namespace';
export const ANNOTATION_RESOURCE_NAME = 'audit.kyverno.io/resource.name';
export const LABEL_PREFIX_CLUSTER_POLICY = 'cpol.kyverno.io/';
export const LABEL_PREFIX_POLICY = 'pol.kyverno.io/';

export const REPORTS_API_VERSION = 'kyverno.io/v1alpha2';
export const ADMISSION_REPORT_KIND = 'AdmissionReport';
export const CLUSTER_ADMISSION_REPORT_KIND = 'ClusterAdmissionReport';

/** A group/version/resource, as in an AdmissionRequest's `resource`. */
export interface GroupVersionResource {
  group?: string;
  version: string;
  resource: string;
}

/** Kyverno's gvr label value: `resource.version.group`, or `resource.version` for the core group. */
export function gvrLabel(gvr: GroupVersionResource): string {
  return gvr.group ? `${gvr.resource}.${gvr.version}.${gvr.group}` : `${gvr.resource}.${gvr.version}`;
}

/** The label naming a policy in a report: `cpol.kyverno.io/<name>` or `pol.kyverno.io/<name>`. */
export function policyLabel(policy: { kind: 'ClusterPolicy' | 'Policy'; name: string }): string {
  return (policy.kind === 'Policy' ? LABEL_PREFIX_POLICY : LABEL_PREFIX_CLUSTER_POLICY) + policy.name;
}

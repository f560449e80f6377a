/**
 * Kind helpers. Kyverno asks API discovery which kinds are cluster-scoped; Edict has no cluster at
 * policy-validation time, so it uses the built-in cluster-scoped kinds (extendable by the caller).
 */
export const DEFAULT_CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set([
  'APIService',
  'CertificateSigningRequest',
  'ClusterCleanupPolicy',
  'ClusterEphemeralReport',
  'ClusterIssuer',
  'ClusterPolicy',
  'ClusterPolicyReport',
  'ClusterRole',
  'ClusterRoleBinding',
  'ComponentStatus',
  'CSIDriver',
  'CSINode',
  'CustomResourceDefinition',
  'FlowSchema',
  'GlobalContextEntry',
  'IngressClass',
  'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding',
  'MutatingWebhookConfiguration',
  'Namespace',
  'Node',
  'PersistentVolume',
  'PodSecurityPolicy',
  'PriorityClass',
  'PriorityLevelConfiguration',
  'RuntimeClass',
  'SelfSubjectAccessReview',
  'SelfSubjectReview',
  'SelfSubjectRulesReview',
  'StorageClass',
  'SubjectAccessReview',
  'TokenReview',
  'ValidatingAdmissionPolicy',
  'ValidatingAdmissionPolicyBinding',
  'ValidatingWebhookConfiguration',
  'VolumeAttachment',
]);

/**
 * Kinds Kubernetes serves only as subresources (`deployments/scale` is an autoscaling/v1 Scale,
 * `pods/exec` a PodExecOptions...). Custom resources add none: their subresources are `status`
 * (the parent's kind) and `scale`.
 */
export const SUBRESOURCE_ONLY_KINDS: ReadonlySet<string> = new Set([
  'Eviction',
  'NodeProxyOptions',
  'PodAttachOptions',
  'PodExecOptions',
  'PodPortForwardOptions',
  'PodProxyOptions',
  'Scale',
  'ServiceProxyOptions',
  'TokenRequest',
]);

/** `apps/v1/Deployment` → `Deployment`, `Pod/status` → `Pod`, `Pod` → `Pod`. */
export function bareKind(selector: string): string {
  const segments = selector.split('/');
  return segments.find((s) => /^[A-Z*]/.test(s)) ?? segments[segments.length - 1] ?? selector;
}

export function isClusterScoped(kind: string, clusterKinds: ReadonlySet<string>): boolean {
  return clusterKinds.has(bareKind(kind));
}

/**
 * Whether a generate target (`apiVersion` and `kind`) is cluster-scoped. Kyverno looks the target up
 * as `apiVersion/Kind` only, since kinds of different groups share names (a CRD's cluster-scoped
 * Role must not make `rbac.authorization.k8s.io/v1` Role cluster-scoped); the built-in kinds are
 * known by name.
 */
export function isClusterScopedTarget(apiVersion: string, kind: string, clusterKinds: ReadonlySet<string>): boolean {
  return DEFAULT_CLUSTER_SCOPED_KINDS.has(kind) || clusterKinds.has(`${apiVersion}/${kind}`);
}

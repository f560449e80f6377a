/*
 * Kinds that live outside namespaces. Kyverno's CLI learns this from its REST mapper; without a cluster we
 * keep the built-in cluster-scoped kinds (and common cluster-scoped CRDs). Every other kind is namespaced,
 * so a resource of that kind without a namespace lands in `default`.
 */
const CLUSTER_SCOPED_KINDS = new Set([
  'APIService', 'CertificateSigningRequest', 'ClusterRole', 'ClusterRoleBinding', 'ComponentStatus', 'CSIDriver',
  'CSINode', 'CustomResourceDefinition', 'FlowSchema', 'IngressClass', 'MutatingWebhookConfiguration', 'Namespace',
  'Node', 'PersistentVolume', 'PodSecurityPolicy', 'PriorityClass', 'PriorityLevelConfiguration', 'RuntimeClass',
  'SelfSubjectAccessReview', 'SelfSubjectReview', 'SelfSubjectRulesReview', 'StorageClass', 'SubjectAccessReview',
  'TokenReview', 'ValidatingAdmissionPolicy', 'ValidatingAdmissionPolicyBinding', 'MutatingAdmissionPolicy',
  'MutatingAdmissionPolicyBinding', 'ValidatingWebhookConfiguration', 'VolumeAttachment', 'VolumeSnapshotClass',
  'VolumeSnapshotContent', 'StorageVersionMigration', 'ClusterTrustBundle', 'DeviceClass', 'IPAddress', 'ServiceCIDR',
  // Kyverno and policy reports
  'ClusterPolicy', 'ClusterPolicyReport', 'ClusterCleanupPolicy', 'ClusterEphemeralReport', 'GlobalContextEntry',
  'ValidatingPolicy', 'MutatingPolicy', 'GeneratingPolicy', 'ImageValidatingPolicy', 'DeletingPolicy',
  // Common cluster-scoped CRDs
  'ClusterIssuer', 'SecurityContextConstraints', 'ClusterImagePolicy', 'ClusterServiceVersion', 'ComputeClass',
  'NodePool', 'EC2NodeClass', 'NodeClass', 'GatewayClass', 'ClusterSecretStore', 'ClusterExternalSecret',
  'ClusterTask', 'ClusterTriggerBinding', 'ClusterInterceptor', 'ProjectRequest', 'Project', 'OAuth', 'Image',
  'ImageContentSourcePolicy', 'ClusterVersion', 'ClusterOperator', 'Infrastructure', 'Proxy', 'Network',
  'ClusterRoleTemplateBinding', 'GlobalRole', 'GlobalRoleBinding', 'ClusterWorkflowTemplate', 'MachineConfig',
  'MachineConfigPool', 'KubeletConfig', 'ClusterLogging', 'Constraint', 'ConstraintTemplate', 'Config',
]);

export function isClusterScoped(kind: string): boolean {
  return CLUSTER_SCOPED_KINDS.has(kind);
}

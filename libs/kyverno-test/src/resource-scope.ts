import { DEFAULT_CLUSTER_SCOPED_KINDS } from '@edict/engine';

/*
 * Kinds that live outside namespaces. Kyverno's CLI learns this from its REST mapper; without a cluster we
 * take the engine's built-in cluster-scoped kinds plus common cluster-scoped CRDs. Every other kind is
 * namespaced, so a resource of that kind without a namespace lands in `default`.
 */
const CLUSTER_SCOPED_CRD_KINDS = new Set([
  'VolumeSnapshotClass',
  'VolumeSnapshotContent',
  'StorageVersionMigration',
  'ClusterTrustBundle',
  'DeviceClass',
  'IPAddress',
  'ServiceCIDR',
  'ValidatingPolicy',
  'MutatingPolicy',
  'GeneratingPolicy',
  'ImageValidatingPolicy',
  'DeletingPolicy',
  'SecurityContextConstraints',
  'ClusterImagePolicy',
  'ClusterServiceVersion',
  'ComputeClass',
  'NodePool',
  'EC2NodeClass',
  'NodeClass',
  'GatewayClass',
  'ClusterSecretStore',
  'ClusterExternalSecret',
  'ClusterTask',
  'ClusterTriggerBinding',
  'ClusterInterceptor',
  'ProjectRequest',
  'Project',
  'OAuth',
  'Image',
  'ImageContentSourcePolicy',
  'ClusterVersion',
  'ClusterOperator',
  'Infrastructure',
  'Proxy',
  'Network',
  'ClusterRoleTemplateBinding',
  'GlobalRole',
  'GlobalRoleBinding',
  'ClusterWorkflowTemplate',
  'MachineConfig',
  'MachineConfigPool',
  'KubeletConfig',
  'ClusterLogging',
  'Constraint',
  'ConstraintTemplate',
  'Config',
]);

export function isClusterScoped(kind: string): boolean {
  return DEFAULT_CLUSTER_SCOPED_KINDS.has(kind) || CLUSTER_SCOPED_CRD_KINDS.has(kind);
}

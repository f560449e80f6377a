import { parseKind, hasWildcard, wildcardMatch } from '@edict/foundation';

/**
 * Kind helpers. Kyverno asks API discovery which kinds are cluster-scoped; Edict has no cluster at
 * policy-validation time, so it uses the built-in cluster-scoped kinds (extendable by the caller).
 */
/**
 * Built-in cluster-scoped kinds with the group that serves them ('' is the core group). Kyverno's own
 * kinds and cert-manager's ClusterIssuer are here too: Edict installs the first and policies name both.
 */
const BUILTIN_CLUSTER_SCOPED: ReadonlyMap<string, readonly string[]> = new Map([
  ['APIService', ['apiregistration.k8s.io']],
  ['CertificateSigningRequest', ['certificates.k8s.io']],
  ['ClusterCleanupPolicy', ['kyverno.io']],
  ['ClusterEphemeralReport', ['reports.kyverno.io']],
  ['ClusterIssuer', ['cert-manager.io']],
  ['ClusterPolicy', ['kyverno.io']],
  ['ClusterPolicyReport', ['wgpolicyk8s.io']],
  ['ClusterRole', ['rbac.authorization.k8s.io']],
  ['ClusterRoleBinding', ['rbac.authorization.k8s.io']],
  ['ComponentStatus', ['']],
  ['CSIDriver', ['storage.k8s.io']],
  ['CSINode', ['storage.k8s.io']],
  ['CustomResourceDefinition', ['apiextensions.k8s.io']],
  ['FlowSchema', ['flowcontrol.apiserver.k8s.io']],
  ['GlobalContextEntry', ['kyverno.io']],
  ['IngressClass', ['networking.k8s.io']],
  ['MutatingAdmissionPolicy', ['admissionregistration.k8s.io']],
  ['MutatingAdmissionPolicyBinding', ['admissionregistration.k8s.io']],
  ['MutatingWebhookConfiguration', ['admissionregistration.k8s.io']],
  ['Namespace', ['']],
  ['Node', ['']],
  ['PersistentVolume', ['']],
  ['PodSecurityPolicy', ['policy']],
  ['PriorityClass', ['scheduling.k8s.io']],
  ['PriorityLevelConfiguration', ['flowcontrol.apiserver.k8s.io']],
  ['RuntimeClass', ['node.k8s.io']],
  ['SelfSubjectAccessReview', ['authorization.k8s.io']],
  ['SelfSubjectReview', ['authentication.k8s.io']],
  ['SelfSubjectRulesReview', ['authorization.k8s.io']],
  ['StorageClass', ['storage.k8s.io']],
  ['SubjectAccessReview', ['authorization.k8s.io']],
  ['TokenReview', ['authentication.k8s.io']],
  ['ValidatingAdmissionPolicy', ['admissionregistration.k8s.io']],
  ['ValidatingAdmissionPolicyBinding', ['admissionregistration.k8s.io']],
  ['ValidatingWebhookConfiguration', ['admissionregistration.k8s.io']],
  ['VolumeAttachment', ['storage.k8s.io']],
]);

/** Built-in namespaced kinds with their groups (Kyverno's namespaced kinds included, as above). */
const BUILTIN_NAMESPACED: ReadonlyMap<string, readonly string[]> = new Map([
  ['Binding', ['']],
  ['CleanupPolicy', ['kyverno.io']],
  ['ConfigMap', ['']],
  ['ControllerRevision', ['apps']],
  ['CronJob', ['batch']],
  ['CSIStorageCapacity', ['storage.k8s.io']],
  ['DaemonSet', ['apps']],
  ['Deployment', ['apps']],
  ['EndpointSlice', ['discovery.k8s.io']],
  ['Endpoints', ['']],
  ['EphemeralReport', ['reports.kyverno.io']],
  ['Event', ['', 'events.k8s.io']],
  ['HorizontalPodAutoscaler', ['autoscaling']],
  ['Ingress', ['networking.k8s.io']],
  ['Job', ['batch']],
  ['Lease', ['coordination.k8s.io']],
  ['LimitRange', ['']],
  ['LocalSubjectAccessReview', ['authorization.k8s.io']],
  ['NetworkPolicy', ['networking.k8s.io']],
  ['PersistentVolumeClaim', ['']],
  ['Pod', ['']],
  ['PodDisruptionBudget', ['policy']],
  ['PodTemplate', ['']],
  ['Policy', ['kyverno.io']],
  ['PolicyException', ['kyverno.io']],
  ['PolicyReport', ['wgpolicyk8s.io']],
  ['ReplicaSet', ['apps']],
  ['ReplicationController', ['']],
  ['ResourceClaim', ['resource.k8s.io']],
  ['ResourceClaimTemplate', ['resource.k8s.io']],
  ['ResourceQuota', ['']],
  ['Role', ['rbac.authorization.k8s.io']],
  ['RoleBinding', ['rbac.authorization.k8s.io']],
  ['Secret', ['']],
  ['Service', ['']],
  ['ServiceAccount', ['']],
  ['StatefulSet', ['apps']],
  ['UpdateRequest', ['kyverno.io']],
]);

/** The built-in cluster-scoped kinds by name (a caller's list of cluster-scoped kinds starts from these). */
export const DEFAULT_CLUSTER_SCOPED_KINDS: ReadonlySet<string> = new Set(BUILTIN_CLUSTER_SCOPED.keys());

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

/**
 * Whether a `kinds` selector names a cluster-scoped kind, resolved to its group as Kyverno's discovery
 * lookup does: a kind without a group (`Pod`, `v1/Pod`) is the built-in kind of that name when
 * Kubernetes has one (the core and built-in groups come first in discovery), so a CRD of another group
 * that reuses the name (`example.com/v1` `Pod`, cluster-scoped) does not change what `Pod` means.
 * Otherwise it is a custom kind, cluster-scoped when the caller lists it (`Kind` or `group/version/Kind`).
 * A selector with a group is judged for that group only; a caller that knows custom kinds only by name
 * (no `group/version/Kind` entry for the kind) is trusted by name.
 */
export function isClusterScoped(selector: string, clusterKinds: ReadonlySet<string>): boolean {
  const { group, version, kind } = parseKind(selector);
  if (kind === '' || hasWildcard(kind)) return false;
  const builtinGroups = BUILTIN_CLUSTER_SCOPED.get(kind) ?? BUILTIN_NAMESPACED.get(kind);
  if (group === '*') {
    if (builtinGroups) return BUILTIN_CLUSTER_SCOPED.has(kind);
    return (
      clusterKinds.has(kind) || qualifiedEntries(clusterKinds, kind).some((e) => wildcardMatch(version, e.version))
    );
  }
  if (builtinGroups?.some((g) => wildcardMatch(group, g))) return BUILTIN_CLUSTER_SCOPED.has(kind);
  const qualified = qualifiedEntries(clusterKinds, kind);
  if (qualified.length > 0) {
    return qualified.some((e) => wildcardMatch(group, e.group) && wildcardMatch(version, e.version));
  }
  // Known by name only: the name decides, unless it is a built-in name (a built-in list merged in).
  return !builtinGroups && clusterKinds.has(kind);
}

/** The `group/version/Kind` entries of `clusterKinds` for `kind`. */
function qualifiedEntries(clusterKinds: ReadonlySet<string>, kind: string): Array<{ group: string; version: string }> {
  const out: Array<{ group: string; version: string }> = [];
  for (const entry of clusterKinds) {
    const parts = entry.split('/');
    if (parts.length === 3 && parts[2] === kind) out.push({ group: parts[0]!, version: parts[1]! });
  }
  return out;
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

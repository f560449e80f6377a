/**
 * The slice of Kubernetes type information that strategic merge needs: which list fields merge
 * (`patchStrategy: merge`) and by which key(s). Kyverno merges through kustomize's kyaml, which reads
 * these facts from the OpenAPI document it embeds for the built-in types (Kubernetes 1.21); kinds it
 * does not know (CRDs) get no schema at all, so every list in them is replaced, not merged.
 *
 * Only the paths that lead to mergeable lists are described: a field missing here behaves as a field
 * without patch strategy (maps merge, lists are replaced), which is what the full schema says too.
 */

/** How a list field merges. `keys` is empty for sets of primitives (`finalizers`). */
export interface ListStrategy {
  /** The `x-kubernetes-patch-strategy` text, e.g. `merge` or `merge,retainKeys`. */
  readonly strategy: string;
  /** `patchMergeKey`: the single key the Kubernetes API server merges by. */
  readonly mergeKey: string | undefined;
  /** The keys kyaml matches elements by: `x-kubernetes-list-map-keys` when declared, else the merge key. */
  readonly keys: readonly string[];
  /** Whether the strategy includes `merge` (the walker asks at every list it meets). */
  readonly merges: boolean;
}

/** A node of the schema: the fields of an object type, or the element type of a list. */
export interface SchemaNode {
  readonly fields?: Readonly<Record<string, SchemaNode>>;
  /** Set on list fields that carry a patch strategy. */
  readonly list?: ListStrategy;
  /** The schema of each element of a list field. */
  readonly items?: SchemaNode;
}

function mergeList(
  mergeKey: string | undefined,
  items?: SchemaNode,
  listMapKeys?: readonly string[],
  strategy = 'merge',
): SchemaNode {
  const keys = listMapKeys ?? (mergeKey ? [mergeKey] : []);
  return { list: { strategy, mergeKey, keys, merges: strategy.split(',').includes('merge') }, items };
}

function object(fields: Record<string, SchemaNode>): SchemaNode {
  return { fields };
}

const conditionsByType = mergeList('type');

const objectMeta = object({
  finalizers: mergeList(undefined),
  ownerReferences: mergeList('uid'),
});

const container = object({
  env: mergeList('name'),
  ports: mergeList('containerPort', undefined, ['containerPort', 'protocol']),
  volumeMounts: mergeList('mountPath'),
  volumeDevices: mergeList('devicePath'),
});

const podSpec = object({
  containers: mergeList('name', container),
  initContainers: mergeList('name', container),
  ephemeralContainers: mergeList('name', container),
  volumes: mergeList('name', undefined, undefined, 'merge,retainKeys'),
  imagePullSecrets: mergeList('name'),
  hostAliases: mergeList('ip'),
  topologySpreadConstraints: mergeList('topologyKey', undefined, ['topologyKey', 'whenUnsatisfiable']),
});

const podTemplateSpec = object({ metadata: objectMeta, spec: podSpec });

const workloadStatus = object({ conditions: conditionsByType });

function withTemplate(status?: SchemaNode): SchemaNode {
  return object({
    metadata: objectMeta,
    spec: object({ template: podTemplateSpec }),
    ...(status ? { status } : {}),
  });
}

const job = object({
  metadata: objectMeta,
  spec: object({ template: podTemplateSpec }),
  status: workloadStatus,
});

const cronJob = object({
  metadata: objectMeta,
  spec: object({ jobTemplate: object({ metadata: objectMeta, spec: object({ template: podTemplateSpec }) }) }),
});

const metadataOnly = object({ metadata: objectMeta });

/** Root schemas by `apiVersion` then `kind`, for the built-in types kyaml knows. */
const RESOURCES: Readonly<Record<string, Readonly<Record<string, SchemaNode>>>> = {
  v1: {
    Pod: object({
      metadata: objectMeta,
      spec: podSpec,
      status: object({ conditions: conditionsByType }),
    }),
    PodTemplate: object({ metadata: objectMeta, template: podTemplateSpec }),
    ReplicationController: withTemplate(workloadStatus),
    Service: object({
      metadata: objectMeta,
      spec: object({ ports: mergeList('port', undefined, ['port', 'protocol']) }),
      status: object({ conditions: mergeList('type', undefined, ['type']) }),
    }),
    ServiceAccount: object({ metadata: objectMeta, secrets: mergeList('name') }),
    Node: object({
      metadata: objectMeta,
      spec: object({ podCIDRs: mergeList(undefined) }),
      status: object({ addresses: mergeList('type'), conditions: conditionsByType }),
    }),
    Namespace: object({ metadata: objectMeta, status: object({ conditions: conditionsByType }) }),
    PersistentVolumeClaim: object({ metadata: objectMeta, status: object({ conditions: conditionsByType }) }),
    ...metadataOnlyKinds([
      'ComponentStatus',
      'ConfigMap',
      'Endpoints',
      'Event',
      'LimitRange',
      'PersistentVolume',
      'ResourceQuota',
      'Secret',
    ]),
  },
  'apps/v1': {
    Deployment: withTemplate(workloadStatus),
    ReplicaSet: withTemplate(workloadStatus),
    StatefulSet: withTemplate(workloadStatus),
    DaemonSet: withTemplate(workloadStatus),
    ...metadataOnlyKinds(['ControllerRevision']),
  },
  'batch/v1': { Job: job, CronJob: cronJob },
  'batch/v1beta1': { CronJob: cronJob },
  'policy/v1': {
    PodDisruptionBudget: object({
      metadata: objectMeta,
      status: object({ conditions: mergeList('type', undefined, ['type']) }),
    }),
  },
  'policy/v1beta1': {
    PodDisruptionBudget: object({
      metadata: objectMeta,
      status: object({ conditions: mergeList('type', undefined, ['type']) }),
    }),
    ...metadataOnlyKinds(['PodSecurityPolicy']),
  },
  'networking.k8s.io/v1': metadataOnlyKinds(['Ingress', 'IngressClass', 'NetworkPolicy']),
  'networking.k8s.io/v1beta1': metadataOnlyKinds(['Ingress', 'IngressClass']),
  'extensions/v1beta1': metadataOnlyKinds(['Ingress']),
  'rbac.authorization.k8s.io/v1': metadataOnlyKinds(['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']),
  'rbac.authorization.k8s.io/v1beta1': metadataOnlyKinds(['ClusterRole', 'ClusterRoleBinding', 'Role', 'RoleBinding']),
  'autoscaling/v1': metadataOnlyKinds(['HorizontalPodAutoscaler', 'Scale']),
  'autoscaling/v2beta1': metadataOnlyKinds(['HorizontalPodAutoscaler']),
  'autoscaling/v2beta2': metadataOnlyKinds(['HorizontalPodAutoscaler']),
  'admissionregistration.k8s.io/v1': metadataOnlyKinds([
    'MutatingWebhookConfiguration',
    'ValidatingWebhookConfiguration',
  ]),
  'admissionregistration.k8s.io/v1beta1': metadataOnlyKinds([
    'MutatingWebhookConfiguration',
    'ValidatingWebhookConfiguration',
  ]),
  'apiextensions.k8s.io/v1': metadataOnlyKinds(['CustomResourceDefinition']),
  'apiextensions.k8s.io/v1beta1': metadataOnlyKinds(['CustomResourceDefinition']),
  'apiregistration.k8s.io/v1': metadataOnlyKinds(['APIService']),
  'certificates.k8s.io/v1': metadataOnlyKinds(['CertificateSigningRequest']),
  'coordination.k8s.io/v1': metadataOnlyKinds(['Lease']),
  'discovery.k8s.io/v1': metadataOnlyKinds(['EndpointSlice']),
  'discovery.k8s.io/v1beta1': metadataOnlyKinds(['EndpointSlice']),
  'events.k8s.io/v1': metadataOnlyKinds(['Event']),
  'node.k8s.io/v1': metadataOnlyKinds(['RuntimeClass']),
  'scheduling.k8s.io/v1': metadataOnlyKinds(['PriorityClass']),
  'storage.k8s.io/v1': metadataOnlyKinds(['CSIDriver', 'CSINode', 'StorageClass', 'VolumeAttachment']),
  'storage.k8s.io/v1beta1': metadataOnlyKinds(['CSIStorageCapacity']),
};

function metadataOnlyKinds(kinds: readonly string[]): Record<string, SchemaNode> {
  return Object.fromEntries(kinds.map((kind) => [kind, metadataOnly]));
}

/** The schema kyaml would use for a resource, or `undefined` for kinds without one (CRDs). */
export function schemaForResource(apiVersion: unknown, kind: unknown): SchemaNode | undefined {
  if (typeof apiVersion !== 'string' || typeof kind !== 'string') return undefined;
  return Object.hasOwn(RESOURCES, apiVersion) && Object.hasOwn(RESOURCES[apiVersion]!, kind)
    ? RESOURCES[apiVersion]![kind]
    : undefined;
}

/** The schema of a field of an object node. */
export function fieldSchema(node: SchemaNode | undefined, field: string): SchemaNode | undefined {
  return node?.fields && Object.hasOwn(node.fields, field) ? node.fields[field] : undefined;
}

const INDEX = /^(?:\d+|-|\*)$/;

/**
 * The strategy of the list at `path` (field names; list positions such as `0`, `*` or `-` are
 * skipped), or `undefined` when the list has none and a patch replaces it.
 */
export function listStrategyFor(apiVersion: string, kind: string, path: readonly string[]): ListStrategy | undefined {
  let node = schemaForResource(apiVersion, kind);
  for (const segment of path) {
    if (!node) return undefined;
    if (INDEX.test(segment) && node.list) {
      node = node.items;
      continue;
    }
    node = node.list ? fieldSchema(node.items, segment) : fieldSchema(node, segment);
  }
  return node?.list;
}

/**
 * The Kubernetes `patchMergeKey` of the list at `path` (e.g. `name` for
 * `spec.template.spec.containers`), or `undefined` when the list is not merged by key.
 */
export function mergeKeyFor(apiVersion: string, kind: string, path: readonly string[]): string | undefined {
  return listStrategyFor(apiVersion, kind, path)?.mergeKey;
}

/** The built-in types registered at start: the ones Edict's controllers and tests use. */
import { STANDARD_VERBS, type ResourceType } from './resource-type';

interface BuiltinSpec {
  kind: string;
  plural: string;
  namespaced: boolean;
  shortNames?: string[];
  categories?: string[];
  status?: boolean;
  /** Subresources besides `status` (`scale`, `exec`...). */
  subresources?: string[];
  generation?: boolean;
  fields?: string[];
  /** Namespaces cannot be deletecollection'ed in kube. */
  verbs?: readonly string[];
}

function group(groupName: string, version: string, specs: BuiltinSpec[]): ResourceType[] {
  return specs.map((spec) => ({
    group: groupName,
    version,
    kind: spec.kind,
    listKind: `${spec.kind}List`,
    plural: spec.plural,
    singular: spec.kind.toLowerCase(),
    namespaced: spec.namespaced,
    shortNames: spec.shortNames ?? [],
    categories: spec.categories ?? [],
    verbs: spec.verbs ?? STANDARD_VERBS,
    subresources: [...(spec.status ? ['status'] : []), ...(spec.subresources ?? [])],
    tracksGeneration: spec.generation ?? false,
    builtin: true,
    selectableFields: spec.fields ?? [],
  }));
}

const POD_FIELDS = [
  'spec.nodeName',
  'spec.restartPolicy',
  'spec.schedulerName',
  'spec.serviceAccountName',
  'spec.hostNetwork',
  'status.phase',
  'status.podIP',
  'status.nominatedNodeName',
];

const EVENT_FIELDS = [
  'involvedObject.kind',
  'involvedObject.namespace',
  'involvedObject.name',
  'involvedObject.uid',
  'involvedObject.apiVersion',
  'involvedObject.resourceVersion',
  'involvedObject.fieldPath',
  'reason',
  'reportingComponent',
  'source',
  'type',
];

/** Reviews are answered, never stored. */
const CREATE_ONLY = ['create'];

const NAMESPACE_VERBS = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'];

export const BUILTIN_TYPES: readonly ResourceType[] = [
  ...group('', 'v1', [
    {
      kind: 'Namespace',
      plural: 'namespaces',
      namespaced: false,
      shortNames: ['ns'],
      status: true,
      fields: ['status.phase'],
      verbs: NAMESPACE_VERBS,
    },
    {
      kind: 'Pod',
      plural: 'pods',
      namespaced: true,
      shortNames: ['po'],
      categories: ['all'],
      status: true,
      subresources: [
        'attach',
        'binding',
        'ephemeralcontainers',
        'eviction',
        'exec',
        'log',
        'portforward',
        'proxy',
        'resize',
      ],
      fields: POD_FIELDS,
    },
    { kind: 'ConfigMap', plural: 'configmaps', namespaced: true, shortNames: ['cm'] },
    { kind: 'Secret', plural: 'secrets', namespaced: true, fields: ['type'] },
    { kind: 'Service', plural: 'services', namespaced: true, shortNames: ['svc'], categories: ['all'], status: true },
    {
      kind: 'ServiceAccount',
      plural: 'serviceaccounts',
      namespaced: true,
      shortNames: ['sa'],
      subresources: ['token'],
    },
    {
      kind: 'ReplicationController',
      plural: 'replicationcontrollers',
      namespaced: true,
      shortNames: ['rc'],
      categories: ['all'],
      status: true,
      subresources: ['scale'],
      generation: true,
    },
    { kind: 'PodTemplate', plural: 'podtemplates', namespaced: true },
    { kind: 'ResourceQuota', plural: 'resourcequotas', namespaced: true, shortNames: ['quota'], status: true },
    { kind: 'LimitRange', plural: 'limitranges', namespaced: true, shortNames: ['limits'] },
    {
      kind: 'PersistentVolumeClaim',
      plural: 'persistentvolumeclaims',
      namespaced: true,
      shortNames: ['pvc'],
      status: true,
    },
    { kind: 'PersistentVolume', plural: 'persistentvolumes', namespaced: false, shortNames: ['pv'], status: true },
    { kind: 'Event', plural: 'events', namespaced: true, shortNames: ['ev'], fields: EVENT_FIELDS },
    { kind: 'Endpoints', plural: 'endpoints', namespaced: true, shortNames: ['ep'] },
    {
      kind: 'Node',
      plural: 'nodes',
      namespaced: false,
      shortNames: ['no'],
      status: true,
      fields: ['spec.unschedulable'],
    },
  ]),
  ...group('apps', 'v1', [
    {
      kind: 'Deployment',
      plural: 'deployments',
      namespaced: true,
      shortNames: ['deploy'],
      categories: ['all'],
      status: true,
      subresources: ['scale'],
      generation: true,
    },
    {
      kind: 'DaemonSet',
      plural: 'daemonsets',
      namespaced: true,
      shortNames: ['ds'],
      categories: ['all'],
      status: true,
      generation: true,
    },
    {
      kind: 'StatefulSet',
      plural: 'statefulsets',
      namespaced: true,
      shortNames: ['sts'],
      categories: ['all'],
      status: true,
      subresources: ['scale'],
      generation: true,
    },
    {
      kind: 'ReplicaSet',
      plural: 'replicasets',
      namespaced: true,
      shortNames: ['rs'],
      categories: ['all'],
      status: true,
      subresources: ['scale'],
      generation: true,
      fields: ['status.replicas'],
    },
  ]),
  ...group('batch', 'v1', [
    {
      kind: 'Job',
      plural: 'jobs',
      namespaced: true,
      categories: ['all'],
      status: true,
      generation: true,
      fields: ['status.successful'],
    },
    {
      kind: 'CronJob',
      plural: 'cronjobs',
      namespaced: true,
      shortNames: ['cj'],
      categories: ['all'],
      status: true,
      generation: true,
    },
  ]),
  ...group('apps', 'v1', [{ kind: 'ControllerRevision', plural: 'controllerrevisions', namespaced: true }]),
  ...group('autoscaling', 'v2', [
    {
      kind: 'HorizontalPodAutoscaler',
      plural: 'horizontalpodautoscalers',
      namespaced: true,
      shortNames: ['hpa'],
      categories: ['all'],
      status: true,
    },
  ]),
  ...group('coordination.k8s.io', 'v1', [{ kind: 'Lease', plural: 'leases', namespaced: true }]),
  ...group('scheduling.k8s.io', 'v1', [
    { kind: 'PriorityClass', plural: 'priorityclasses', namespaced: false, shortNames: ['pc'] },
  ]),
  ...group('storage.k8s.io', 'v1', [
    { kind: 'StorageClass', plural: 'storageclasses', namespaced: false, shortNames: ['sc'] },
  ]),
  ...group('discovery.k8s.io', 'v1', [{ kind: 'EndpointSlice', plural: 'endpointslices', namespaced: true }]),
  ...group('node.k8s.io', 'v1', [{ kind: 'RuntimeClass', plural: 'runtimeclasses', namespaced: false }]),
  ...group('admissionregistration.k8s.io', 'v1', [
    {
      kind: 'MutatingWebhookConfiguration',
      plural: 'mutatingwebhookconfigurations',
      namespaced: false,
      categories: ['api-extensions'],
      generation: true,
    },
    {
      kind: 'ValidatingWebhookConfiguration',
      plural: 'validatingwebhookconfigurations',
      namespaced: false,
      categories: ['api-extensions'],
      generation: true,
    },
  ]),
  ...group('apiextensions.k8s.io', 'v1', [
    {
      kind: 'CustomResourceDefinition',
      plural: 'customresourcedefinitions',
      namespaced: false,
      shortNames: ['crd', 'crds'],
      categories: ['api-extensions'],
      status: true,
      generation: true,
    },
  ]),
  ...group('rbac.authorization.k8s.io', 'v1', [
    { kind: 'Role', plural: 'roles', namespaced: true },
    { kind: 'RoleBinding', plural: 'rolebindings', namespaced: true },
    { kind: 'ClusterRole', plural: 'clusterroles', namespaced: false },
    { kind: 'ClusterRoleBinding', plural: 'clusterrolebindings', namespaced: false },
  ]),
  ...group('networking.k8s.io', 'v1', [
    { kind: 'NetworkPolicy', plural: 'networkpolicies', namespaced: true, shortNames: ['netpol'], generation: true },
    { kind: 'Ingress', plural: 'ingresses', namespaced: true, shortNames: ['ing'], status: true, generation: true },
    { kind: 'IngressClass', plural: 'ingressclasses', namespaced: false },
  ]),
  ...group('policy', 'v1', [
    {
      kind: 'PodDisruptionBudget',
      plural: 'poddisruptionbudgets',
      namespaced: true,
      shortNames: ['pdb'],
      status: true,
      generation: true,
    },
  ]),
  ...group('authorization.k8s.io', 'v1', [
    { kind: 'SubjectAccessReview', plural: 'subjectaccessreviews', namespaced: false, verbs: CREATE_ONLY },
    { kind: 'LocalSubjectAccessReview', plural: 'localsubjectaccessreviews', namespaced: true, verbs: CREATE_ONLY },
    { kind: 'SelfSubjectAccessReview', plural: 'selfsubjectaccessreviews', namespaced: false, verbs: CREATE_ONLY },
    { kind: 'SelfSubjectRulesReview', plural: 'selfsubjectrulesreviews', namespaced: false, verbs: CREATE_ONLY },
  ]),
  ...group('authentication.k8s.io', 'v1', [
    { kind: 'SelfSubjectReview', plural: 'selfsubjectreviews', namespaced: false, verbs: CREATE_ONLY },
  ]),
  ...group('certificates.k8s.io', 'v1', [
    {
      kind: 'CertificateSigningRequest',
      plural: 'certificatesigningrequests',
      namespaced: false,
      shortNames: ['csr'],
      status: true,
      subresources: ['approval'],
      fields: ['spec.signerName'],
    },
  ]),
  ...group('events.k8s.io', 'v1', [{ kind: 'Event', plural: 'events', namespaced: true, shortNames: ['ev'] }]),
];

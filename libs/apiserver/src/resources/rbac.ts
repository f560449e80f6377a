/**
 * Kubernetes' RBAC authorizer, for access reviews and each request: what Roles and ClusterRoles,
 * through the bindings whose subjects match, grant the user and groups asked about. `system:masters`
 * is the superuser group, as in kube-apiserver. An aggregated ClusterRole grants the rules it holds,
 * which the controller manager's aggregation controller fills in.
 */
import { isObject, type JsonObject } from '@edict/foundation';
import type { ObjectStore } from '../store/object-store';

const RBAC = 'rbac.authorization.k8s.io';

export interface AccessQuestion {
  readonly user: string;
  readonly groups: readonly string[];
  readonly resource?: {
    readonly group: string;
    readonly resource: string;
    readonly subresource: string;
    readonly namespace: string;
    readonly name: string;
    readonly verb: string;
  };
  readonly nonResource?: { readonly path: string; readonly verb: string };
}

export interface AccessAnswer {
  readonly allowed: boolean;
  readonly reason: string;
}

export function authorizeWithRbac(store: ObjectStore, question: AccessQuestion): AccessAnswer {
  if (question.groups.includes('system:masters')) return { allowed: true, reason: '' };
  const namespace = question.resource?.namespace ?? '';
  const bindings = [
    ...store.list(`${RBAC}/clusterrolebindings`),
    ...(namespace ? store.list(`${RBAC}/rolebindings`, namespace) : []),
  ];
  for (const binding of bindings) {
    const subject = arrayOf(binding.subjects).find((s) => subjectMatches(s, binding, question));
    if (!subject) continue;
    const roleRef = isObject(binding.roleRef) ? binding.roleRef : {};
    const rules = rulesOf(store, roleRef, metadataOf(binding).namespace);
    if (rules.some((rule) => ruleAllows(rule, question))) {
      const bindingKind = metadataOf(binding).namespace ? 'RoleBinding' : 'ClusterRoleBinding';
      return {
        allowed: true,
        reason: `RBAC: allowed by ${bindingKind} "${bindingName(binding)}" of ${String(roleRef.kind)} "${String(roleRef.name)}" to ${subjectName(subject)}`,
      };
    }
  }
  return { allowed: false, reason: '' };
}

const BOOTSTRAP_METADATA = {
  labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
  annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' },
};
const PUBLIC_INFO_URLS = ['/healthz', '/livez', '/readyz', '/version', '/version/'];

function bootstrapRole(name: string, rules: JsonObject[]): JsonObject {
  return { apiVersion: `${RBAC}/v1`, kind: 'ClusterRole', metadata: { name, ...BOOTSTRAP_METADATA }, rules };
}

/** A ClusterRoleBinding of `role` to groups (named after the role unless said otherwise). */
function bootstrapBinding(
  role: string,
  groups: string[],
  name = role,
  metadata: JsonObject = BOOTSTRAP_METADATA,
): JsonObject {
  return {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: { name, ...metadata },
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: role },
    subjects: groups.map((group) => ({ apiGroup: RBAC, kind: 'Group', name: group })),
  };
}

const READ = ['get', 'list', 'watch'];

/**
 * kube's read-only user-facing role: `view` aggregates every ClusterRole labelled
 * `aggregate-to-view`, starting with `system:aggregate-to-view` (the workload kinds, not Secrets).
 */
const VIEW_ROLES: JsonObject[] = [
  {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: {
      name: 'view',
      ...BOOTSTRAP_METADATA,
      labels: { ...BOOTSTRAP_METADATA.labels, 'rbac.authorization.k8s.io/aggregate-to-edit': 'true' },
    },
    aggregationRule: {
      clusterRoleSelectors: [{ matchLabels: { 'rbac.authorization.k8s.io/aggregate-to-view': 'true' } }],
    },
  },
  {
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRole',
    metadata: {
      name: 'system:aggregate-to-view',
      ...BOOTSTRAP_METADATA,
      labels: { ...BOOTSTRAP_METADATA.labels, 'rbac.authorization.k8s.io/aggregate-to-view': 'true' },
    },
    rules: [
      {
        apiGroups: [''],
        resources: [
          'bindings',
          'configmaps',
          'endpoints',
          'events',
          'limitranges',
          'namespaces',
          'namespaces/status',
          'persistentvolumeclaims',
          'persistentvolumeclaims/status',
          'pods',
          'pods/log',
          'pods/status',
          'replicationcontrollers',
          'replicationcontrollers/scale',
          'replicationcontrollers/status',
          'resourcequotas',
          'resourcequotas/status',
          'serviceaccounts',
          'services',
          'services/status',
        ],
        verbs: READ,
      },
      {
        apiGroups: ['apps'],
        resources: [
          'controllerrevisions',
          'daemonsets',
          'daemonsets/status',
          'deployments',
          'deployments/scale',
          'deployments/status',
          'replicasets',
          'replicasets/scale',
          'replicasets/status',
          'statefulsets',
          'statefulsets/scale',
          'statefulsets/status',
        ],
        verbs: READ,
      },
      {
        apiGroups: ['autoscaling'],
        resources: ['horizontalpodautoscalers', 'horizontalpodautoscalers/status'],
        verbs: READ,
      },
      { apiGroups: ['batch'], resources: ['cronjobs', 'cronjobs/status', 'jobs', 'jobs/status'], verbs: READ },
      { apiGroups: ['discovery.k8s.io'], resources: ['endpointslices'], verbs: READ },
      {
        apiGroups: ['networking.k8s.io'],
        resources: ['ingresses', 'ingresses/status', 'networkpolicies'],
        verbs: READ,
      },
      { apiGroups: ['policy'], resources: ['poddisruptionbudgets', 'poddisruptionbudgets/status'], verbs: READ },
    ],
  },
];

/**
 * What kube-apiserver's RBAC bootstrap policy and kubeadm create that every request meets: the
 * superuser role (bound to kubeadm's admin group), the roles every authenticated user holds
 * (discovery, self reviews, public info) and the `view` role, so a user's roles and clusterRoles
 * read as in a cluster.
 */
export const BOOTSTRAP_RBAC: readonly JsonObject[] = [
  ...VIEW_ROLES,
  bootstrapRole('cluster-admin', [
    { apiGroups: ['*'], resources: ['*'], verbs: ['*'] },
    { nonResourceURLs: ['*'], verbs: ['*'] },
  ]),
  bootstrapRole('system:basic-user', [
    {
      apiGroups: ['authorization.k8s.io'],
      resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
      verbs: ['create'],
    },
    { apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'], verbs: ['create'] },
  ]),
  bootstrapRole('system:discovery', [
    {
      nonResourceURLs: ['/api', '/api/*', '/apis', '/apis/*', '/openapi', '/openapi/*', ...PUBLIC_INFO_URLS],
      verbs: ['get'],
    },
  ]),
  bootstrapRole('system:public-info-viewer', [{ nonResourceURLs: PUBLIC_INFO_URLS, verbs: ['get'] }]),
  bootstrapBinding('system:basic-user', ['system:authenticated']),
  bootstrapBinding('system:discovery', ['system:authenticated']),
  bootstrapBinding('system:public-info-viewer', ['system:authenticated', 'system:unauthenticated']),
  bootstrapBinding('cluster-admin', ['kubeadm:cluster-admins'], 'kubeadm:cluster-admins', {}),
];

function subjectMatches(subject: JsonObject, binding: JsonObject, question: AccessQuestion): boolean {
  const name = typeof subject.name === 'string' ? subject.name : '';
  switch (subject.kind) {
    case 'User':
      return name === question.user;
    case 'Group':
      return question.groups.includes(name);
    case 'ServiceAccount': {
      const namespace = typeof subject.namespace === 'string' ? subject.namespace : metadataOf(binding).namespace;
      return question.user === `system:serviceaccount:${namespace}:${name}`;
    }
    default:
      return false;
  }
}

/** The rules a binding's roleRef grants (a Role in the binding's namespace, or a ClusterRole). */
function rulesOf(store: ObjectStore, roleRef: JsonObject, namespace: string): JsonObject[] {
  const name = typeof roleRef.name === 'string' ? roleRef.name : '';
  if (roleRef.kind === 'Role') return arrayOf(store.get(`${RBAC}/roles`, namespace, name)?.rules);
  if (roleRef.kind !== 'ClusterRole') return [];
  return arrayOf(store.get(`${RBAC}/clusterroles`, '', name)?.rules);
}

function ruleAllows(rule: JsonObject, question: AccessQuestion): boolean {
  const verbs = strings(rule.verbs);
  if (question.nonResource) {
    const { path, verb } = question.nonResource;
    const urls = strings(rule.nonResourceURLs);
    const pathMatches = urls.some(
      (url) => url === '*' || url === path || (url.endsWith('*') && path.startsWith(url.slice(0, -1))),
    );
    return pathMatches && (verbs.includes('*') || verbs.includes(verb));
  }
  const asked = question.resource;
  if (!asked) return false;
  if (!(verbs.includes('*') || verbs.includes(asked.verb))) return false;
  const groups = strings(rule.apiGroups);
  if (!(groups.includes('*') || groups.includes(asked.group))) return false;
  const resources = strings(rule.resources);
  const full = asked.subresource ? `${asked.resource}/${asked.subresource}` : asked.resource;
  const resourceMatches =
    resources.includes('*') ||
    resources.includes(full) ||
    (asked.subresource !== '' && resources.includes(`*/${asked.subresource}`));
  if (!resourceMatches) return false;
  const names = strings(rule.resourceNames);
  return names.length === 0 || names.includes(asked.name);
}

function subjectName(subject: JsonObject): string {
  const name = String(subject.name);
  return subject.kind === 'ServiceAccount'
    ? `ServiceAccount "${name}/${String(subject.namespace)}"`
    : `${String(subject.kind)} "${name}"`;
}

function bindingName(binding: JsonObject): string {
  const metadata = metadataOf(binding);
  return metadata.namespace ? `${metadata.name}/${metadata.namespace}` : metadata.name;
}

function metadataOf(object: JsonObject): { name: string; namespace: string } {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  return {
    name: typeof metadata.name === 'string' ? metadata.name : '',
    namespace: typeof metadata.namespace === 'string' ? metadata.namespace : '',
  };
}

function strings(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : [];
}

function arrayOf(value: unknown): JsonObject[] {
  return Array.isArray(value) ? value.filter(isObject) : [];
}

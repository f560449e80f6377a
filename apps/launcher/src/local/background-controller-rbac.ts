/**
 * The background controller's RBAC as Kyverno's Helm chart grants it, named after the install:
 *  - `<install>:background-controller`, an aggregated ClusterRole gathering every ClusterRole that
 *    carries `rbac.kyverno.io/aggregate-to-background-controller: "true"` or the controller's
 *    component labels (how users and tests grant it more);
 *  - `<install>:background-controller:core`, what the controller itself reads and writes (CRDs are
 *    also listed and watched: its policy cache learns custom kinds' scopes from them), plus the
 *    kinds the chart lets it generate by default (network policies, ingresses, roles and bindings,
 *    ConfigMaps, quotas and limit ranges);
 *  - Kubernetes' `view` role, for reading triggers and sources;
 *  - a Role in its namespace for its Lease, its ConfigMap and Secrets.
 * Anything else a policy generates or mutates needs an aggregated role, as on a cluster.
 */
import type { JsonObject } from '@edict/engine';

const RBAC = 'rbac.authorization.k8s.io';
const ALL_WRITES = ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch', 'deletecollection'];
const READ = ['get', 'list', 'watch'];
const GENERATE_BY_DEFAULT = ['create', 'update', 'patch', 'delete'];

export interface BackgroundControllerIdentity {
  readonly installName: string;
  readonly namespace: string;
  /** The ServiceAccount's name (`<install>-background-controller`). */
  readonly serviceAccount: string;
  readonly leaseName: string;
  readonly configMapName: string;
}

export function backgroundControllerRbac(identity: BackgroundControllerIdentity): JsonObject[] {
  const { installName, namespace, serviceAccount } = identity;
  const role = `${installName}:background-controller`;
  const labels = {
    'app.kubernetes.io/component': 'background-controller',
    'app.kubernetes.io/instance': installName,
    'app.kubernetes.io/part-of': installName,
  };
  const subjects = [{ kind: 'ServiceAccount', name: serviceAccount, namespace }];
  const metadata = (name: string, extra: JsonObject = {}): JsonObject => ({ name, labels, ...extra });
  const clusterBinding = (name: string, roleName: string): JsonObject => ({
    apiVersion: `${RBAC}/v1`,
    kind: 'ClusterRoleBinding',
    metadata: metadata(name),
    roleRef: { apiGroup: RBAC, kind: 'ClusterRole', name: roleName },
    subjects,
  });
  return [
    {
      apiVersion: 'v1',
      kind: 'ServiceAccount',
      metadata: metadata(serviceAccount, { namespace }),
    },
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: metadata(role),
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { 'rbac.kyverno.io/aggregate-to-background-controller': 'true' } },
          { matchLabels: labels },
        ],
      },
    },
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: metadata(`${role}:core`),
      rules: [
        { apiGroups: ['apiextensions.k8s.io'], resources: ['customresourcedefinitions'], verbs: READ },
        {
          apiGroups: ['kyverno.io'],
          resources: [
            'policies',
            'policies/status',
            'clusterpolicies',
            'clusterpolicies/status',
            'policyexceptions',
            'updaterequests',
            'updaterequests/status',
            'globalcontextentries',
            'globalcontextentries/status',
          ],
          verbs: ALL_WRITES,
        },
        { apiGroups: [''], resources: ['namespaces', 'configmaps'], verbs: READ },
        {
          apiGroups: ['', 'events.k8s.io'],
          resources: ['events'],
          verbs: ['create', 'get', 'list', 'patch', 'update', 'watch'],
        },
        {
          apiGroups: ['reports.kyverno.io'],
          resources: ['ephemeralreports', 'clusterephemeralreports'],
          verbs: ALL_WRITES,
        },
        {
          apiGroups: ['networking.k8s.io'],
          resources: ['ingresses', 'ingressclasses', 'networkpolicies'],
          verbs: GENERATE_BY_DEFAULT,
        },
        { apiGroups: [RBAC], resources: ['rolebindings', 'roles'], verbs: GENERATE_BY_DEFAULT },
        { apiGroups: [''], resources: ['configmaps', 'resourcequotas', 'limitranges'], verbs: GENERATE_BY_DEFAULT },
      ],
    },
    clusterBinding(role, role),
    clusterBinding(`${role}:view`, 'view'),
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
      metadata: metadata(role, { namespace }),
      rules: [
        {
          apiGroups: [''],
          resources: ['configmaps'],
          verbs: READ,
          resourceNames: [identity.configMapName],
        },
        { apiGroups: ['coordination.k8s.io'], resources: ['leases'], verbs: ['create'] },
        {
          apiGroups: ['coordination.k8s.io'],
          resources: ['leases'],
          verbs: ['delete', 'get', 'patch', 'update'],
          resourceNames: [identity.leaseName],
        },
        { apiGroups: [''], resources: ['secrets'], verbs: READ },
      ],
    },
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'RoleBinding',
      metadata: metadata(role, { namespace }),
      roleRef: { apiGroup: RBAC, kind: 'Role', name: role },
      subjects,
    },
  ];
}

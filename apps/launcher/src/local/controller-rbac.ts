/**
 * A controller's RBAC as the Helm chart installs it (charts/edict/templates/rbac.yaml), built from the
 * same rule files (charts/edict/files/rbac/<component>.yaml), so local mode and the specs that run
 * controllers under RBAC exercise the chart's own rules:
 *  - `<install>:<component>`, an aggregated ClusterRole gathering `<install>:<component>:core` (the
 *    file's clusterRules) and any ClusterRole labelled `rbac.kyverno.io/aggregate-to-<component>`
 *    or with the component's labels (how users grant a controller what their policies manage);
 *  - Kubernetes' `view` role, for every controller but the cleanup controller;
 *  - a Role in the install namespace (the file's namespaceRules).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parse } from 'yaml';
import type { JsonObject } from '@edict/foundation';

export const CONTROLLER_COMPONENTS = [
  'admission-controller',
  'background-controller',
  'reports-controller',
  'cleanup-controller',
] as const;
export type ControllerComponent = (typeof CONTROLLER_COMPONENTS)[number];

export const RBAC_RULES_DIRECTORY = join('charts', 'edict', 'files', 'rbac');

export interface ControllerRbacScope {
  readonly installName: string;
  readonly namespace: string;
  readonly component: ControllerComponent;
  /** Kubernetes' read-only role bound beside the controller's own (the chart's `rbac.viewRoleName`). */
  readonly viewRoleName?: string;
  /**
   * The admission controller's generation flags (the chart's features.generateValidatingAdmissionPolicy
   * and generateMutatingAdmissionPolicy): on, it may write what it generates.
   */
  readonly generates?: { readonly validating: boolean; readonly mutating: boolean };
}

interface RuleFile {
  readonly clusterRules: JsonObject[];
  readonly namespaceRules: JsonObject[];
}

const RBAC = 'rbac.authorization.k8s.io';

/** The chart's ServiceAccount name for a controller: `<install>-<component>`. */
export function controllerServiceAccount(installName: string, component: ControllerComponent): string {
  return `${installName}-${component}`;
}

/** The rule file of a component, from the chart found above the working directory or this file. */
export function readControllerRules(component: ControllerComponent, directory = findRulesDirectory()): RuleFile {
  const path = join(directory, `${component}.yaml`);
  const file = parse(readFileSync(path, 'utf8')) as Partial<RuleFile> | null;
  if (!Array.isArray(file?.clusterRules) || !Array.isArray(file?.namespaceRules)) {
    throw new Error(`${path}: must hold clusterRules and namespaceRules lists`);
  }
  return { clusterRules: file.clusterRules, namespaceRules: file.namespaceRules };
}

/** The ServiceAccount and RBAC objects the chart installs for one controller. */
export function controllerRbac(scope: ControllerRbacScope, directory?: string): JsonObject[] {
  const { installName, namespace, component } = scope;
  const rules = readControllerRules(component, directory);
  const role = `${installName}:${component}`;
  const labels = {
    'app.kubernetes.io/component': component,
    'app.kubernetes.io/instance': installName,
    'app.kubernetes.io/part-of': installName,
  };
  const serviceAccount = controllerServiceAccount(installName, component);
  const subjects = [{ kind: 'ServiceAccount', name: serviceAccount, namespace }];
  const binding = (kind: 'ClusterRoleBinding' | 'RoleBinding', name: string, roleKind: string, roleName: string) => ({
    apiVersion: `${RBAC}/v1`,
    kind,
    metadata: { name, labels, ...(kind === 'RoleBinding' ? { namespace } : {}) },
    roleRef: { apiGroup: RBAC, kind: roleKind, name: roleName },
    subjects,
  });
  const objects: JsonObject[] = [
    { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: serviceAccount, namespace, labels } },
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: role, labels },
      aggregationRule: {
        clusterRoleSelectors: [
          { matchLabels: { [`rbac.kyverno.io/aggregate-to-${component}`]: 'true' } },
          { matchLabels: labels },
        ],
      },
      rules: [],
    },
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: `${role}:core`, labels },
      rules: rules.clusterRules,
    },
    binding('ClusterRoleBinding', role, 'ClusterRole', role),
  ];
  const generated = component === 'admission-controller' ? generatedKindRules(scope.generates) : [];
  if (generated.length > 0) {
    objects.push({
      apiVersion: `${RBAC}/v1`,
      kind: 'ClusterRole',
      metadata: { name: `${role}:admission-policies`, labels },
      rules: generated,
    });
  }
  if (component !== 'cleanup-controller') {
    objects.push(binding('ClusterRoleBinding', `${role}:view`, 'ClusterRole', scope.viewRoleName ?? 'view'));
  }
  objects.push(
    {
      apiVersion: `${RBAC}/v1`,
      kind: 'Role',
      metadata: { name: role, namespace, labels },
      rules: rules.namespaceRules,
    },
    binding('RoleBinding', role, 'Role', role),
  );
  return objects;
}

/** As the chart's `<install>:admission-controller:admission-policies` role: only the kinds a flag turns on. */
function generatedKindRules(generates: ControllerRbacScope['generates']): JsonObject[] {
  const verbs = ['get', 'list', 'watch', 'create', 'update', 'delete'];
  const group = 'admissionregistration.k8s.io';
  return [
    ...(generates?.validating
      ? [{ apiGroups: [group], resources: ['validatingadmissionpolicies', 'validatingadmissionpolicybindings'], verbs }]
      : []),
    ...(generates?.mutating
      ? [{ apiGroups: [group], resources: ['mutatingadmissionpolicies', 'mutatingadmissionpolicybindings'], verbs }]
      : []),
  ];
}

function findRulesDirectory(): string {
  for (const start of [process.cwd(), __dirname]) {
    let dir = resolve(start);
    for (;;) {
      const candidate = join(dir, RBAC_RULES_DIRECTORY);
      if (existsSync(candidate)) return candidate;
      const parent = resolve(dir, '..');
      if (parent === dir) break;
      dir = parent;
    }
  }
  throw new Error(`cannot find ${RBAC_RULES_DIRECTORY} above ${process.cwd()} or ${__dirname}`);
}

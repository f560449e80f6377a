/**
 * What a tenant with only namespaced rights in `team-a` can submit: a Policy of 1-3 rules (mutate,
 * mutate-existing, generate from data, clone, cloneList, foreach) and now and then a CleanupPolicy,
 * whose kinds, apiVersions, names and namespaces are literals or variables read from the trigger
 * ConfigMap's data, chosen among namespaced and cluster-scoped kinds, Kyverno's own kinds, other
 * namespaces and wildcards. Policies admission would refuse are kept: the run-time checks must
 * hold on their own (a policy stored before a stricter validation, or with variables admission
 * cannot see through).
 */
import fc from 'fast-check';
import type { JsonObject, JsonValue } from '@edict/foundation';

export const TENANT_NAMESPACE = 'team-a';
/** Namespaces other than the tenant's, each holding the same baseline objects. */
export const OTHER_NAMESPACES = ['team-b', 'kube-system'] as const;

/** Kinds the cluster serves, namespaced or not, Kyverno's among them, and one it does not serve. */
export const KINDS: ReadonlyArray<readonly [string, string]> = [
  ['v1', 'ConfigMap'],
  ['v1', 'Secret'],
  ['v1', 'Namespace'],
  ['rbac.authorization.k8s.io/v1', 'Role'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRole'],
  ['rbac.authorization.k8s.io/v1', 'ClusterRoleBinding'],
  ['networking.k8s.io/v1', 'NetworkPolicy'],
  ['kyverno.io/v1', 'Policy'],
  ['kyverno.io/v1', 'ClusterPolicy'],
  ['kyverno.io/v2', 'PolicyException'],
  ['kyverno.io/v2', 'CleanupPolicy'],
  ['kyverno.io/v2', 'ClusterCleanupPolicy'],
  ['wgpolicyk8s.io/v1alpha2', 'PolicyReport'],
  ['example.com/v1', 'Gadget'],
];

/** The trigger's data: what variables in the policy read. */
export interface TriggerData {
  readonly av: string;
  readonly k: string;
  readonly ns: string;
  readonly name: string;
}

export interface TenantCase {
  readonly policy: JsonObject;
  readonly cleanupPolicy?: JsonObject;
  readonly trigger: TriggerData;
}

const kindEntry = fc.constantFrom(...KINDS);
const namespaceValue = fc.constantFrom(TENANT_NAMESPACE, ...OTHER_NAMESPACES, '');
const nameValue = fc.constantFrom('cm-1', 'db', 'r', 'guard', 'require-team-label', 'tenant-view', 'made');

/** A value as a literal or as the variable that reads it from the trigger. */
function literalOr(literal: fc.Arbitrary<string>, variable: string): fc.Arbitrary<string> {
  return fc.oneof(
    { weight: 2, arbitrary: literal },
    { weight: 1, arbitrary: fc.constant(`{{request.object.data.${variable}}}`) },
  );
}

const apiVersionField = literalOr(
  kindEntry.map(([apiVersion]) => apiVersion),
  'av',
);
const kindField = literalOr(
  kindEntry.map(([, kind]) => kind),
  'k',
);
const namespaceField = fc.oneof(
  literalOr(namespaceValue, 'ns'),
  fc.constantFrom('*', 'team-*', '{{request.object.metadata.namespace}}'),
);
const nameField = fc.oneof(
  { weight: 3, arbitrary: literalOr(nameValue, 'name') },
  { weight: 1, arbitrary: fc.constantFrom('*', 'cm-*') },
);

/** A type as literal fields, or as one pair of variables, so that kind and apiVersion may agree. */
const typeFields: fc.Arbitrary<{ apiVersion: string; kind: string }> = fc.oneof(
  fc.record({ apiVersion: apiVersionField, kind: kindField }),
  kindEntry.map(([apiVersion, kind]) => ({ apiVersion, kind })),
  fc.constant({ apiVersion: '{{request.object.data.av}}', kind: '{{request.object.data.k}}' }),
);

/** Patches that also try to move what they patch: another namespace, another kind, no resourceVersion. */
const mutation: fc.Arbitrary<JsonObject> = fc.oneof(
  fc.constant({ patchStrategicMerge: { metadata: { labels: { owned: 'tenant' } } } }),
  namespaceField.map((namespace) => ({ patchStrategicMerge: { metadata: { namespace, labels: { moved: 'yes' } } } })),
  fc.constant({ patchStrategicMerge: { spec: { validationFailureAction: 'Audit', admission: false } } }),
  fc.tuple(namespaceField, kindField).map(([namespace, kind]) => ({
    patchesJson6902: JSON.stringify([
      { op: 'remove', path: '/metadata/resourceVersion' },
      { op: 'add', path: '/metadata/namespace', value: namespace },
      { op: 'add', path: '/kind', value: kind },
    ]),
  })),
);

const match = { any: [{ resources: { kinds: ['ConfigMap'] } }] };

const mutateRule = mutation.map((patch) => ({ match, mutate: patch }));

const target = fc
  .tuple(typeFields, fc.option(nameField, { nil: undefined }), fc.option(namespaceField, { nil: undefined }))
  .map(([type, name, namespace]) => ({
    ...type,
    ...(name !== undefined ? { name } : {}),
    ...(namespace !== undefined ? { namespace } : {}),
  }));

const mutateExistingRule = fc
  .tuple(fc.array(target, { minLength: 1, maxLength: 2 }), mutation)
  .map(([targets, patch]) => ({ match, mutate: { targets, ...patch } }));

/** A data block, now and then carrying its own kind or namespace (the data's kind wins over the rule's). */
const data: fc.Arbitrary<JsonObject> = fc
  .tuple(fc.option(kindField, { nil: undefined }), fc.option(namespaceField, { nil: undefined }))
  .map(([kind, namespace]) => ({
    ...(kind !== undefined ? { kind } : {}),
    metadata: { labels: { made: 'tenant' }, ...(namespace !== undefined ? { namespace } : {}) },
    data: { a: 'b' },
    rules: [{ apiGroups: ['*'], resources: ['*'], verbs: ['*'] }],
    spec: { rules: [] },
  }));

const generateData = fc
  .tuple(typeFields, literalOr(nameValue, 'name'), namespaceField, data, fc.boolean())
  .map(([type, name, namespace, block, synchronize]) => ({
    match,
    generate: { ...type, name, namespace, synchronize, data: block },
  }));

const generateClone = fc
  .tuple(typeFields, literalOr(nameValue, 'name'), namespaceField, namespaceField, literalOr(nameValue, 'name'))
  .map(([type, name, namespace, sourceNamespace, sourceName]) => ({
    match,
    generate: { ...type, name, namespace, clone: { namespace: sourceNamespace, name: sourceName } },
  }));

const cloneListKind = kindEntry.map(([apiVersion, kind]) => `${apiVersion}/${kind}`);
const generateCloneList = fc
  .tuple(namespaceField, namespaceField, fc.array(fc.oneof(cloneListKind, kindField), { minLength: 1, maxLength: 2 }))
  .map(([namespace, sourceNamespace, kinds]) => ({
    match,
    generate: { namespace, cloneList: { namespace: sourceNamespace, kinds } },
  }));

const generateForeach = fc.tuple(typeFields, namespaceField, data).map(([type, namespace, block]) => ({
  match,
  generate: {
    foreach: [{ list: "['one', 'two']", ...type, name: 'made-{{element}}', namespace, data: block }],
  },
}));

const rule = fc.oneof(mutateRule, mutateExistingRule, generateData, generateClone, generateCloneList, generateForeach);

const cleanupPolicy = fc
  .array(
    fc.oneof(
      kindEntry.map(([, kind]) => kind),
      cloneListKind,
      fc.constant('*'),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((kinds): JsonObject => ({
    apiVersion: 'kyverno.io/v2',
    kind: 'CleanupPolicy',
    metadata: { name: 'sweep', namespace: TENANT_NAMESPACE },
    spec: { schedule: '*/1 * * * *', match: { any: [{ resources: { kinds } }] } },
  }));

export const tenantCase: fc.Arbitrary<TenantCase> = fc
  .record({
    rules: fc.array(rule, { minLength: 1, maxLength: 3 }),
    cleanupPolicy: fc.oneof({ weight: 2, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: cleanupPolicy }),
    kind: kindEntry,
    ns: namespaceValue,
    name: nameValue,
  })
  .map(({ rules, cleanupPolicy: cleanup, kind, ns, name }) => ({
    policy: {
      apiVersion: 'kyverno.io/v1',
      kind: 'Policy',
      metadata: { name: 'escape', namespace: TENANT_NAMESPACE },
      spec: { rules: rules.map((each, index) => ({ name: `rule-${index}`, ...each }) as unknown as JsonValue) },
    },
    ...(cleanup ? { cleanupPolicy: cleanup } : {}),
    trigger: { av: kind[0], k: kind[1], ns, name },
  }));

/**
 * Every CustomResourceDefinition Edict installs (charts/edict/files/crds is generated from these by
 * `npm run chart:crds`): names, versions, printer columns, subresources, and OpenAPI schemas derived
 * from the same DSL schemas the policy checks read, so the two cannot disagree.
 */
import type { JsonObject } from '@edict/foundation';
import { exceptionSpecSchema, policySpecSchema } from '../policy/schema';
import type { Schema } from '../policy/schema-dsl';
import { toOpenApiSchema } from '../policy/schema-openapi';
import {
  celPolicyExceptionSpecSchema,
  celPolicyExceptionStatusSchema,
  validatingPolicySpecSchema,
  validatingPolicyStatusSchema,
} from './cel-policy-schemas';
import { deletingPolicySpecSchema, deletingPolicyStatusSchema } from './deleting-policy-schemas';
import { generatingPolicySpecSchema, generatingPolicyStatusSchema } from './generating-policy-schemas';
import { imageValidatingPolicySpecSchema, imageValidatingPolicyStatusSchema } from './image-validating-policy-schemas';
import { mutatingPolicySpecSchema, mutatingPolicyStatusSchema } from './mutating-policy-schemas';
import {
  cleanupPolicySpecSchema,
  cleanupPolicyStatusSchema,
  ephemeralReportSpecSchema,
  globalContextEntrySpecSchema,
  openStatus,
  policyReportFields,
  openReportFields,
  globalContextEntryStatusSchema,
  updateRequestSpecSchema,
} from './kind-schemas';

export interface PrinterColumn {
  readonly name: string;
  readonly type: 'string' | 'integer' | 'boolean' | 'date';
  readonly jsonPath: string;
  readonly priority?: number;
}

export interface CrdVersion {
  readonly name: string;
  readonly storage: boolean;
  readonly columns: readonly PrinterColumn[];
  /** The top-level fields besides apiVersion, kind and metadata. */
  readonly fields: Readonly<Record<string, Schema>>;
  readonly required?: readonly string[];
  readonly statusSubresource?: boolean;
  /**
   * Served but deprecated (`+kubebuilder:deprecatedversion`, no custom text): kube answers each
   * request with its default warning, naming the preferred newer version.
   */
  readonly deprecated?: boolean;
  /** Field paths (`.spec.x`) usable in field selectors. */
  readonly selectableFields?: readonly string[];
}

export interface CrdDefinition {
  /** The file name in charts/edict/files/crds, without `.yaml`. */
  readonly file: string;
  /** What the kind is for, written at the top of the file. */
  readonly comment: string;
  readonly group: string;
  readonly kind: string;
  readonly plural: string;
  readonly singular: string;
  readonly shortNames: readonly string[];
  readonly categories?: readonly string[];
  readonly scope: 'Cluster' | 'Namespaced';
  readonly description: string;
  readonly versions: readonly CrdVersion[];
}

const age: PrinterColumn = { name: 'AGE', type: 'date', jsonPath: '.metadata.creationTimestamp' };

const policyColumns: PrinterColumn[] = [
  { name: 'ADMISSION', type: 'boolean', jsonPath: '.spec.admission' },
  { name: 'BACKGROUND', type: 'boolean', jsonPath: '.spec.background' },
  { name: 'READY', type: 'string', jsonPath: '.status.conditions[?(@.type == "Ready")].status' },
  age,
  { name: 'FAILURE POLICY', type: 'string', jsonPath: '.spec.failurePolicy', priority: 1 },
  { name: 'VALIDATE', type: 'integer', jsonPath: '.status.rulecount.validate', priority: 1 },
  { name: 'MUTATE', type: 'integer', jsonPath: '.status.rulecount.mutate', priority: 1 },
  { name: 'GENERATE', type: 'integer', jsonPath: '.status.rulecount.generate', priority: 1 },
  { name: 'VERIFY IMAGES', type: 'integer', jsonPath: '.status.rulecount.verifyimages', priority: 1 },
  { name: 'MESSAGE', type: 'string', jsonPath: '.status.conditions[?(@.type == "Ready")].message' },
];

function policyDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'Policy' : 'ClusterPolicy';
  const plural = namespaced ? 'policies' : 'clusterpolicies';
  const version = (name: 'v1' | 'v2beta1', storage: boolean): CrdVersion => ({
    name,
    storage,
    columns: policyColumns,
    fields: {
      spec: policySpecSchema(name, namespaced),
      status: openStatus('Written by the controllers: the Ready condition, rule counts, autogen rules.'),
    },
    required: ['spec'],
    statusSubresource: true,
  });
  return {
    file: `kyverno.io_${plural}`,
    comment:
      `Kyverno's ${kind}, served as kyverno.io/v1 (stored) and v2beta1. The schema is Kyverno's (types, enums, ` +
      'required fields, defaults); what it cannot express (one operation per rule, ...) is checked by the policy ' +
      'validation webhook.',
    group: 'kyverno.io',
    kind,
    plural,
    singular: namespaced ? 'policy' : 'clusterpolicy',
    shortNames: [namespaced ? 'pol' : 'cpol'],
    categories: ['kyverno'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: namespaced
      ? 'Policy declares validation, mutation and generation rules for resources of its namespace.'
      : 'ClusterPolicy declares validation, mutation and generation rules for matching resources.',
    versions: [version('v1', true), version('v2beta1', false)],
  };
}

function cleanupDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'CleanupPolicy' : 'ClusterCleanupPolicy';
  const plural = namespaced ? 'cleanuppolicies' : 'clustercleanuppolicies';
  const version = (name: string, storage: boolean): CrdVersion => ({
    name,
    storage,
    columns: [{ name: 'SCHEDULE', type: 'string', jsonPath: '.spec.schedule' }, age],
    fields: { spec: cleanupPolicySpecSchema, status: cleanupPolicyStatusSchema },
    required: ['spec'],
    statusSubresource: true,
  });
  return {
    file: `kyverno.io_${plural}`,
    comment:
      `Kyverno's ${kind} (kyverno.io/v2, stored, and v2beta1), ${namespaced ? 'namespaced' : 'cluster-scoped'}: ` +
      'the cleanup controller deletes what it selects on its cron `schedule` and records the slot it ran in ' +
      '`status.lastExecutionTime`.',
    group: 'kyverno.io',
    kind,
    plural,
    singular: namespaced ? 'cleanuppolicy' : 'clustercleanuppolicy',
    shortNames: [namespaced ? 'cleanpol' : 'ccleanpol'],
    categories: ['kyverno'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: `${kind} deletes the resources it matches on a schedule.`,
    versions: [version('v2', true), version('v2beta1', false)],
  };
}

const exceptionVersion = (name: string, storage: boolean): CrdVersion => ({
  name,
  storage,
  columns: [age],
  fields: { spec: exceptionSpecSchema },
  required: ['spec'],
});

const gceVersion = (name: string, storage: boolean, deprecated = false): CrdVersion => ({
  name,
  storage,
  ...(deprecated ? { deprecated } : {}),
  columns: [
    age,
    { name: 'REFRESH INTERVAL', type: 'string', jsonPath: '.spec.apiCall.refreshInterval' },
    { name: 'LAST REFRESH', type: 'date', jsonPath: '.status.lastRefreshTime' },
  ],
  fields: {
    spec: globalContextEntrySpecSchema,
    status: globalContextEntryStatusSchema,
  },
  required: ['spec'],
  statusSubresource: true,
});

const resourceLabel = (name: string) => `.metadata.labels['audit\\.kyverno\\.io/${name.replace(/\./g, '\\.')}']`;
const ephemeralColumns: PrinterColumn[] = [
  { name: 'SOURCE', type: 'string', jsonPath: resourceLabel('source') },
  { name: 'GROUP', type: 'string', jsonPath: resourceLabel('resource.group') },
  { name: 'KIND', type: 'string', jsonPath: resourceLabel('resource.kind') },
  { name: 'OWNER', type: 'string', jsonPath: ".metadata.annotations['audit\\.kyverno\\.io/resource\\.name']" },
  ...(['pass', 'fail', 'warn', 'error', 'skip'] as const).map((r): PrinterColumn => ({
    name: r.toUpperCase(),
    type: 'integer',
    jsonPath: `.spec.summary.${r}`,
  })),
  age,
  { name: 'UID', type: 'string', jsonPath: resourceLabel('resource.uid'), priority: 1 },
  { name: 'HASH', type: 'string', jsonPath: resourceLabel('resource.hash'), priority: 1 },
];

function ephemeralDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'EphemeralReport' : 'ClusterEphemeralReport';
  return {
    file: `reports.kyverno.io_${kind.toLowerCase()}s`,
    comment:
      `Kyverno's ${kind} (reports.kyverno.io/v1): the results for one ${namespaced ? '' : 'cluster-scoped '}resource ` +
      'of one admission review (source admission) or of a background scan (source background-scan), merged by the ' +
      `reports controller into the resource's ${namespaced ? 'PolicyReport' : 'ClusterPolicyReport'}. Labels carry ` +
      "the resource's identity.",
    group: 'reports.kyverno.io',
    kind,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    shortNames: [namespaced ? 'ephr' : 'cephr'],
    categories: ['kyverno'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: `${kind} holds the results for one resource until the reports controller merges them.`,
    versions: [{ name: 'v1', storage: true, columns: ephemeralColumns, fields: { spec: ephemeralReportSpecSchema } }],
  };
}

function policyReportDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'PolicyReport' : 'ClusterPolicyReport';
  return {
    file: `wgpolicyk8s.io_${kind.toLowerCase()}s`,
    comment:
      `The Policy WG's ${kind} (wgpolicyk8s.io/v1alpha2) with its full schema, so a report that Policy Reporter ` +
      "could not read is refused at write; Kyverno 1.12's printer columns, all shown by default.",
    group: 'wgpolicyk8s.io',
    kind,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    shortNames: [namespaced ? 'polr' : 'cpolr'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: `${kind} holds the policy results for the resources ${namespaced ? 'of a namespace' : 'of the cluster'}.`,
    versions: [
      {
        name: 'v1alpha2',
        storage: true,
        columns: [
          { name: 'Kind', type: 'string', jsonPath: '.scope.kind' },
          { name: 'Name', type: 'string', jsonPath: '.scope.name' },
          ...(['Pass', 'Fail', 'Warn', 'Error', 'Skip'] as const).map((r): PrinterColumn => ({
            name: r,
            type: 'integer',
            jsonPath: `.summary.${r.toLowerCase()}`,
          })),
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        fields: policyReportFields,
      },
    ],
  };
}

/**
 * OpenReports' Report / ClusterReport (openreports.io/v1alpha1), which the reports controller writes
 * instead of PolicyReports with Kyverno's --openreportsEnabled: the Policy WG's fields, plus the
 * optional `configuration` (limits) of the OpenReports API, and its printer columns.
 */
function openReportDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'Report' : 'ClusterReport';
  return {
    file: `openreports.io_${kind.toLowerCase()}s`,
    comment:
      `OpenReports' ${kind} (openreports.io/v1alpha1), written instead of the ` +
      `${namespaced ? 'PolicyReport' : 'ClusterPolicyReport'} when OpenReports output is on; the same results.`,
    group: 'openreports.io',
    kind,
    plural: `${kind.toLowerCase()}s`,
    singular: kind.toLowerCase(),
    shortNames: [namespaced ? 'reps' : 'creps'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: `${kind} is the Schema for the ${kind} API`,
    versions: [
      {
        name: 'v1alpha1',
        storage: true,
        columns: [
          { name: 'Kind', type: 'string', jsonPath: '.scope.kind', priority: 1 },
          { name: 'Name', type: 'string', jsonPath: '.scope.name', priority: 1 },
          ...(['Pass', 'Fail', 'Warn', 'Error', 'Skip'] as const).map((r): PrinterColumn => ({
            name: r,
            type: 'integer',
            jsonPath: `.summary.${r.toLowerCase()}`,
          })),
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        fields: openReportFields,
      },
    ],
  };
}

/**
 * The versions of a policies.kyverno.io kind as Kyverno 1.16+ ships them: v1 served, v1beta1 stored,
 * v1alpha1 served and deprecated. The schemas are one (conversion strategy None: kube rewrites only
 * the apiVersion between them), so no conversion webhook is needed.
 */
function celPolicyVersions(make: (name: string, storage: boolean) => Omit<CrdVersion, 'name' | 'storage'>) {
  return [
    { name: 'v1', storage: false, ...make('v1', false) },
    {
      name: 'v1alpha1',
      storage: false,
      ...make('v1alpha1', false),
      deprecated: true,
    },
    { name: 'v1beta1', storage: true, ...make('v1beta1', true) },
  ];
}

const celPolicyColumns: PrinterColumn[] = [
  age,
  { name: 'READY', type: 'string', jsonPath: '.status.conditionStatus.ready' },
];

function validatingPolicyDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'NamespacedValidatingPolicy' : 'ValidatingPolicy';
  const plural = namespaced ? 'namespacedvalidatingpolicies' : 'validatingpolicies';
  return {
    file: `policies.kyverno.io_${plural}`,
    comment:
      `Kyverno's ${kind} (policies.kyverno.io/v1, stored as v1beta1, v1alpha1 deprecated): CEL validations of the ` +
      `requests and resources it matches${namespaced ? ' in its own namespace' : ''}. The policy validation webhook ` +
      'refuses CEL that does not compile or type-check; the admission controller writes status.conditionStatus ' +
      'and status.autogen.',
    group: 'policies.kyverno.io',
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [namespaced ? 'nvpol' : 'vpol'],
    categories: ['kyverno'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: `${kind} validates requests and resources with CEL expressions.`,
    versions: celPolicyVersions(() => ({
      columns: celPolicyColumns,
      fields: { spec: validatingPolicySpecSchema, status: validatingPolicyStatusSchema },
      required: ['spec'],
      statusSubresource: true,
      selectableFields: ['.spec.evaluation.mode'],
    })),
  };
}

function imageValidatingPolicyDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'NamespacedImageValidatingPolicy' : 'ImageValidatingPolicy';
  const plural = namespaced ? 'namespacedimagevalidatingpolicies' : 'imagevalidatingpolicies';
  return {
    file: `policies.kyverno.io_${plural}`,
    comment:
      `Kyverno's ${kind} (policies.kyverno.io/v1, stored as v1beta1, v1alpha1 deprecated): verifies the signatures ` +
      `and attestations of the images of the requests and resources it matches${namespaced ? ' in its own namespace' : ''}, ` +
      'with CEL checks on them; its mutating webhook pins image tags to digests. The policy validation webhook ' +
      'refuses CEL that does not compile; the admission controller writes status.conditionStatus and status.autogen.',
    group: 'policies.kyverno.io',
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [namespaced ? 'nivpol' : 'ivpol'],
    categories: ['kyverno'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: `${kind} verifies image signatures and attestations and validates images with CEL expressions.`,
    versions: celPolicyVersions(() => ({
      columns: celPolicyColumns,
      fields: { spec: imageValidatingPolicySpecSchema, status: imageValidatingPolicyStatusSchema },
      required: ['spec'],
      statusSubresource: true,
    })),
  };
}

function mutatingPolicyDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'NamespacedMutatingPolicy' : 'MutatingPolicy';
  const plural = namespaced ? 'namespacedmutatingpolicies' : 'mutatingpolicies';
  return {
    file: `policies.kyverno.io_${plural}`,
    comment:
      `Kyverno's ${kind} (policies.kyverno.io/v1, stored as v1beta1, v1alpha1 deprecated): CEL mutations ` +
      '(ApplyConfiguration or JSONPatch) of the requests it matches' +
      `${namespaced ? ' in its own namespace' : ''}, and of existing resources with evaluation.mutateExisting. ` +
      'The policy validation webhook refuses CEL that does not compile; the admission controller writes ' +
      'status.conditionStatus and status.autogen.',
    group: 'policies.kyverno.io',
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [namespaced ? 'nmpol' : 'mpol'],
    categories: ['kyverno'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: `${kind} mutates requests and existing resources with CEL expressions.`,
    versions: celPolicyVersions(() => ({
      columns: celPolicyColumns,
      fields: { spec: mutatingPolicySpecSchema, status: mutatingPolicyStatusSchema },
      required: ['spec'],
      statusSubresource: true,
      selectableFields: ['.spec.evaluation.mode'],
    })),
  };
}

function generatingPolicyDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'NamespacedGeneratingPolicy' : 'GeneratingPolicy';
  const plural = namespaced ? 'namespacedgeneratingpolicies' : 'generatingpolicies';
  return {
    file: `policies.kyverno.io_${plural}`,
    comment:
      `Kyverno's ${kind} (policies.kyverno.io/v1, stored as v1beta1, v1alpha1 deprecated): generates resources ` +
      `with CEL (generator.Apply) for the triggers it matches${namespaced ? ' in its own namespace' : ''}, run by ` +
      'the background controller; downstream kept in sync with evaluation.synchronize. The policy validation ' +
      'webhook refuses CEL that does not compile; the admission controller writes status.conditionStatus.',
    group: 'policies.kyverno.io',
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [namespaced ? 'ngpol' : 'gpol'],
    categories: ['kyverno'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: `${kind} generates resources with CEL expressions when its triggers are admitted.`,
    // Kyverno shows only AGE for generating policies.
    versions: celPolicyVersions(() => ({
      columns: [age],
      fields: { spec: generatingPolicySpecSchema, status: generatingPolicyStatusSchema },
      required: ['spec'],
      statusSubresource: true,
    })),
  };
}

function deletingPolicyDefinition(namespaced: boolean): CrdDefinition {
  const kind = namespaced ? 'NamespacedDeletingPolicy' : 'DeletingPolicy';
  const plural = namespaced ? 'namespaceddeletingpolicies' : 'deletingpolicies';
  return {
    file: `policies.kyverno.io_${plural}`,
    comment:
      `Kyverno's ${kind} (policies.kyverno.io/v1, stored as v1beta1, v1alpha1 deprecated): the cleanup controller ` +
      `deletes the resources it matches${namespaced ? ' in its own namespace' : ''} that meet its CEL conditions, on ` +
      'its cron `schedule`, and records the slot it ran in `status.lastExecutionTime`.',
    group: 'policies.kyverno.io',
    kind,
    plural,
    singular: kind.toLowerCase(),
    shortNames: [namespaced ? 'ndpol' : 'dpol'],
    categories: ['kyverno'],
    scope: namespaced ? 'Namespaced' : 'Cluster',
    description: `${kind} deletes the resources it matches on a schedule, selected with CEL conditions.`,
    versions: celPolicyVersions(() => ({
      columns: celPolicyColumns,
      fields: { spec: deletingPolicySpecSchema, status: deletingPolicyStatusSchema },
      required: ['spec'],
      statusSubresource: true,
    })),
  };
}

const celPolicyExceptionDefinition: CrdDefinition = {
  file: 'policies.kyverno.io_policyexceptions',
  comment:
    "Kyverno's CEL PolicyException (policies.kyverno.io/v1, stored as v1beta1, v1alpha1 deprecated): waives " +
    'CEL policies named in policyRefs for the requests its matchConditions select, honoured only in the ' +
    'namespaces exceptions are allowed in.',
  group: 'policies.kyverno.io',
  kind: 'PolicyException',
  plural: 'policyexceptions',
  singular: 'policyexception',
  shortNames: [],
  categories: ['kyverno'],
  scope: 'Namespaced',
  description: 'PolicyException waives CEL policies for the requests it matches.',
  versions: celPolicyVersions((name) => ({
    columns: [age],
    fields: {
      spec: celPolicyExceptionSpecSchema,
      ...(name === 'v1' ? { status: celPolicyExceptionStatusSchema } : {}),
    },
    required: ['spec'],
    statusSubresource: name === 'v1',
  })),
};

export const CRD_DEFINITIONS: readonly CrdDefinition[] = [
  cleanupDefinition(true),
  cleanupDefinition(false),
  policyDefinition(false),
  {
    file: 'kyverno.io_globalcontextentries',
    comment:
      "Kyverno's GlobalContextEntry (kyverno.io/v2beta1 stored, also served as v2 and as the deprecated v2alpha1): data every replica of the " +
      'admission controller keeps cached for `globalReference` context entries, either the objects of one ' +
      'Kubernetes resource (`kubernetesResource`) or the answer of an API call repeated every `refreshInterval` ' +
      '(`apiCall`), exactly one of the two, with optional JMESPath `projections` addressed as `entry.projection`.',
    group: 'kyverno.io',
    kind: 'GlobalContextEntry',
    plural: 'globalcontextentries',
    singular: 'globalcontextentry',
    shortNames: ['gctxentry'],
    categories: ['kyverno'],
    scope: 'Cluster',
    description: 'GlobalContextEntry caches data that policies read through globalReference context entries.',
    // Kyverno's order and flags: v2 served, v2alpha1 served and deprecated, v2beta1 stored.
    versions: [gceVersion('v2', false), gceVersion('v2alpha1', false, true), gceVersion('v2beta1', true)],
  },
  policyDefinition(true),
  {
    file: 'kyverno.io_policyexceptions',
    comment:
      "Kyverno's PolicyException: kyverno.io/v2 (stored) and v2beta1. The schema is Kyverno's; the exception " +
      'validation webhook and the policy cache judge the rest.',
    group: 'kyverno.io',
    kind: 'PolicyException',
    plural: 'policyexceptions',
    singular: 'policyexception',
    shortNames: ['polex'],
    categories: ['kyverno'],
    scope: 'Namespaced',
    description: 'PolicyException waives rules of policies for the requests and resources it matches.',
    versions: [exceptionVersion('v2', true), exceptionVersion('v2beta1', false)],
  },
  {
    file: 'kyverno.io_updaterequests',
    comment:
      "Kyverno's UpdateRequest (kyverno.io/v2): the admission controller asks the background controller to run " +
      'generate and mutate-existing rules for a trigger; the background controller records progress in `status`.',
    group: 'kyverno.io',
    kind: 'UpdateRequest',
    plural: 'updaterequests',
    singular: 'updaterequest',
    shortNames: ['ur'],
    categories: ['kyverno'],
    scope: 'Namespaced',
    description: 'UpdateRequest asks the background controller to run a generate or mutate-existing rule.',
    versions: [
      {
        name: 'v2',
        storage: true,
        columns: [
          { name: 'Policy', type: 'string', jsonPath: '.spec.policy' },
          { name: 'RuleType', type: 'string', jsonPath: '.spec.requestType' },
          { name: 'ResourceKind', type: 'string', jsonPath: '.spec.resource.kind' },
          { name: 'ResourceName', type: 'string', jsonPath: '.spec.resource.name' },
          { name: 'ResourceNamespace', type: 'string', jsonPath: '.spec.resource.namespace' },
          { name: 'status', type: 'string', jsonPath: '.status.state' },
          { name: 'Age', type: 'date', jsonPath: '.metadata.creationTimestamp' },
        ],
        fields: {
          spec: updateRequestSpecSchema,
          status: openStatus('Written by the background controller: state, message, generated resources.'),
        },
        statusSubresource: true,
      },
    ],
  },
  openReportDefinition(false),
  openReportDefinition(true),
  deletingPolicyDefinition(false),
  generatingPolicyDefinition(false),
  imageValidatingPolicyDefinition(false),
  mutatingPolicyDefinition(false),
  deletingPolicyDefinition(true),
  generatingPolicyDefinition(true),
  imageValidatingPolicyDefinition(true),
  mutatingPolicyDefinition(true),
  validatingPolicyDefinition(true),
  celPolicyExceptionDefinition,
  validatingPolicyDefinition(false),
  ephemeralDefinition(false),
  ephemeralDefinition(true),
  policyReportDefinition(false),
  policyReportDefinition(true),
];

/** The CustomResourceDefinition object of one definition. */
export function customResourceDefinition(definition: CrdDefinition): JsonObject {
  const names: JsonObject = {
    kind: definition.kind,
    listKind: `${definition.kind}List`,
    plural: definition.plural,
    singular: definition.singular,
    ...(definition.shortNames.length > 0 ? { shortNames: [...definition.shortNames] } : {}),
  };
  if (definition.categories) names.categories = [...definition.categories];
  return {
    apiVersion: 'apiextensions.k8s.io/v1',
    kind: 'CustomResourceDefinition',
    metadata: {
      name: `${definition.plural}.${definition.group}`,
      labels: { 'app.kubernetes.io/part-of': 'edict' },
    },
    spec: {
      group: definition.group,
      scope: definition.scope,
      names,
      versions: definition.versions.map((version) => ({
        name: version.name,
        served: true,
        storage: version.storage,
        ...(version.statusSubresource ? { subresources: { status: {} } } : {}),
        ...(version.deprecated ? { deprecated: true } : {}),
        additionalPrinterColumns: version.columns.map((column) => ({ ...column })),
        schema: { openAPIV3Schema: rootSchema(definition, version) },
        ...(version.selectableFields
          ? { selectableFields: version.selectableFields.map((jsonPath) => ({ jsonPath })) }
          : {}),
      })),
    },
  };
}

/** The schema of a version: apiVersion, kind and metadata as Kubernetes requires, then the kind's fields. */
export function rootSchema(definition: CrdDefinition, version: CrdVersion): JsonObject {
  const properties: JsonObject = {
    apiVersion: { type: 'string', description: 'The versioned schema of this object (group/version).' },
    kind: { type: 'string', description: 'The REST resource this object represents.' },
    metadata: { type: 'object' },
  };
  for (const [name, schema] of Object.entries(version.fields)) properties[name] = toOpenApiSchema(schema);
  return {
    description: definition.description,
    type: 'object',
    properties,
    ...(version.required && version.required.length > 0 ? { required: [...version.required] } : {}),
  };
}

/** Every CRD Edict installs, in file order. */
export function customResourceDefinitions(): JsonObject[] {
  return CRD_DEFINITIONS.map(customResourceDefinition);
}

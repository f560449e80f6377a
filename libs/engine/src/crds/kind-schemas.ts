/**
 * The DSL schemas of the kinds besides policies and exceptions (policy/schema.ts): cleanup policies,
 * global context entries, update requests and reports. Their CRDs are generated from these.
 */
import { DELETION_PROPAGATION_POLICIES } from '../cleanup/cleanup-policy';
import { policySchemaParts } from '../policy/schema';
import { any, arr, bool, doc, int, map, obj, str, type Schema } from '../policy/schema-dsl';
import { conditionSchema } from './cel-policy-schemas';

const { labelSelector, context, matchResources, anyAllConditions } = policySchemaParts;

/** Controllers write status; the CRD keeps whatever they write. */
export const openStatus = (description: string): Schema => obj({}, { open: true, description });

/** ClusterCleanupPolicy and CleanupPolicy (kyverno.io/v2 and v2beta1). */
export const cleanupPolicySpecSchema = obj(
  {
    schedule: str({ description: 'When to run, as a cron schedule (five fields, or a descriptor such as @hourly).' }),
    match: doc('The resources to delete.', matchResources('match')),
    exclude: doc('Resources never deleted, even when they match.', matchResources('exclude')),
    conditions: doc('Conditions each matched resource must meet to be deleted.', anyAllConditions()),
    context,
    deletionPropagationPolicy: str({
      enum: DELETION_PROPAGATION_POLICIES,
      description: 'How dependents are deleted: Foreground, Background or Orphan.',
    }),
  },
  { required: ['schedule'], description: 'What to delete and when.' },
);

export const cleanupPolicyStatusSchema = obj(
  {
    conditions: arr(any(), { description: 'Conditions of the policy.' }),
    lastExecutionTime: str({ format: 'date-time', description: 'The scheduled time of the last run.' }),
  },
  { open: true, description: 'When the policy last ran.' },
);

const requestData = obj(
  { key: str({ description: 'The key.' }), value: any({ description: 'The value.' }) },
  { required: ['key', 'value'], description: 'One entry of the POST body.' },
);

/** GlobalContextEntry (kyverno.io/v2alpha1, v2beta1): data cached for globalReference context entries. */
/** What the controllers write into a GlobalContextEntry's status (Kyverno's GlobalContextEntryStatus). */
export const globalContextEntryStatusSchema = obj(
  {
    ready: bool({ description: 'Whether the data is loaded (deprecated in favour of the Ready condition).' }),
    conditions: arr(conditionSchema, { description: 'The Ready condition: Succeeded or Failed, with why.' }),
    lastRefreshTime: str({
      format: 'date-time',
      description: 'When the entry was last refreshed successfully for the API Call.',
    }),
  },
  { description: 'Status contains globalcontextentry runtime data.' },
);

export const globalContextEntrySpecSchema = obj(
  {
    kubernetesResource: obj(
      {
        group: str({ description: 'The API group of the resource.' }),
        version: str({ description: 'The API version.' }),
        resource: str({ description: 'The resource (plural name), e.g. deployments.' }),
        namespace: str({ description: 'Only objects of this namespace (all namespaces when empty).' }),
      },
      {
        required: ['resource', 'version'],
        description: 'The objects of one Kubernetes resource, kept up to date by a watch.',
      },
    ),
    apiCall: obj(
      {
        urlPath: str({ description: 'A Kubernetes API path, as kubectl get --raw takes it.' }),
        method: str({ enum: ['GET', 'POST'], default: 'GET', description: 'GET (the default) or POST.' }),
        data: arr(requestData, { description: 'The POST body, as key/value entries.' }),
        service: obj(
          {
            url: str({ description: 'The service URL.' }),
            headers: arr(
              obj(
                { key: str({ description: 'The header name.' }), value: str({ description: 'The header value.' }) },
                { required: ['key', 'value'], description: 'One HTTP header.' },
              ),
              { description: 'HTTP headers sent with the request.' },
            ),
            caBundle: str({ description: "PEM CA bundle to verify the service's certificate." }),
          },
          { required: ['url'], description: 'A JSON web service to call instead of the API server.' },
        ),
        refreshInterval: str({
          default: '10m',
          format: 'duration',
          description: 'How often the call is repeated, as a Go duration.',
        }),
        retryLimit: int({ min: 1, default: 3, description: 'How many times a failed call is retried.' }),
      },
      { description: 'An HTTP call repeated every refreshInterval; its last answer is cached.' },
    ),
    projections: arr(
      obj(
        {
          name: str({ description: 'The projection name, addressed as <entry>.<name>.' }),
          jmesPath: str({ description: 'JMESPath applied to the cached data.' }),
        },
        { required: ['jmesPath', 'name'], description: 'A named JMESPath view of the data.' },
      ),
      { description: 'Named views of the data, computed once per refresh.' },
    ),
  },
  { oneOf: ['kubernetesResource', 'apiCall'], description: 'The data to cache: kubernetesResource or apiCall.' },
);

/** UpdateRequest (kyverno.io/v2): written and read by Edict's own controllers, kept as written. */
export const updateRequestSpecSchema = obj(
  {
    requestType: str({ description: 'mutate or generate.' }),
    policy: str({ description: 'The policy (Namespace/name for a Policy).' }),
    rule: str({ description: 'The rule.' }),
    resource: obj({}, { open: true, description: 'The trigger resource.' }),
  },
  { open: true, description: 'Which policy and rule to run for which trigger.' },
);

/** wgpolicyk8s.io/v1alpha2 reports, typed so that a report Policy Reporter could not read is refused. */
const objectReference = (description: string) =>
  obj(
    {
      apiVersion: str({ description: 'The apiVersion.' }),
      fieldPath: str({ description: 'A field inside the object.' }),
      kind: str({ description: 'The kind.' }),
      name: str({ description: 'The name.' }),
      namespace: str({ description: 'The namespace.' }),
      resourceVersion: str({ description: 'The resourceVersion.' }),
      uid: str({ description: 'The uid.' }),
    },
    { description },
  );

const RESULTS = ['pass', 'fail', 'warn', 'error', 'skip'];
export const policyReportFields: Record<string, Schema> = {
  source: str({ description: 'What produced the report.' }),
  scope: objectReference('The object the results are about (Kyverno sets it to the resource).'),
  scopeSelector: doc('Labels of the objects the results are about.', labelSelector),
  summary: obj(Object.fromEntries(RESULTS.map((r) => [r, int({ description: `How many results are ${r}.` })])), {
    description: 'How many results of each kind.',
  }),
  results: arr(
    obj(
      {
        source: str({ description: 'The engine that produced the result (kyverno).' }),
        policy: str({ description: 'The policy.' }),
        rule: str({ description: 'The rule.' }),
        category: str({ description: 'The policy category.' }),
        message: str({ description: 'What the rule said.' }),
        result: str({ enum: RESULTS, description: 'pass, fail, warn, error or skip.' }),
        scored: bool({ description: 'Whether the result counts towards a score.' }),
        severity: str({ enum: ['critical', 'high', 'low', 'medium', 'info'], description: 'The policy severity.' }),
        timestamp: obj(
          {
            seconds: int({ format: 'int64', description: 'Seconds since the epoch.' }),
            nanos: int({ format: 'int32', description: 'Nanoseconds.' }),
          },
          { required: ['nanos', 'seconds'], description: 'When the result was produced.' },
        ),
        properties: map(str(), { description: 'Extra properties.' }),
        resources: arr(objectReference('One object the result is about.'), {
          description: 'The objects the result is about.',
        }),
        resourceSelector: obj({}, { open: true, description: 'Labels of the objects the result is about.' }),
      },
      { required: ['policy'], description: 'One rule applied to one resource.' },
    ),
    { description: 'The results.' },
  ),
};

/** OpenReports' Report and ClusterReport: the Policy WG's fields and the optional `configuration` contract. */
export const openReportFields: Record<string, Schema> = {
  ...policyReportFields,
  configuration: obj(
    {
      limits: obj(
        {
          maxResults: int({ description: 'The most results the report holds.' }),
          statusFilter: arr(str({ enum: RESULTS }), { description: 'The only result types the report holds.' }),
        },
        { description: 'Limits of the report.' },
      ),
    },
    { required: ['limits'], description: 'A contract between report producers and consumers.' },
  ),
};

/** reports.kyverno.io/v1 ephemeral reports: the engine's intermediate results, kept as written. */
export const ephemeralReportSpecSchema = obj(
  {
    owner: obj({}, { open: true, description: 'The resource the results are about.' }),
    summary: obj({}, { open: true, description: 'How many results of each kind.' }),
    results: arr(any(), { description: 'The results.' }),
  },
  { open: true, description: 'Results for one resource, merged later into its policy report.' },
);

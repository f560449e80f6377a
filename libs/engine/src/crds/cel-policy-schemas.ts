/**
 * The DSL schemas of Kyverno's CEL policy family (policies.kyverno.io): ValidatingPolicy and
 * NamespacedValidatingPolicy (one spec), and the CEL PolicyException. Their CRDs are generated from
 * these, so a typo in a field name is refused by the API server (fieldValidation=Strict) as by Kyverno.
 * The types are Kubernetes' admissionregistration.k8s.io/v1 pieces (MatchResources, Validation,
 * AuditAnnotation, MatchCondition, Variable) and Kyverno's own (evaluation, autogen, webhook settings).
 * CEL itself is judged at admission by the policy validation webhook, not here.
 */
import { policySchemaParts } from '../policy/schema';
import { arr, bool, doc, int, map, obj, str, type Schema } from '../policy/schema-dsl';

const { labelSelector } = policySchemaParts;

/** kube's OperationType values ('*' is all of them). */
export const ADMISSION_OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT', '*'] as const;

export const strings = (description: string): Schema => arr(str(), { description });

const namedRuleWithOperations = obj(
  {
    apiGroups: strings("The API groups of the resources; '*' is all groups."),
    apiVersions: strings("The API versions of the resources; '*' is all versions."),
    operations: arr(str({ enum: ADMISSION_OPERATIONS }), {
      description: "The operations: CREATE, UPDATE, DELETE, CONNECT, or '*' for all.",
    }),
    resources: strings("The resources (plural names), with subresources as 'pods/status'; '*' is all resources."),
    resourceNames: strings('Names the rule is limited to; empty is every name.'),
    scope: str({
      enum: ['Cluster', 'Namespaced', '*'],
      description: "Cluster, Namespaced or '*' (the default): which scope of resources the rule matches.",
    }),
  },
  { description: 'Operations on resources, with optional names.' },
);

/** Kubernetes' MatchResources (admissionregistration.k8s.io/v1). */
export const matchResourcesSchema = obj(
  {
    namespaceSelector: doc('Matches a request by the labels of its namespace.', labelSelector),
    objectSelector: doc('Matches a request by the labels of its object (and old object).', labelSelector),
    resourceRules: arr(namedRuleWithOperations, { description: 'The operations and resources the policy applies to.' }),
    excludeResourceRules: arr(namedRuleWithOperations, {
      description: 'Operations and resources the policy never applies to; they win over resourceRules.',
    }),
    matchPolicy: str({
      enum: ['Exact', 'Equivalent'],
      description: 'Equivalent (the default) also matches a request for the same object through another version.',
    }),
  },
  { description: 'Which requests the policy applies to: all constraints must match.' },
);

/** A named CEL condition that must hold for the policy (or exception) to apply. */
export const matchConditionSchema = obj(
  {
    name: str({ description: 'A qualified name, unique in the list.' }),
    expression: str({ description: 'A CEL expression evaluating to a bool.' }),
  },
  { required: ['expression', 'name'], description: 'A CEL condition on the request.' },
);

export const validationSchema = obj(
  {
    expression: str({ description: 'A CEL expression that must evaluate to true for the request to pass.' }),
    message: str({ description: 'The message shown when the expression is false.' }),
    messageExpression: str({ description: 'A CEL expression giving the message (a string) when the check fails.' }),
    reason: str({ description: 'The reason returned when the check fails (Unauthorized, Forbidden, Invalid, ...).' }),
  },
  { required: ['expression'], description: 'One CEL check.' },
);

export const auditAnnotationSchema = obj(
  {
    key: str({ description: 'The audit annotation key (a qualified name of at most 63 bytes).' }),
    valueExpression: str({ description: 'A CEL expression giving the value (a string, or null to omit it).' }),
  },
  { required: ['key', 'valueExpression'], description: 'An audit annotation produced by a CEL expression.' },
);

export const variableSchema = obj(
  {
    name: str({ description: 'The name, read as variables.<name>.' }),
    expression: str({ description: 'A CEL expression giving the value.' }),
  },
  { required: ['expression', 'name'], description: 'A named CEL value other expressions can use.' },
);

const enabled = (what: string): Schema =>
  obj({ enabled: bool({ default: true, description: `Whether the policy runs ${what}.` }) }, { description: what });

export const evaluationSchema = obj(
  {
    mode: str({ enum: ['Kubernetes', 'JSON'], description: 'Kubernetes (the default) or JSON (any JSON payload).' }),
    admission: enabled('during admission'),
    background: enabled('in background scans'),
  },
  { description: 'Where and how the policy is evaluated.' },
);

const validatingPolicyAutogen = obj(
  {
    podControllers: obj(
      { controllers: strings('The pod controllers to generate for (e.g. deployments, cronjobs); none when empty.') },
      { description: 'Which pod controllers get generated rules.' },
    ),
    validatingAdmissionPolicy: obj(
      { enabled: bool({ description: 'Whether to generate a Kubernetes ValidatingAdmissionPolicy (default false).' }) },
      { description: 'Generating a ValidatingAdmissionPolicy from this policy.' },
    ),
  },
  { description: 'What Kyverno generates from the policy.' },
);

export const failurePolicySchema = str({
  enum: ['Ignore', 'Fail'],
  description: 'What an error (compilation, evaluation) does: Fail (the default) or Ignore.',
});

export const validationActionsSchema = arr(str({ enum: ['Deny', 'Audit', 'Warn'] }), {
  description: 'What a failed check does: Deny (the default), Audit, Warn; Deny and Warn exclude each other.',
});

export const webhookConfigurationSchema = obj(
  {
    timeoutSeconds: int({
      format: 'int32',
      description: 'The webhook timeout for this policy, 1 to 30 seconds (default 10).',
    }),
  },
  { description: 'Settings of the webhook the policy is served by.' },
);

/** The spec of ValidatingPolicy and NamespacedValidatingPolicy (v1, v1beta1 and v1alpha1 alike). */
export const validatingPolicySpecSchema = obj(
  {
    matchConstraints: matchResourcesSchema,
    matchConditions: arr(matchConditionSchema, {
      description: 'CEL conditions the request must meet (all of them) for the policy to apply; at most 64.',
    }),
    variables: arr(variableSchema, { description: 'Named CEL values, read as variables.<name> by later expressions.' }),
    validations: arr(validationSchema, { description: 'The CEL checks.' }),
    auditAnnotations: arr(auditAnnotationSchema, { description: 'Audit annotations produced by CEL expressions.' }),
    failurePolicy: failurePolicySchema,
    validationActions: validationActionsSchema,
    webhookConfiguration: webhookConfigurationSchema,
    evaluation: evaluationSchema,
    autogen: validatingPolicyAutogen,
  },
  { description: 'What the policy matches and the CEL checks it runs.' },
);

export const conditionSchema = obj(
  {
    type: str({ description: 'The condition type (WebhookConfigured, RBACPermissionsGranted, ...).' }),
    status: str({ enum: ['True', 'False', 'Unknown'], description: 'True, False or Unknown.' }),
    reason: str({ description: 'A CamelCase reason.' }),
    message: str({ description: 'Details.' }),
    lastTransitionTime: str({ format: 'date-time', description: 'When the status last changed.' }),
    observedGeneration: int({ format: 'int64', description: 'The generation the condition was written for.' }),
  },
  { required: ['lastTransitionTime', 'message', 'reason', 'status', 'type'], description: 'A metav1.Condition.' },
);

/** Kyverno's ConditionStatus, shared by the CEL policy kinds. */
export const conditionStatusSchema = obj(
  {
    ready: bool({ description: 'Whether the policy is ready to be served (every condition holds).' }),
    conditions: arr(conditionSchema, { description: 'The conditions behind readiness.' }),
    message: str({ description: 'Why a ValidatingAdmissionPolicy could not be generated; empty otherwise.' }),
  },
  { description: 'Readiness of the policy.' },
);

export const autogenTargetSchema = obj(
  {
    group: str({ description: 'The API group.' }),
    version: str({ description: 'The API version.' }),
    resource: str({ description: 'The resource (plural).' }),
    kind: str({ description: 'The kind.' }),
  },
  { required: ['kind', 'resource', 'version'], description: 'A resource a generated policy applies to.' },
);

export const validatingPolicyStatusSchema = obj(
  {
    conditionStatus: conditionStatusSchema,
    autogen: obj(
      {
        configs: map(
          obj(
            {
              targets: arr(autogenTargetSchema, { description: 'The resources the generated spec applies to.' }),
              // Kept as written: the controller writes it from the policy's own (checked) spec.
              spec: obj({}, { open: true, description: 'The generated spec.' }),
            },
            { required: ['spec', 'targets'], description: 'One generated configuration.' },
          ),
          { description: 'The generated configurations, by name (e.g. deployments, cronjobs).' },
        ),
      },
      { description: 'What autogen generated for pod controllers.' },
    ),
    generated: bool({ description: 'Whether a ValidatingAdmissionPolicy was generated from the policy.' }),
  },
  { description: 'Written by the admission controller: readiness, autogen.' },
);

/** The spec of the CEL PolicyException (policies.kyverno.io). */
export const celPolicyExceptionSpecSchema = obj(
  {
    policyRefs: arr(
      obj(
        {
          name: str({ description: 'The name of the policy.' }),
          kind: str({ description: 'The kind of the policy (ValidatingPolicy, NamespacedValidatingPolicy, ...).' }),
        },
        { required: ['kind', 'name'], description: 'A policy the exception applies to.' },
      ),
      { description: 'The policies the exception applies to.' },
    ),
    matchConditions: arr(matchConditionSchema, {
      description: 'CEL conditions a request must meet (all of them) to be excepted.',
    }),
    images: strings('Images excepted, read by policies as exceptions.allowedImages.'),
    allowedValues: strings('Values policies may allow, read as exceptions.allowedValues.'),
    reportResult: str({
      enum: ['skip', 'pass'],
      default: 'skip',
      description: 'The result reported for an excepted resource: skip (the default) or pass.',
    }),
    expiresAt: str({ format: 'date-time', description: 'When the exception stops applying (RFC 3339).' }),
  },
  { required: ['policyRefs'], description: 'The policies excepted and the requests the exception covers.' },
);

export const celPolicyExceptionStatusSchema = obj(
  {
    expired: bool({ description: 'Whether expiresAt has passed (the exception no longer applies).' }),
    conditions: arr(conditionSchema, { description: 'Conditions of the exception.' }),
  },
  { description: 'Written by the controllers: expiry and conditions.' },
);

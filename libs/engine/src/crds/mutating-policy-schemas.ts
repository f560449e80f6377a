/**
 * The DSL schema of Kyverno's MutatingPolicy and NamespacedMutatingPolicy (one spec, policies.kyverno.io
 * MutatingPolicySpec): what the policy matches (matchConstraints, and targetMatchConstraints for the
 * existing resources it mutates), the mutations (Kubernetes' admissionregistration Mutation: an
 * ApplyConfiguration or a JSONPatch CEL expression), reinvocation, evaluation (admission, background,
 * mutateExisting) and autogen. Their CRDs are generated from it; CEL and the patch types are judged by
 * the policy validation webhook.
 */
import { arr, bool, map, obj, str, type Schema } from '../policy/schema-dsl';
import {
  auditAnnotationSchema,
  autogenTargetSchema,
  conditionStatusSchema,
  failurePolicySchema,
  matchConditionSchema,
  matchResourcesSchema,
  strings,
  variableSchema,
  webhookConfigurationSchema,
} from './cel-policy-schemas';

/** The patch types of Kubernetes' MutatingAdmissionPolicy (admissionregistration.k8s.io PatchType). */
export const MUTATION_PATCH_TYPES = ['ApplyConfiguration', 'JSONPatch'] as const;

const expressionHolder = (description: string, expression: string): Schema =>
  obj({ expression: str({ description: expression }) }, { description });

/** Kubernetes' Mutation: the patch type and the CEL expression producing the patch. */
export const mutationSchema = obj(
  {
    patchType: str({
      description: 'The patch strategy: ApplyConfiguration or JSONPatch. Required.',
    }),
    applyConfiguration: expressionHolder(
      'The mutation as a CEL object merged into the resource as server-side apply merges (patchType ApplyConfiguration).',
      'A CEL expression giving an Object{...} apply configuration.',
    ),
    jsonPatch: expressionHolder(
      'The mutation as RFC 6902 JSON Patch operations (patchType JSONPatch).',
      'A CEL expression giving a list of JSONPatch{op: ..., path: ..., value: ...} operations.',
    ),
  },
  { required: ['patchType'], description: 'One mutation of the matched object.' },
);

const enabled = (what: string, byDefault: boolean): Schema =>
  obj(
    { enabled: bool({ default: byDefault, description: `Whether the policy runs ${what}.` }) },
    { description: what },
  );

const mutatingPolicyEvaluation = obj(
  {
    mode: str({ enum: ['Kubernetes', 'JSON'], description: 'Kubernetes (the default) or JSON (any JSON payload).' }),
    admission: enabled('during admission', true),
    background: enabled('in background scans', true),
    mutateExisting: obj(
      {
        enabled: bool({
          default: false,
          description:
            'Whether existing resources are mutated (default false): those targetMatchConstraints selects, ' +
            'or those matchConstraints selects when it is absent.',
        }),
      },
      { description: 'Mutating existing resources, through the background controller.' },
    ),
    skipBackgroundRequests: bool({
      default: true,
      description:
        'Whether requests the background controller sends are skipped (default true); false lets them trigger mutateExisting.',
    }),
    useServerSideApply: bool({
      description:
        'Whether ApplyConfiguration patches replace atomic fields as server-side apply does (default false, as a MutatingAdmissionPolicy).',
    }),
  },
  { description: 'Where and how the policy is evaluated.' },
);

/** matchConstraints plus a CEL expression: which existing resources a mutate-existing policy patches. */
const targetMatchConstraints = obj(
  {
    expression: str({ description: 'A CEL expression selecting the targets among the matched resources.' }),
    ...(matchResourcesSchema as Extract<Schema, { type: 'object' }>).fields,
  },
  { description: 'The existing resources the policy mutates when mutateExisting is enabled.' },
);

const mutatingPolicyAutogen = obj(
  {
    podControllers: obj(
      { controllers: strings('The pod controllers to generate for (e.g. deployments, cronjobs); none when empty.') },
      { description: 'Which pod controllers get generated rules.' },
    ),
    mutatingAdmissionPolicy: obj(
      { enabled: bool({ description: 'Whether to generate a Kubernetes MutatingAdmissionPolicy (default false).' }) },
      { description: 'Generating a MutatingAdmissionPolicy from this policy.' },
    ),
  },
  { description: 'What Kyverno generates from the policy.' },
);

/** The spec of MutatingPolicy and NamespacedMutatingPolicy (v1, v1beta1 and v1alpha1 alike). */
export const mutatingPolicySpecSchema = obj(
  {
    matchConstraints: matchResourcesSchema,
    failurePolicy: failurePolicySchema,
    targetMatchConstraints,
    targetMatchConditions: arr(matchConditionSchema, {
      description: 'CEL conditions each resolved target (Object) must meet, evaluated after the variables.',
    }),
    matchConditions: arr(matchConditionSchema, {
      description: 'CEL conditions the request must meet (all of them) for the policy to apply; at most 64.',
    }),
    variables: arr(variableSchema, { description: 'Named CEL values, read as variables.<name> by later expressions.' }),
    autogen: mutatingPolicyAutogen,
    mutations: arr(mutationSchema, { description: 'The mutations, applied in order.' }),
    auditAnnotations: arr(auditAnnotationSchema, {
      description: 'CEL values attached to the policy report results as properties, after the mutations.',
    }),
    webhookConfiguration: webhookConfigurationSchema,
    evaluation: mutatingPolicyEvaluation,
    reinvocationPolicy: str({
      description:
        'Never (the default) or IfNeeded: whether the mutations run again when later mutations change the object.',
    }),
  },
  { description: 'What the policy matches and the CEL mutations it applies.' },
);

export const mutatingPolicyStatusSchema = obj(
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
    generated: bool({ description: 'Whether a MutatingAdmissionPolicy was generated from the policy.' }),
  },
  { description: 'Written by the admission controller: readiness, autogen.' },
);

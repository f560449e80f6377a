/**
 * The DSL schema of Kyverno's GeneratingPolicy and NamespacedGeneratingPolicy (one spec, policies.kyverno.io
 * GeneratingPolicySpec): the triggers it matches, the CEL `generate` expressions (at least one) that call
 * the generator library, and the evaluation settings (admission, generateExisting, synchronize,
 * orphanDownstreamOnPolicyDelete, each false unless set but admission). Their CRDs are generated from
 * it; CEL is judged by the policy validation webhook.
 */
import { arr, bool, obj, str, type Schema } from '../policy/schema-dsl';
import {
  auditAnnotationSchema,
  conditionStatusSchema,
  matchConditionSchema,
  matchResourcesSchema,
  variableSchema,
  webhookConfigurationSchema,
} from './cel-policy-schemas';

const setting = (what: string, byDefault: boolean, description: string): Schema =>
  obj({ enabled: bool({ default: byDefault, description }) }, { description: what });

const generatingPolicyEvaluation = obj(
  {
    admission: setting(
      'Evaluation during admission.',
      true,
      'Whether the policy runs during admission (default true).',
    ),
    generateExisting: setting(
      'Generating for triggers that existed before the policy.',
      false,
      'Whether the policy also runs for existing matched triggers when it is created (default false).',
    ),
    synchronize: setting(
      'Keeping generated resources in sync.',
      false,
      'Whether generated resources are kept as the policy generates them, recreated when deleted, and deleted with their trigger (default false).',
    ),
    orphanDownstreamOnPolicyDelete: setting(
      'What happens to generated resources when the policy is deleted.',
      false,
      'Whether generated resources are kept when the (synchronized) policy is deleted (default false).',
    ),
    skipBackgroundRequests: bool({
      default: true,
      description:
        'Whether requests the background controller sends are skipped (default true); false lets them trigger the policy.',
    }),
  },
  { description: 'When and how the policy is evaluated.' },
);

export const generationSchema = obj(
  {
    expression: str({
      description: 'A CEL expression, typically generator.Apply(namespace, [objects]), that generates resources.',
    }),
    template: obj(
      {
        interpolate: str({ description: 'How (( ... )) placeholders in the value are filled: cel, or not at all.' }),
        value: str({ description: 'The YAML manifest(s) to generate.' }),
      },
      { description: 'Resources written as a YAML template instead of an expression.' },
    ),
  },
  { description: 'One generation: a CEL expression or a template.' },
);

/** The spec of GeneratingPolicy and NamespacedGeneratingPolicy (v1, v1beta1 and v1alpha1 alike). */
export const generatingPolicySpecSchema = obj(
  {
    matchConstraints: matchResourcesSchema,
    matchConditions: arr(matchConditionSchema, {
      description: 'CEL conditions the trigger must meet (all of them) for the policy to apply; at most 64.',
    }),
    variables: arr(variableSchema, { description: 'Named CEL values, read as variables.<name> by later expressions.' }),
    evaluation: generatingPolicyEvaluation,
    webhookConfiguration: webhookConfigurationSchema,
    generate: arr(generationSchema, { minItems: 1, description: 'The CEL generations, at least one.' }),
    useServerSideApply: bool({
      description:
        'Whether generated resources are written with server-side apply instead of create/update (default false).',
    }),
    auditAnnotations: arr(auditAnnotationSchema, {
      description: 'CEL values attached to the policy report results as properties.',
    }),
  },
  { required: ['generate'], description: 'What triggers the policy and the CEL expressions generating resources.' },
);

export const generatingPolicyStatusSchema = obj(
  { conditionStatus: conditionStatusSchema },
  { description: 'Written by the admission controller: readiness.' },
);

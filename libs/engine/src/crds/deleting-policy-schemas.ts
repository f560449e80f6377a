/**
 * The DSL schema of Kyverno's DeletingPolicy and NamespacedDeletingPolicy (one spec, policies.kyverno.io
 * DeletingPolicySpec): the resources it matches, the CEL conditions each must meet, the cron `schedule`
 * (required) and the deletion propagation policy. Their CRDs are generated from it; CEL and the cron
 * schedule are judged by the policy validation webhook of the cleanup controller.
 */
import { arr, obj, str } from '../policy/schema-dsl';
import { DELETION_PROPAGATION_POLICIES } from '../cleanup/cleanup-policy';
import {
  conditionStatusSchema,
  matchConditionSchema,
  matchResourcesSchema,
  variableSchema,
} from './cel-policy-schemas';

/** The spec of DeletingPolicy and NamespacedDeletingPolicy (v1, v1beta1 and v1alpha1 alike). */
export const deletingPolicySpecSchema = obj(
  {
    matchConstraints: matchResourcesSchema,
    conditions: arr(matchConditionSchema, {
      description: 'CEL conditions a matched resource must meet (all of them) to be deleted; at most 64.',
    }),
    variables: arr(variableSchema, { description: 'Named CEL values, read as variables.<name> by later expressions.' }),
    schedule: str({ description: 'When to run, as a cron schedule (five fields, or a descriptor such as @hourly).' }),
    deletionPropagationPolicy: str({
      enum: DELETION_PROPAGATION_POLICIES,
      description: 'How dependents are deleted: Foreground, Background or Orphan.',
    }),
  },
  { required: ['schedule'], description: 'What the policy deletes and when.' },
);

export const deletingPolicyStatusSchema = obj(
  {
    conditionStatus: conditionStatusSchema,
    lastExecutionTime: str({ format: 'date-time', description: 'The scheduled time of the last run.' }),
  },
  { description: 'Written by the controllers: readiness and the last run.' },
);

import type { JsonObject, KubeObject } from '@edict/foundation';
import type { MatchResources } from '@edict/native-policies';

// The policies.kyverno.io API as Kyverno serves it (api/policies.kyverno.io/v1): the fields the
// ValidatingPolicy engine and the CEL PolicyException read. Objects arrive as parsed YAML/JSON, so
// every field is optional here and checked by validatingPolicyErrors.

export const POLICIES_KYVERNO_IO = 'policies.kyverno.io';

export type ValidatingPolicyKind = 'ValidatingPolicy' | 'NamespacedValidatingPolicy';

export type { MatchResources, NamedRuleWithOperations } from '@edict/native-policies';

export interface MatchCondition {
  name: string;
  expression: string;
}

export interface Variable {
  name: string;
  expression: string;
}

export interface Validation {
  expression: string;
  message?: string;
  messageExpression?: string;
  reason?: string;
}

export interface AuditAnnotation {
  key: string;
  valueExpression: string;
}

export type ValidationActionName = 'Deny' | 'Warn' | 'Audit';

export interface EvaluationConfiguration {
  mode?: 'Kubernetes' | 'JSON';
  admission?: { enabled?: boolean };
  background?: { enabled?: boolean };
}

export interface ValidatingPolicyAutogenConfiguration {
  podControllers?: { controllers?: string[] };
  validatingAdmissionPolicy?: { enabled?: boolean };
}

export interface ValidatingPolicySpec {
  matchConstraints?: MatchResources;
  validations?: Validation[];
  failurePolicy?: 'Fail' | 'Ignore';
  auditAnnotations?: AuditAnnotation[];
  matchConditions?: MatchCondition[];
  variables?: Variable[];
  autogen?: ValidatingPolicyAutogenConfiguration;
  validationActions?: ValidationActionName[];
  webhookConfiguration?: { timeoutSeconds?: number };
  evaluation?: EvaluationConfiguration;
  /** paramKind/paramRef: accepted when present (Kubernetes' ValidatingAdmissionPolicy shape). */
  paramKind?: { apiVersion?: string; kind?: string };
  paramRef?: JsonObject;
}

/** A ValidatingPolicy or NamespacedValidatingPolicy object. */
export interface ValidatingPolicyObject {
  apiVersion?: string;
  kind?: string;
  metadata?: KubeObject['metadata'];
  spec?: ValidatingPolicySpec;
}

/** One pod-controller autogen config, as Kyverno lists it in status.autogen.configs. */
export interface AutogenTarget {
  group: string;
  version: string;
  resource: string;
  kind: string;
}

export interface AutogenConfig {
  /** The config's key in status.autogen.configs (`autogen` for deployments..., `autogen-cronjobs`). */
  readonly name: string;
  readonly targets: readonly AutogenTarget[];
  /** The generated spec (matchConstraints and expressions rewritten for the controllers). */
  readonly spec: ValidatingPolicySpec;
}

export interface PolicyRef {
  name: string;
  kind: string;
}

export interface CelPolicyExceptionSpec {
  policyRefs?: PolicyRef[];
  matchConditions?: MatchCondition[];
  images?: string[];
  allowedValues?: string[];
  reportResult?: 'skip' | 'pass';
  expiresAt?: string;
}

/** A policies.kyverno.io PolicyException. */
export interface CelPolicyExceptionObject {
  apiVersion?: string;
  kind?: string;
  metadata?: KubeObject['metadata'];
  spec?: CelPolicyExceptionSpec;
}

/** A problem with a policy, where it is (`spec.validations[0].expression`) and what. */
export interface PolicyFieldError {
  field: string;
  message: string;
}

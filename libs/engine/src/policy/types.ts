import type { JsonObject, JsonValue, LabelSelector } from '@edict/foundation';

/**
 * Kyverno's classic policy API (kyverno.io/v1 and v2beta1 ClusterPolicy/Policy, kyverno.io/v2
 * PolicyException), as plain data. Field names follow the CRDs exactly so that user YAML maps 1:1.
 */

export type ValidationFailureAction = 'Enforce' | 'Audit' | 'enforce' | 'audit';

/** Another failure action for resources in the listed namespaces and/or namespaces with these labels. */
export interface FailureActionOverride {
  action: ValidationFailureAction;
  namespaces?: string[];
  namespaceSelector?: LabelSelector;
}

export interface ResourceDescription {
  kinds?: string[];
  name?: string;
  names?: string[];
  namespaces?: string[];
  annotations?: Record<string, string>;
  selector?: LabelSelector;
  namespaceSelector?: LabelSelector;
  operations?: string[];
}

export interface Subject {
  kind: string; // User | Group | ServiceAccount
  name: string;
  namespace?: string;
  apiGroup?: string;
}

export interface UserInfoFilter {
  roles?: string[];
  clusterRoles?: string[];
  subjects?: Subject[];
}

/** One entry of `match.any` / `match.all`. */
export interface ResourceFilter extends UserInfoFilter {
  resources?: ResourceDescription;
}

export interface MatchResources extends UserInfoFilter {
  any?: ResourceFilter[];
  all?: ResourceFilter[];
  /** Legacy form: a single resource description with user info beside it. */
  resources?: ResourceDescription;
}

export type ConditionOperator = string; // validated against the operator table in conditions/

export interface Condition {
  key?: JsonValue;
  operator: ConditionOperator;
  value?: JsonValue;
  message?: string;
}

export interface AnyAllConditions {
  any?: Condition[];
  all?: Condition[];
}

/** Preconditions and deny conditions accept `{any, all}` or a legacy bare list (all must hold). */
export type Conditions = AnyAllConditions | Condition[];

export interface ConfigMapReference {
  name: string;
  namespace?: string;
}

export interface ServiceCall {
  url: string;
  caBundle?: string;
  headers?: { key: string; value: string }[];
}

export interface APICall {
  urlPath?: string;
  method?: 'GET' | 'POST';
  data?: { key: string; value: JsonValue }[];
  service?: ServiceCall;
  jmesPath?: string;
  default?: JsonValue;
}

export interface GlobalContextReference {
  name: string;
  jmesPath?: string;
}

/** Which registry credentials an imageRegistry entry uses (Kyverno's ImageRegistryCredentials). */
export interface ImageRegistryCredentials {
  allowInsecureRegistry?: boolean;
  providers?: string[];
  /** Names of docker config Secrets in the controller's namespace. */
  secrets?: string[];
}

export interface ImageRegistry {
  reference: string;
  jmesPath?: string;
  imageRegistryCredentials?: ImageRegistryCredentials;
}

export interface Variable {
  value?: JsonValue;
  jmesPath?: string;
  default?: JsonValue;
}

export interface ContextEntry {
  name: string;
  configMap?: ConfigMapReference;
  apiCall?: APICall;
  globalReference?: GlobalContextReference;
  imageRegistry?: ImageRegistry;
  variable?: Variable;
}

export interface PodSecurityStandardExclude {
  controlName: string;
  images?: string[];
  restrictedField?: string;
  values?: string[];
}

export interface PodSecurity {
  level: 'privileged' | 'baseline' | 'restricted';
  version?: string;
  exclude?: PodSecurityStandardExclude[];
}

export interface ForEachValidation {
  list: string;
  elementScope?: boolean;
  context?: ContextEntry[];
  preconditions?: Conditions;
  pattern?: JsonValue;
  anyPattern?: JsonValue[];
  deny?: { conditions?: Conditions };
  foreach?: ForEachValidation[];
}

export interface Validation {
  failureAction?: ValidationFailureAction;
  failureActionOverrides?: FailureActionOverride[];
  allowExistingViolations?: boolean;
  message?: string;
  pattern?: JsonValue;
  anyPattern?: JsonValue[];
  deny?: { conditions?: Conditions };
  foreach?: ForEachValidation[];
  podSecurity?: PodSecurity;
  manifests?: JsonObject;
  cel?: CelValidation;
}

/** A CEL condition with a name (Kubernetes' MatchCondition; Kyverno's `celPreconditions`). */
export interface NamedExpression {
  name: string;
  expression: string;
}

/** Kyverno's `validate.cel`, the body of a ValidatingAdmissionPolicy. */
export interface CelValidation {
  expressions?: { expression: string; message?: string; messageExpression?: string; reason?: string }[];
  paramKind?: { apiVersion?: string; kind?: string };
  paramRef?: {
    name?: string;
    namespace?: string;
    selector?: LabelSelector;
    parameterNotFoundAction?: 'Allow' | 'Deny';
  };
  /** Not evaluated: Edict publishes no audit annotations. */
  auditAnnotations?: { key: string; valueExpression: string }[];
  variables?: NamedExpression[];
}

export interface ForEachMutation {
  list: string;
  order?: 'Ascending' | 'Descending';
  context?: ContextEntry[];
  preconditions?: Conditions;
  patchStrategicMerge?: JsonValue;
  patchesJson6902?: string;
  foreach?: ForEachMutation[];
}

export interface TargetResourceSpec {
  apiVersion: string;
  kind: string;
  name?: string;
  namespace?: string;
  selector?: LabelSelector;
  uid?: string;
  context?: ContextEntry[];
  preconditions?: Conditions;
}

export interface Mutation {
  mutateExistingOnPolicyUpdate?: boolean;
  targets?: TargetResourceSpec[];
  patchStrategicMerge?: JsonValue;
  patchesJson6902?: string;
  foreach?: ForEachMutation[];
}

export interface CloneFrom {
  namespace?: string;
  name?: string;
}

export interface CloneList {
  namespace?: string;
  kinds?: string[];
  selector?: LabelSelector;
}

export interface Generation {
  generateExisting?: boolean;
  synchronize?: boolean;
  orphanDownstreamOnPolicyDelete?: boolean;
  apiVersion?: string;
  kind?: string;
  name?: string;
  namespace?: string;
  uid?: string;
  data?: JsonValue;
  clone?: CloneFrom;
  cloneList?: CloneList;
  foreach?: (Omit<Generation, 'foreach'> & { list: string; context?: ContextEntry[]; preconditions?: Conditions })[];
}

export interface Rule {
  name: string;
  context?: ContextEntry[];
  match: MatchResources;
  exclude?: MatchResources;
  preconditions?: Conditions;
  celPreconditions?: NamedExpression[];
  validate?: Validation;
  mutate?: Mutation;
  generate?: Generation;
  verifyImages?: JsonValue[];
  skipBackgroundRequests?: boolean;
  imageExtractors?: JsonObject;
  reportProperties?: Record<string, string>;
}

export interface PolicySpec {
  rules: Rule[];
  validationFailureAction?: ValidationFailureAction;
  validationFailureActionOverrides?: FailureActionOverride[];
  background?: boolean;
  admission?: boolean;
  failurePolicy?: 'Fail' | 'Ignore';
  webhookTimeoutSeconds?: number;
  applyRules?: 'All' | 'One';
  emitWarning?: boolean;
  useServerSideApply?: boolean;
  generateExisting?: boolean;
  mutateExistingOnPolicyUpdate?: boolean;
  schemaValidation?: boolean;
  webhookConfiguration?: JsonObject;
}

export interface PolicyMetadata {
  name: string;
  namespace?: string;
  annotations?: Record<string, string>;
  labels?: Record<string, string>;
  uid?: string;
  resourceVersion?: string;
}

export interface Policy {
  apiVersion: string;
  kind: 'ClusterPolicy' | 'Policy';
  metadata: PolicyMetadata;
  spec: PolicySpec;
}

export interface PolicyExceptionSpec {
  background?: boolean;
  match: MatchResources;
  conditions?: AnyAllConditions;
  exceptions: { policyName: string; ruleNames: string[] }[];
  podSecurity?: PodSecurityStandardExclude[];
}

export interface PolicyException {
  apiVersion: string;
  kind: 'PolicyException';
  metadata: PolicyMetadata;
  spec: PolicyExceptionSpec;
}

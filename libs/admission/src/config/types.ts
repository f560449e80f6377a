import type { EvaluationLimits, LabelSelector } from '@edict/foundation';

/** One `[Kind,Namespace,Name]` entry of `resourceFilters`, the kind split as Kyverno splits it. */
export interface ResourceFilterEntry {
  group: string;
  version: string;
  kind: string;
  /** `""` when the entry names no subresource: it then filters only requests without one. */
  subresource: string;
  namespace: string;
  name: string;
}

/** Usernames, groups, roles or cluster roles to skip (`exclude`), with `!`-prefixed exceptions (`include`). */
export interface SubjectPatterns {
  usernames: string[];
  groups: string[];
  roles: string[];
  clusterRoles: string[];
}

/** The `webhooks` key: the selectors the webhook controller puts on the resource webhooks. */
export interface WebhookSelectors {
  namespaceSelector?: LabelSelector;
  objectSelector?: LabelSelector;
}

/** One entry of the `matchConditions` key: a CEL condition the API server checks before calling. */
export interface WebhookMatchCondition {
  name: string;
  expression: string;
}

/** The controller's configuration, read from a ConfigMap in Kyverno's `kyverno` ConfigMap format. */
export interface AdmissionConfig {
  resourceFilters: ResourceFilterEntry[];
  exclusions: SubjectPatterns;
  inclusions: SubjectPatterns;
  /** Namespaces never admitted through policies (the controller's own and kube-system by default). */
  excludedNamespaces: string[];
  /** Namespaces PolicyExceptions are honoured from (wildcards; `*`: any). Empty: exceptions off. */
  exceptionNamespaces: string[];
  generateSuccessEvents: boolean;
  /**
   * With `generateSuccessEvents`, the success events kept, by action (`Resource Passed`,
   * `Resource Mutated`, ...; Kyverno's `successEventActions`). Empty: every success event.
   */
  successEventActions: string[];
  defaultRegistry: string;
  enableDefaultRegistryMutation: boolean;
  /** The `webhooks` key (Kyverno's single object; an older Kyverno's list gives its first entry). */
  webhook: WebhookSelectors;
  /** Annotations of every webhook configuration (Kyverno's chart default: GKE Autopilot's opt-out). */
  webhookAnnotations: Record<string, string>;
  webhookLabels: Record<string, string>;
  matchConditions: WebhookMatchCondition[];
  /** Size bounds of every evaluation (`maxContextSize`, Kyverno's 2 MiB by default). */
  limits: Readonly<EvaluationLimits>;
  /** No new UpdateRequest while this many exist (Kyverno's `updateRequestThreshold`, 1000 by default). */
  updateRequestThreshold: number;
}

/** A ConfigMap value that could not be used; the key keeps its default. */
export interface ConfigProblem {
  key: string;
  message: string;
}

export interface ParsedAdmissionConfig {
  config: AdmissionConfig;
  problems: ConfigProblem[];
}

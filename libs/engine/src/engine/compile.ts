import { withAutogen } from '../policy/autogen';
import { hasVerifyImages } from '../validate/unsupported-verify-images';
import type { Policy, Rule } from '../policy/types';

/** A policy prepared for evaluation: autogen rules added and per-policy facts computed once. */
export interface CompiledPolicy {
  /** The policy with its autogen rules appended. */
  readonly policy: Policy;
  /** `name` for a ClusterPolicy, `namespace/name` for a Policy: how exceptions and reports refer to it. */
  readonly key: string;
  /** Set for a namespaced Policy: it applies only to resources in this namespace. */
  readonly namespace?: string;
  readonly validateRules: readonly Rule[];
  readonly mutateRules: readonly Rule[];
  readonly generateRules: readonly Rule[];
}

export function compilePolicy(source: Policy): CompiledPolicy {
  const policy = withAutogen(source);
  const namespace = policy.kind === 'Policy' ? (policy.metadata.namespace ?? 'default') : undefined;
  const rules = policy.spec.rules ?? [];
  return {
    policy,
    key: namespace ? `${namespace}/${policy.metadata.name}` : policy.metadata.name,
    namespace,
    // verifyImages rules join the validate rules so that they answer (with an error, see below).
    validateRules: rules.filter((rule) => rule.validate || hasVerifyImages(rule)),
    mutateRules: rules.filter((rule) => rule.mutate),
    generateRules: rules.filter((rule) => rule.generate),
  };
}

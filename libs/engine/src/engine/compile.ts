import { compileEvaluators, type Evaluators } from '../core/evaluators';
import { fixedFailureActions, type FixedFailureActions } from '../core/failure-action';
import type { CelProgram } from '@edict/cel';
import type { JsonValue } from '@edict/foundation';
import { compileKindGate, compileRuleMatch, type KindGate, type RuleMatcher } from '../match';
import { withAutogen } from '../policy/autogen';
import { compilePolicyMatchConditions } from './policy-match-conditions';
import { RulesByKind } from './rules-by-kind';
import { hasVerifyImageChecks, hasVerifyImages } from '../verify-images/verify-rule';
import type { Conditions, ForEachValidation, Policy, Rule } from '../policy/types';

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
  /** Rules with verifyImages: run on the mutating path (verification, digests, annotation). */
  readonly imageVerifyRules: readonly Rule[];
  /** The failure actions no namespace can change, so that they are not worked out per request. */
  readonly failureActions: FixedFailureActions;
  /** Each rule's compiled steps; empty when compilation is off, and the interpreter runs every rule. */
  readonly programs: ReadonlyMap<Rule, RuleProgram>;
  /** The rules of a list whose match can hold for a kind (without it, every rule is tried). */
  readonly rulesByKind?: RulesByKind;
  /** `spec.webhookConfiguration.matchConditions`, compiled (`null`: one that does not compile); unset when none. */
  readonly matchConditions?: readonly (CelProgram | null)[];
}

/** What the compiler prepared for one rule; the interpreter does the rest. */
export interface RuleProgram {
  /** Set when the compiler handles the rule's match/exclude filters. */
  readonly matches?: RuleMatcher;
  /** With `matches`: what the match needs of the request's kind alone. */
  readonly kindGate?: KindGate;
  readonly evaluators: Evaluators;
}

export function compilePolicy(source: Policy, options: { compiled: boolean }): CompiledPolicy {
  const policy = withAutogen(source);
  const namespace = policy.kind === 'Policy' ? (policy.metadata.namespace ?? 'default') : undefined;
  const rules = policy.spec.rules ?? [];
  // verifyImages rules with `verifyDigest` or `required` also run on the validate path (Kyverno's
  // validate-image handler checks the digest and the annotation the mutating path wrote).
  const validateRules = rules.filter((rule) => rule.validate || hasVerifyImageChecks(rule));
  const programs = new Map(options.compiled ? rules.map((rule) => [rule, compileRule(rule)]) : []);
  const gates = new Map<Rule, KindGate>();
  for (const [rule, program] of programs) if (program.kindGate) gates.set(rule, program.kindGate);
  return {
    policy,
    key: namespace ? `${namespace}/${policy.metadata.name}` : policy.metadata.name,
    namespace,
    validateRules,
    mutateRules: rules.filter((rule) => rule.mutate),
    generateRules: rules.filter((rule) => rule.generate),
    imageVerifyRules: rules.filter(hasVerifyImages),
    failureActions: fixedFailureActions(policy, validateRules),
    programs,
    rulesByKind: new RulesByKind(gates),
    matchConditions: compilePolicyMatchConditions(policy),
  };
}

function compileRule(rule: Rule): RuleProgram {
  const conditions: (Conditions | undefined)[] = [rule.preconditions];
  const values: JsonValue[] = [];
  const lists: string[] = [];
  const patterns: JsonValue[] = [];
  const validate = rule.validate;
  if (validate) collectValidation(validate, conditions, values, lists, patterns);
  const matches = compileRuleMatch(rule);
  return {
    matches,
    kindGate: matches ? compileKindGate(rule) : undefined,
    evaluators: compileEvaluators(conditions, values, lists, patterns),
  };
}

/**
 * The condition blocks, patterns (to substitute and to match) and foreach lists of a validate rule
 * and of its foreach loops, at any depth.
 */
function collectValidation(
  body: Pick<ForEachValidation, 'preconditions' | 'pattern' | 'anyPattern' | 'deny' | 'foreach'>,
  conditions: (Conditions | undefined)[],
  values: JsonValue[],
  lists: string[],
  patterns: JsonValue[],
): void {
  conditions.push(body.preconditions, body.deny?.conditions);
  if (body.pattern !== undefined) {
    values.push(body.pattern);
    patterns.push(body.pattern);
  }
  if (body.anyPattern !== undefined) values.push(body.anyPattern as JsonValue);
  if (Array.isArray(body.anyPattern)) patterns.push(...(body.anyPattern as JsonValue[]));
  if (Array.isArray(body.foreach))
    for (const loop of body.foreach) {
      if (!loop) continue;
      if (typeof loop.list === 'string') lists.push(loop.list);
      collectValidation(loop, conditions, values, lists, patterns);
    }
}

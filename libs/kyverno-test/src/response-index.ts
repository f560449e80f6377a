import { isScored, type Operation, type PolicyResponse, type RuleResponse, type RuleStatus } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { EvaluatedResponse, Stage } from './evaluate';
import type { CelEvaluatedResponse, CelPolicyKind } from './evaluate-cel';
import { reportResult } from './report-result';
import { namesPolicy, objectKey } from './resource-match';
import type { ExpectedResult } from './types';

/** A policy response of either engine, as the verdicts read it. */
export interface IndexedResponse {
  /** The trigger: a resource of the test, or the object a JSON payload stands for. */
  resource: KubeObject;
  operationOverride?: Operation;
  stage: Stage;
  response: Pick<PolicyResponse, 'rules' | 'validationFailureAction'>;
  /** The resource after this policy: mutate's patched object, or what validate saw. */
  patchedResource?: KubeObject;
  /** Set for Kyverno's CEL policies and ValidatingAdmissionPolicies, whose responses carry no rule of the test's naming. */
  celKind?: CelPolicyKind;
  /** Whether a results[] `policy` names this response's policy. */
  namedBy(policy: string): boolean;
  /** A rule response as it lands in a policy report. */
  resultOf(rule: RuleResponse): RuleStatus;
}

/** A rule response together with the policy response it belongs to and, for targets, the patched target. */
export interface FoundRule {
  record: IndexedResponse;
  rule: RuleResponse;
  /** For mutate-existing: the target object as this rule patched it. */
  patchedTarget?: KubeObject;
}

export function indexClassic(record: EvaluatedResponse): IndexedResponse {
  return {
    ...record,
    namedBy: (policy) => namesPolicy(policy, record.policy),
    resultOf: (rule) => reportResult(record.policy, record.response, rule),
  };
}

export function indexCel(record: CelEvaluatedResponse): IndexedResponse {
  const { name = '', namespace } = record.policy.metadata;
  return {
    resource: record.resource,
    ...(record.operationOverride ? { operationOverride: record.operationOverride } : {}),
    stage: record.stage ?? 'validate',
    response: record.response,
    patchedResource: record.patchedResource ?? record.resource,
    celKind: record.kind,
    namedBy: (policy) => policy === name || (namespace !== undefined && policy === `${namespace}/${name}`),
    resultOf: (rule) =>
      rule.status === 'fail' && !isScored({ metadata: { ...record.policy.metadata, name } }) ? 'warn' : rule.status,
  };
}

/**
 * Finds the responses for a results[] entry: those of its policy, made under its operation, for the
 * given object, whether it was the trigger resource or a target a mutate-existing rule patched.
 */
export class ResponseIndex {
  private readonly responses: readonly IndexedResponse[];

  constructor(classic: readonly EvaluatedResponse[], cel: readonly CelEvaluatedResponse[] = []) {
    this.responses = [...classic.map(indexClassic), ...cel.map(indexCel)];
  }

  forEntry(entry: ExpectedResult): IndexedResponse[] {
    return this.responses.filter(
      (record) => record.namedBy(entry.policy) && record.operationOverride === entry.operation,
    );
  }

  rulesFor(entry: ExpectedResult, object: KubeObject): FoundRule[] {
    const key = objectKey(object);
    const found: FoundRule[] = [];
    for (const record of this.forEntry(entry)) {
      const isTrigger = objectKey(record.resource) === key;
      for (const rule of record.response.rules) {
        const patchedTarget = rule.patchedTargets?.find((target) => objectKey(target) === key);
        if (isTrigger || patchedTarget) found.push({ record, rule, patchedTarget });
      }
    }
    return found;
  }

  /** True when the policy answered for this object at all (even with no rule applying). */
  answeredFor(entry: ExpectedResult, object: KubeObject): boolean {
    const key = objectKey(object);
    return this.forEntry(entry).some((record) => objectKey(record.resource) === key);
  }
}

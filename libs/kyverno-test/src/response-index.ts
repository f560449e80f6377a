import type { RuleResponse } from '@edict/engine';
import type { KubeObject } from '@edict/foundation';
import type { EvaluatedResponse } from './evaluate';
import { namesPolicy, objectKey } from './resource-match';
import type { ExpectedResult } from './types';

/** A rule response together with the policy response it belongs to and, for targets, the patched target. */
export interface FoundRule {
  record: EvaluatedResponse;
  rule: RuleResponse;
  /** For mutate-existing: the target object as this rule patched it. */
  patchedTarget?: KubeObject;
}

/**
 * Finds the responses for a results[] entry: those of its policy, made under its operation, for the
 * given object, whether it was the trigger resource or a target a mutate-existing rule patched.
 */
export class ResponseIndex {
  constructor(private readonly responses: readonly EvaluatedResponse[]) {}

  forEntry(entry: ExpectedResult): EvaluatedResponse[] {
    return this.responses.filter(
      (record) => namesPolicy(entry.policy, record.policy) && record.operationOverride === entry.operation,
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

import { isObject, type JsonValue } from '@edict/foundation';
import type { RuleCheck } from './check-context';

/** Kyverno's ValidateRuleType: exactly one operation per rule; image extractors only with verifyImages. */
export function checkRuleType(c: RuleCheck): void {
  const { rule, path, findings } = c;
  const present = (v: JsonValue | undefined) =>
    v !== undefined &&
    v !== null &&
    !(isObject(v) && Object.keys(v).length === 0) &&
    !(Array.isArray(v) && v.length === 0);
  const count = [rule.mutate, rule.validate, rule.generate, rule.verifyImages].filter((v) =>
    present(v as JsonValue),
  ).length;
  if (count === 0) {
    findings.error(
      path,
      `No operation defined in the rule '${rule.name}'.(supported operations: mutate,validate,generate,verifyImages)`,
    );
  } else if (count > 1) {
    findings.error(
      path,
      `Multiple operations defined in the rule '${rule.name}', only one operation (mutate,validate,generate,verifyImages) is allowed per rule`,
    );
  }
  if (rule.imageExtractors !== undefined && !present(rule.verifyImages as JsonValue)) {
    findings.error(
      [...path, 'imageExtractors'],
      `Invalid rule spec for rule '${rule.name}', imageExtractors can only be defined for verifyImages rule`,
    );
  }
}

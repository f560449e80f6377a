import type { EvaluationOptions, Operation } from '@edict/engine';
import type { JsonValue } from '@edict/foundation';
import type { PolicyValues, RuleValues, ValuesSpec } from './types';

/*
 * Answers the values-file questions the way Kyverno's CLI does: per-resource values are the global
 * values overlaid with the policy's entry for that resource name; rule values are looked up by rule
 * name, and an autogen copy of a rule (`autogen-X`, `autogen-cronjob-X`) uses the values of `X`.
 */
export class ValuesLookup {
  private readonly byPolicy = new Map<string, PolicyValues>();

  constructor(readonly spec: ValuesSpec) {
    for (const policy of spec.policies) if (!this.byPolicy.has(policy.name)) this.byPolicy.set(policy.name, policy);
  }

  resourceValues(policyName: string, resourceName: string): Record<string, JsonValue> {
    const values: Record<string, JsonValue> = { ...this.spec.globalValues };
    for (const resource of this.byPolicy.get(policyName)?.resources ?? []) {
      if (resource.name === resourceName) Object.assign(values, resource.values);
    }
    return Object.assign(values, this.spec.setValues);
  }

  /** The admission operation the values ask for; Kyverno only honours UPDATE and DELETE, else CREATE. */
  operation(policyName: string, resourceName: string): Operation {
    const requested = this.resourceValues(policyName, resourceName)['request.operation'];
    return requested === 'UPDATE' || requested === 'DELETE' ? requested : 'CREATE';
  }

  rule(policyName: string, ruleName: string): RuleValues | undefined {
    const rules = this.byPolicy.get(policyName)?.rules ?? [];
    const exact = rules.find((rule) => rule.name === ruleName);
    if (exact) return exact;
    const base = baseRuleName(ruleName);
    return base === ruleName ? undefined : rules.find((rule) => rule.name === base);
  }

  options(policyName: string, resourceName: string): EvaluationOptions {
    return {
      globalValues: this.resourceValues(policyName, resourceName),
      ruleValues: (policy, rule) => nonEmpty(this.rule(policy, rule)?.values),
      foreachValues: (policy, rule) => nonEmpty(this.rule(policy, rule)?.foreachValues),
    };
  }

  namespaceLabels(namespace: string | undefined): Record<string, string> | undefined {
    return namespace === undefined ? undefined : this.spec.namespaceLabels[namespace];
  }
}

export function baseRuleName(ruleName: string): string {
  if (ruleName.startsWith('autogen-cronjob-')) return ruleName.slice('autogen-cronjob-'.length);
  if (ruleName.startsWith('autogen-')) return ruleName.slice('autogen-'.length);
  return ruleName;
}

function nonEmpty<T extends object>(value: T | undefined): T | undefined {
  return value && Object.keys(value).length > 0 ? value : undefined;
}

import { compileCel } from '@edict/cel';
import { errorMessage, isObject, type JsonObject } from '@edict/foundation';
import { AUTOGEN_CONTROLLERS_ANNOTATION } from '../policy';
import type { PolicyCheck } from './check-context';
import { checkFailureActionOverrides } from './failure-action-overrides';

const DEPRECATED_ACTIONS = 'Validation failure actions enforce/audit are deprecated, use Enforce/Audit instead.';
const NAME_LIMIT = 63;

/** Policy-wide checks: metadata, spec fields and their combinations (ClusterPolicy/Policy.Validate). */
export function checkPolicySpec(c: PolicyCheck): void {
  const { policy, findings } = c;
  const spec = policy.spec;
  const raw = spec as unknown as JsonObject;
  const rules = spec.rules ?? [];

  const name = policy.metadata?.name ?? '';
  if (name.length > NAME_LIMIT)
    findings.error(['metadata', 'name'], `Too long: may not be more than ${NAME_LIMIT} bytes`);
  if (policy.metadata?.annotations?.[AUTOGEN_CONTROLLERS_ANNOTATION] === 'all') {
    findings.error(
      ['metadata', 'annotations'],
      "Autogen annotation does not support 'all' anymore, remove the annotation or set it to a valid value",
    );
  }

  if (
    isDeprecatedAction(spec.validationFailureAction) ||
    (spec.validationFailureActionOverrides ?? []).some((o) => isDeprecatedAction(o.action))
  ) {
    findings.warning(['spec', 'validationFailureAction'], DEPRECATED_ACTIONS);
  }
  rules.forEach((rule, i) => {
    const validate = rule.validate as
      (typeof rule.validate & { failureActionOverrides?: { action?: string }[] }) | undefined;
    if (validate?.failureAction !== undefined) {
      if (
        isDeprecatedAction(validate.failureAction) ||
        (validate.failureActionOverrides ?? []).some((o) => isDeprecatedAction(o.action))
      ) {
        findings.warning(['spec', 'rules', i, 'validate', 'failureAction'], DEPRECATED_ACTIONS);
      }
    }
  });

  const webhook = isObject(raw.webhookConfiguration) ? raw.webhookConfiguration : undefined;
  checkWebhookMatchConditions(webhook, findings);
  if (spec.webhookTimeoutSeconds !== undefined && webhook?.timeoutSeconds !== undefined) {
    findings.error(
      ['spec', 'webhookTimeoutSeconds'],
      'remove the deprecated field and use spec.webhookConfiguration.timeoutSeconds instead',
    );
  }
  if (spec.failurePolicy !== undefined && webhook?.failurePolicy !== undefined) {
    findings.error(
      ['spec', 'failurePolicy'],
      'remove the deprecated field and use spec.webhookConfiguration.failurePolicy instead',
    );
  }
  if (raw.generateExistingOnPolicyUpdate !== undefined && raw.generateExistingOnPolicyUpdate !== null) {
    findings.error(
      ['spec', 'generateExistingOnPolicyUpdate'],
      'remove the deprecated field and use spec.generate[*].generateExisting instead',
    );
  }
  if (spec.generateExisting === true && rules.some((rule) => rule.generate?.generateExisting !== undefined)) {
    findings.error(
      ['spec', 'generateExisting'],
      'remove the deprecated field and use spec.generate[*].generateExisting instead',
    );
  }
  if (mutateExistingOnPolicyUpdate(c)) {
    rules.forEach((rule, i) => {
      if (rule.mutate && (rule.mutate.targets?.length ?? 0) === 0) {
        findings.error(
          ['spec', 'mutateExistingOnPolicyUpdate'],
          `rules[${i}].mutate.targets has to be specified when mutateExistingOnPolicyUpdate is set`,
        );
      }
    });
  }
  for (const [field, value] of [
    [['spec', 'webhookTimeoutSeconds'], spec.webhookTimeoutSeconds],
    [['spec', 'webhookConfiguration', 'timeoutSeconds'], webhook?.timeoutSeconds],
  ] as const) {
    if (typeof value === 'number' && (value < 1 || value > 30))
      findings.error(field, 'the timeout value must be between 1 and 30 seconds');
  }

  const seen = new Set<string>();
  rules.forEach((rule, i) => {
    const ruleName = typeof rule.name === 'string' ? rule.name : '';
    if (seen.has(ruleName)) findings.error(['spec', 'rules', i, 'name'], `Duplicate rule name: '${ruleName}'`);
    seen.add(ruleName);
    if (ruleName.length > NAME_LIMIT)
      findings.error(['spec', 'rules', i, 'name'], `Too long: may not be more than ${NAME_LIMIT} bytes`);
  });

  if (c.namespaced) {
    if ((spec.validationFailureActionOverrides?.length ?? 0) > 0) {
      findings.error(
        ['spec', 'validationFailureActionOverrides'],
        'Use of validationFailureActionOverrides is supported only with ClusterPolicy',
      );
    }
  } else {
    rules.forEach((rule, i) => {
      const overrides = (
        rule.validate as { failureActionOverrides?: { action?: string; namespaces?: string[] }[] } | undefined
      )?.failureActionOverrides;
      checkFailureActionOverrides(overrides, ['spec', 'rules', i, 'validate', 'failureActionOverrides'], findings);
    });
    checkFailureActionOverrides(
      spec.validationFailureActionOverrides,
      ['spec', 'validationFailureActionOverrides'],
      findings,
    );
  }

  const admission = spec.admission !== false;
  const background = spec.background !== false;
  if (!admission && !background)
    findings.error(['spec', 'admission'], 'disabling both admission and background processing is not allowed');
  if (!admission && rules.some((r) => r.mutate || r.generate || (r.verifyImages?.length ?? 0) > 0)) {
    findings.error(['spec', 'admission'], 'disabling admission processing is only allowed with validation policies');
  }
}

/**
 * Kyverno compiles `spec.webhookConfiguration.matchConditions` as boolean expressions over `object`,
 * `oldObject` and `request` (ValidateCustomWebhookMatchConditions: no `params`, no `authorizer`).
 */
function checkWebhookMatchConditions(webhook: JsonObject | undefined, findings: PolicyCheck['findings']): void {
  const conditions = webhook?.matchConditions;
  if (!Array.isArray(conditions)) return;
  conditions.forEach((condition, index) => {
    const expression = isObject(condition) ? condition.expression : undefined;
    try {
      compileCel(typeof expression === 'string' ? expression : '', { params: false, authorizer: false }, 'bool');
    } catch (error) {
      findings.error(
        ['spec', 'webhookConfiguration', 'matchConditions', index, 'expression'],
        `match conditions compilation errors: [${errorMessage(error)}]`,
      );
    }
  });
}

function isDeprecatedAction(action: string | undefined): boolean {
  return action === 'enforce' || action === 'audit';
}

/** The first mutate rule's own setting wins over the policy-wide (deprecated) one, as in Kyverno. */
function mutateExistingOnPolicyUpdate(c: PolicyCheck): boolean {
  for (const rule of c.policy.spec.rules ?? []) {
    if (rule.mutate && rule.mutate.mutateExistingOnPolicyUpdate !== undefined)
      return rule.mutate.mutateExistingOnPolicyUpdate;
  }
  return c.policy.spec.mutateExistingOnPolicyUpdate === true;
}

import { isObject, type JsonObject } from '@edict/foundation';
import { AUTOGEN_CONTROLLERS_ANNOTATION, type Rule } from '../policy';
import type { RuleCheck } from './check-context';
import { bareKind } from './kinds';
import { kindsOf } from './match';

const POD_CONTROLLERS_SORTED = 'cronjob,daemonset,deployment,job,statefulset';

/** Advice Kyverno returns as admission warnings (the policy is still accepted). */
export function ruleWarnings(c: RuleCheck): void {
  const { rule, path, findings } = c;
  if (rule.mutate?.patchesJson6902 && (rule.match?.resources?.kinds ?? []).includes('Pod')) {
    findings.warning(
      [...path, 'mutate', 'patchesJson6902'],
      'Pods managed by workload controllers should not be directly mutated using policies. Use the autogen feature or write policies that match Pod controllers.',
    );
  }
  const kinds = new Set(kindsOf(rule.match).map((k) => bareKind(k)));
  if (kinds.size === 1 && kinds.has('Pod') && excludesSomeControllers(c)) {
    findings.warning(
      [...path, 'match'],
      'Policies that match Pods apply to all Pods including those created and managed by controllers excluded from autogen. Use preconditions to exclude the Pods managed by controllers which are excluded from autogen. Refer to https://kyverno.io/docs/writing-policies/autogen/ for details.',
    );
  }
  const allKinds = [...kindsOf(rule.match), ...kindsOf(rule.exclude)];
  if (rule.validate) subresourceWarnings(c, JSON.stringify(withoutDenyConditions(rule)), allKinds);
  if (rule.mutate) {
    subresourceWarnings(c, JSON.stringify(rule.mutate), [
      ...allKinds,
      ...(rule.mutate.targets ?? []).map((t) => t.kind),
    ]);
  }
  verifyImagesWarnings(c, allKinds);
}

/**
 * Deprecated `predicateType` of attestations, and the subresource advice for the `validate` blocks of
 * verifyImages entries (all entries once any has one, as Kyverno walks them).
 */
function verifyImagesWarnings(c: RuleCheck, allKinds: readonly string[]): void {
  const entries = (c.rule.verifyImages ?? []).map((raw) => (isObject(raw) ? raw : {}));
  entries.forEach((entry, i) => {
    const attestations = Array.isArray(entry.attestations) ? entry.attestations : [];
    attestations.forEach((attestation, j) => {
      const type = isObject(attestation) ? attestation.predicateType : undefined;
      if (typeof type === 'string' && type !== '') {
        c.findings.warning(
          [...c.path, 'verifyImages', i, 'attestations', j, 'predicateType'],
          `predicateType has been deprecated use 'type: ${type}' instead of 'predicateType: ${type}'`,
        );
      }
    });
  });
  if (!entries.some((entry) => isObject(entry.validate) && Object.keys(entry.validate).length > 0)) return;
  entries.forEach((entry, i) => {
    const validate: JsonObject = isObject(entry.validate) ? { ...entry.validate } : {};
    if (isObject(validate.deny)) validate.deny = { ...validate.deny, conditions: null };
    subresourceWarnings(c, JSON.stringify(validate), allKinds, [...c.path, 'verifyImages', i, 'validate']);
  });
}

function withoutDenyConditions(rule: Rule): unknown {
  const validate = rule.validate!;
  return validate.deny ? { ...validate, deny: {} } : validate;
}

function subresourceWarnings(
  c: RuleCheck,
  json: string,
  kinds: readonly string[],
  at: readonly (string | number)[] = [...c.path, c.rule.validate ? 'validate' : 'mutate'],
): void {
  if (json.includes('replicas') && !kinds.some((k) => k.toLowerCase().includes('scale'))) {
    c.findings.warning(at, 'You are matching on replicas but not including the scale subresource in the policy.');
  }
  if (
    (json.includes('.status') || json.includes('"status":')) &&
    !kinds.some((k) => k.toLowerCase().includes('status'))
  ) {
    c.findings.warning(at, 'You are matching on status but not including the status subresource in the policy.');
  }
}

/** An autogen annotation that names only some of the Pod controllers (and is not `none`). */
function excludesSomeControllers(c: RuleCheck): boolean {
  const value = c.policy.metadata?.annotations?.[AUTOGEN_CONTROLLERS_ANNOTATION];
  if (value === undefined || value === 'none') return false;
  return value.toLowerCase().split(',').sort().join(',') !== POD_CONTROLLERS_SORTED;
}

import { CONDITION_OPERATORS, DEPRECATED_CONDITION_OPERATORS, isConditionOperator } from '../conditions';
import { isObject, type JsonValue } from '@edict/foundation';
import type { Condition, Conditions, ForEachMutation, ForEachValidation } from '../policy';
import type { RuleCheck } from './check-context';
import type { Findings, Path } from './findings';
import { goKind, goQuotedList } from './go-text';

const OPERATIONS = ['CREATE', 'UPDATE', 'DELETE', 'CONNECT'];

interface ConditionChecks {
  /** Key/value presence and `{{request.operation}}` values (rule preconditions and validate.deny). */
  values: boolean;
  /** Deprecated operators produce warnings (validate.deny and validate.foreach only, as in Kyverno). */
  deprecation: boolean;
}

/** Kyverno's condition checks for every condition block of a rule. */
export function checkRuleConditions(c: RuleCheck): void {
  const { rule, path, findings } = c;
  checkConditions(rule.preconditions, [...path, 'preconditions'], findings, { values: true, deprecation: false });
  const validate = rule.validate;
  if (validate?.deny?.conditions !== undefined) {
    checkConditions(validate.deny.conditions, [...path, 'validate', 'deny', 'conditions'], findings, {
      values: true,
      deprecation: true,
    });
  }
  const visitValidateForeach = (list: readonly ForEachValidation[] | undefined, at: Path, top: boolean): void => {
    (list ?? []).forEach((fe, i) => {
      const here = [...at, i];
      checkConditions(fe.preconditions, [...here, 'preconditions'], findings, { values: false, deprecation: top });
      checkConditions(fe.deny?.conditions, [...here, 'deny', 'conditions'], findings, {
        values: false,
        deprecation: top,
      });
      visitValidateForeach(fe.foreach, [...here, 'foreach'], false);
    });
  };
  visitValidateForeach(validate?.foreach, [...path, 'validate', 'foreach'], true);
  const visitMutateForeach = (list: readonly ForEachMutation[] | undefined, at: Path): void => {
    (list ?? []).forEach((fe, i) => {
      checkConditions(fe.preconditions, [...at, i, 'preconditions'], findings, { values: false, deprecation: false });
      visitMutateForeach(fe.foreach, [...at, i, 'foreach']);
    });
  };
  visitMutateForeach(rule.mutate?.foreach, [...path, 'mutate', 'foreach']);
  (rule.mutate?.targets ?? []).forEach((target, i) => {
    checkConditions(target.preconditions, [...path, 'mutate', 'targets', i, 'preconditions'], findings, {
      values: false,
      deprecation: false,
    });
  });
  (rule.verifyImages ?? []).forEach((verification, i) => {
    if (!isObject(verification) || !Array.isArray(verification.attestations)) return;
    verification.attestations.forEach((attestation, j) => {
      if (!isObject(attestation) || !Array.isArray(attestation.conditions)) return;
      attestation.conditions.forEach((conditions, k) => {
        checkConditions(
          conditions as unknown as Conditions,
          [...path, 'verifyImages', i, 'attestations', j, 'conditions', k],
          findings,
          {
            values: false,
            deprecation: true,
          },
        );
      });
    });
  });
}

export function checkConditions(
  conditions: Conditions | undefined | null,
  path: Path,
  findings: Findings,
  checks: ConditionChecks,
): void {
  if (conditions === undefined || conditions === null) return;
  const lists: [readonly Condition[], Path][] = Array.isArray(conditions)
    ? [[conditions, path]]
    : isObject(conditions as JsonValue)
      ? [
          [conditions.any ?? [], [...path, 'any']],
          [conditions.all ?? [], [...path, 'all']],
        ]
      : [];
  for (const [list, at] of lists) {
    list.forEach((condition, i) => checkCondition(condition, [...at, i], findings, checks));
  }
}

function checkCondition(condition: Condition, path: Path, findings: Findings, checks: ConditionChecks): void {
  if (!isObject(condition as unknown as JsonValue)) return;
  const operator = typeof condition.operator === 'string' ? condition.operator : '';
  if (checks.values) {
    if (
      condition.key === undefined ||
      condition.key === null ||
      condition.value === undefined ||
      condition.value === null ||
      operator === ''
    ) {
      findings.error(path, 'entered value of `key`, `value` or `operator` is missing or misspelled');
      return;
    }
    checkOperationValues(condition, path, findings);
  }
  if (!isConditionOperator(operator)) {
    findings.error(
      [...path, 'operator'],
      `entered value of \`operator\` is invalid. valid values: ${goQuotedList(CONDITION_OPERATORS)}`,
    );
    return;
  }
  const alternatives = DEPRECATED_CONDITION_OPERATORS[operator];
  if (checks.deprecation && alternatives) {
    findings.warning(
      [...path, 'operator'],
      `Operator ${operator} has been deprecated and will be removed soon. Use these instead: ${goQuotedList(alternatives)}`,
    );
  }
}

/** With key `{{request.operation}}`, literal values must be admission operations. */
function checkOperationValues(condition: Condition, path: Path, findings: Findings): void {
  if (typeof condition.key !== 'string' || condition.key.split(' ').join('') !== '{{request.operation}}') return;
  const value = condition.value as JsonValue;
  const unknown = (v: string, at: Path) =>
    findings.error(
      at,
      `unknown value '${v}' found under the 'value' field. Only the following values are allowed: [CREATE, UPDATE, DELETE, CONNECT]`,
    );
  if (typeof value === 'string') {
    if (value.length >= 4 && value.startsWith('{{') && value.endsWith('}}')) return;
    if (!OPERATIONS.includes(value)) unknown(value, [...path, 'value']);
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => {
      if (typeof v !== 'string' || !OPERATIONS.includes(v))
        unknown(typeof v === 'string' ? v : JSON.stringify(v), [...path, 'value', i]);
    });
  } else {
    findings.error(
      [...path, 'value'],
      `'value' field found to be of the type ${goKind(value)}. The provided value/values are expected to be either in the form of a string or list`,
    );
  }
}

import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { Rule } from '../policy';
import { findVariables } from '../variables';
import { contextPatterns, entryPatterns, VariableAllowance } from './allowed-variables';
import type { PolicyCheck, RuleCheck } from './check-context';
import { pointer } from './go-text';
import { containsVariable, walkStrings, type Segment } from './json-walk';
import { jsonPatchPaths } from './metadata-only';

const INVALID = 'policy contains invalid variables: ';
const BACKGROUND =
  'only select variables are allowed in background mode. Set spec.background=false to disable background mode for this policy rule: ';

/** User-dependent variables that a background scan cannot resolve (Kyverno's ForbiddenUserVariables). */
const FORBIDDEN_USER_VARIABLES = [
  /[^.](serviceAccountName)\b/,
  /[^.](serviceAccountNamespace)\b/,
  /[^.](request.userInfo)\b/,
  /[^.](request.roles)\b/,
  /[^.](request.clusterRoles)\b/,
];
/** Kyverno's variable regex over the serialized policy: group 2 is the `{{...}}` text. */
const POLICY_VARIABLES = /(^|[^\\])(\{\{(?:\{[^{}]*\}|[^{}])*\}\})/g;

/**
 * Background mode: no user information in match/exclude and no user-dependent variables anywhere in
 * the policy (skipped for variables when a rule mutates existing resources). Returns true when it
 * reported something: Kyverno stops there, before checking variables against the rule context.
 */
export function checkBackgroundVariables(c: PolicyCheck): boolean {
  if (!c.background) return false;
  const before = c.findings.errorCount;
  const rules = c.policy.spec.rules ?? [];
  rules.forEach((rule, i) => {
    for (const block of ['match', 'exclude'] as const) {
      const m = rule[block];
      if (!m) continue;
      const report = (path: Segment[], field: string) =>
        c.findings.error(
          ['spec', 'rules', i, block, ...path, field],
          `${BACKGROUND}invalid variable used at path: spec/rules[${i}]/${block}/${[...path, field]
            .map(String)
            .join('/')
            .replace(/\/(\d+)\//g, '[$1]/')}`,
        );
      const field = userInfoField(m);
      if (field) report([], field);
      for (const key of ['any', 'all'] as const) {
        (m[key] ?? []).forEach((filter, j) => {
          const f = userInfoField(filter);
          if (f) report([key, j], f);
        });
      }
    }
  });
  if (!rules.some((rule) => rule.mutate?.targets !== undefined)) {
    const { status: _status, ...withoutStatus } = c.policy as unknown as JsonObject;
    walkStrings(withoutStatus as JsonValue, (text, path) => {
      if (!text.includes('{{')) return;
      for (const match of text.matchAll(POLICY_VARIABLES)) {
        const variable = match[2]!;
        if (FORBIDDEN_USER_VARIABLES.some((re) => re.test(variable))) {
          c.findings.error(path as Segment[], `${BACKGROUND}variable ${variable} is not allowed`);
        }
      }
    });
  }
  return c.findings.errorCount > before;
}

function userInfoField(u: { roles?: string[]; clusterRoles?: string[]; subjects?: unknown[] }): string | undefined {
  if ((u.roles?.length ?? 0) > 0) return 'roles';
  if ((u.clusterRoles?.length ?? 0) > 0) return 'clusterRoles';
  if ((u.subjects?.length ?? 0) > 0) return 'subjects';
  return undefined;
}

/** Sections of a rule where Kyverno forbids variables altogether. */
export function checkForbiddenVariableSections(c: RuleCheck): void {
  const { rule, path, findings } = c;
  const name = rule.name;
  if (
    rule.mutate?.patchesJson6902 &&
    jsonPatchPaths(rule.mutate.patchesJson6902).some((p) => /\{\{[^{}]*\}\}/.test(p))
  ) {
    findings.error(
      [...path, 'mutate', 'patchesJson6902'],
      `${INVALID}rule "${name}" should not have variables in patchesJSON6902 path section`,
    );
  }
  if (containsVariable(rule.exclude as JsonValue)) {
    findings.error([...path, 'exclude'], `${INVALID}rule "${name}" should not have variables in exclude section`);
  }
  if (containsVariable(rule.match as JsonValue)) {
    findings.error([...path, 'match'], `${INVALID}rule "${name}" should not have variables in match section`);
  }
  (rule.verifyImages ?? []).forEach((verification, i) => {
    if (!isObject(verification)) return;
    const refs = [verification.imageReferences, verification.image]
      .flat()
      .filter((r): r is string => typeof r === 'string');
    if (refs.some((ref) => /\{\{[^{}]*\}\}/.test(ref))) {
      findings.error(
        [...path, 'verifyImages', i],
        `${INVALID}rule "${name}" should not have variables in image reference section`,
      );
    }
  });
}

/** `element` variables only make sense inside a foreach (Kyverno's ValidateElementInForEach). */
export function checkElementOutsideForeach(c: RuleCheck): void {
  walkStrings(c.rule as unknown as JsonValue, (text, path) => {
    if (!text.includes('{{')) return;
    const ptr = pointer(path);
    if (ptr.includes('/foreach/')) return;
    for (const expression of findVariables(text)) {
      if (expression.startsWith('element') || expression === 'elementIndex') {
        c.findings.error([...c.path, ...path], `variable '${expression}' present outside of foreach at path ${ptr}`);
      }
    }
  });
}

/**
 * Every variable of the rule must resolve against the mock context: built-in roots or the rule's
 * context entries. Rules that mutate existing resources first have each target's resource fields
 * checked with the rule's context and preconditions (without `target.*`, which a target's own
 * context and preconditions may use), then the whole rule with `target.*` allowed.
 */
export function checkRuleVariables(c: RuleCheck): void {
  const { rule } = c;
  const targets = rule.mutate?.targets;
  if (targets !== undefined) {
    const allowance = new VariableAllowance(c.background, false, entryPatterns(rule.context));
    targets.forEach((target, i) => {
      const { apiVersion, kind, name, namespace, uid } = target;
      const scope: [JsonValue | undefined, Segment[]][] = [
        [rule.context as unknown as JsonValue, ['context']],
        [rule.preconditions as unknown as JsonValue, ['preconditions']],
        [{ apiVersion, kind, name, namespace, uid } as JsonValue, ['mutate', 'targets', i]],
      ];
      for (const [value, at] of scope) {
        checkVariablesIn(
          c,
          value,
          at,
          allowance,
          (reason) => `${INVALID}invalid variables defined at mutate.targets[${i}]: ${reason}`,
        );
      }
    });
  }
  const allowance = new VariableAllowance(c.background, targets !== undefined, contextPatterns(rule));
  checkVariablesIn(
    c,
    ruleWithoutUncheckedParts(rule),
    [],
    allowance,
    (reason) => `${INVALID}variable substitution failed for rule ${rule.name}: ${reason}`,
  );
}

function checkVariablesIn(
  c: RuleCheck,
  value: JsonValue | undefined,
  base: Segment[],
  allowance: VariableAllowance,
  message: (reason: string) => string,
): void {
  walkStrings(value, (text, path) => {
    if (!text.includes('{{')) return;
    const full = [...base, ...path];
    for (const expression of findVariables(text)) {
      if (expression.includes('{{')) continue; // resolved after its nested variables
      const problem = allowance.check(expression);
      if (problem === undefined) continue;
      const reason = problem.startsWith('variable ')
        ? problem
        : `failed to resolve ${expression} at path ${pointer(full)}: ${problem}`;
      c.findings.error([...c.path, ...full], message(reason));
    }
  });
}

/** Match/exclude are checked on their own; attestation conditions are dynamic (Kyverno skips them). */
function ruleWithoutUncheckedParts(rule: Rule): JsonValue {
  const { match: _match, exclude: _exclude, ...rest } = rule as unknown as JsonObject;
  if (!Array.isArray(rest.verifyImages)) return rest;
  return {
    ...rest,
    verifyImages: rest.verifyImages.map((v) =>
      isObject(v) && Array.isArray(v.attestations)
        ? { ...v, attestations: v.attestations.map((a) => (isObject(a) ? { ...a, conditions: null } : a)) }
        : v,
    ),
  };
}

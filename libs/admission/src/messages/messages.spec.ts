import type { PolicyResponse, RuleResponse } from '@edict/engine';
import { describe, expect, it } from 'vitest';
import { marshalNestedStringMap, compareKeys } from './go-yaml';
import { blockedMessage, failedRulesWithErrors, warningMessages } from './messages';

const rule = (name: string, status: RuleResponse['status'], message: string): RuleResponse => ({
  name,
  type: 'Validation',
  status,
  message,
});

const response = (policy: string, rules: RuleResponse[], namespace = 'team-a'): PolicyResponse => ({
  policy: { name: policy, kind: 'ClusterPolicy' },
  resource: { apiVersion: 'v1', kind: 'Pod', name: 'web', namespace },
  rules,
  validationFailureAction: 'Enforce',
});

const yaml = (entries: Record<string, Record<string, string>>) =>
  marshalNestedStringMap(new Map(Object.entries(entries).map(([k, v]) => [k, new Map(Object.entries(v))])));

describe('blockedMessage (Kyverno GetBlockedMessages)', () => {
  it('names the resource and lists the failing rule under its policy', () => {
    expect(blockedMessage([response('require-labels', [rule('check-team', 'fail', 'team label missing')])])).toBe(
      '\n\nresource Pod/team-a/web was blocked due to the following policies \n\nrequire-labels:\n  check-team: team label missing\n',
    );
  });

  it('lists errors too, sorts policies and rules, and leaves out passing and skipped rules', () => {
    const message = blockedMessage([
      response('zeta', [rule('b-rule', 'error', 'boom'), rule('a-rule', 'fail', 'bad'), rule('ok', 'pass', 'fine')]),
      response('alpha', [rule('skipped', 'skip', 'preconditions not met'), rule('warned', 'warn', 'careful')]),
      response('passing', [rule('fine', 'pass', 'ok')]),
    ]);
    expect(message).toBe(
      '\n\nresource Pod/team-a/web was blocked due to the following policies \n\n' +
        'alpha:\n  warned: careful\nzeta:\n  a-rule: bad\n  b-rule: boom\n',
    );
  });

  it('leaves the namespace empty for cluster-scoped resources and is empty when nothing failed', () => {
    const clusterScoped = response('p', [rule('r', 'fail', 'no')], '');
    clusterScoped.resource = { apiVersion: 'v1', kind: 'Namespace', name: 'prod' };
    expect(blockedMessage([clusterScoped])).toContain('resource Namespace//prod was blocked');
    expect(blockedMessage([response('p', [rule('r', 'pass', 'ok')])])).toBe('');
    expect(blockedMessage([])).toBe('');
  });
});

describe('yaml.v2 scalar output', () => {
  it('single-quotes messages holding ": " and folds them after column 80 at the value indent', () => {
    const message =
      'validation error: Running as root is not allowed. The fields spec.securityContext.runAsNonRoot and spec.containers[*].securityContext.runAsNonRoot must be true.';
    expect(yaml({ 'require-run-as-nonroot': { 'run-as-non-root': message } })).toBe(
      'require-run-as-nonroot:\n' +
        // The space after "fields" sits at column 80, not past it: the fold comes one word later.
        "  run-as-non-root: 'validation error: Running as root is not allowed. The fields spec.securityContext.runAsNonRoot\n" +
        "    and spec.containers[*].securityContext.runAsNonRoot must be true.'\n",
    );
  });

  it('folds plain scalars too, and never inside a run of spaces', () => {
    const words = 'word '.repeat(20).trim();
    const out = yaml({ p: { r: words } });
    expect(out.split('\n').every((line) => line.length <= 85)).toBe(true);
    expect(out.replace(/\n {4}/g, ' ')).toBe(`p:\n  r: ${words}\n`);
  });

  it('doubles single quotes inside single-quoted scalars', () => {
    expect(yaml({ p: { r: "can't: here" } })).toBe("p:\n  r: 'can''t: here'\n");
  });

  it('double-quotes strings that would read back as other types', () => {
    expect(yaml({ p: { a: 'true', b: '12', c: '', d: '1.5e3', e: 'null', f: '0x1F', g: '2024-01-02' } })).toBe(
      'p:\n  a: "true"\n  b: "12"\n  c: ""\n  d: "1.5e3"\n  e: "null"\n  f: "0x1F"\n  g: "2024-01-02"\n',
    );
    expect(yaml({ p: { a: 'yes please', b: '12 apples' } })).toBe('p:\n  a: yes please\n  b: 12 apples\n');
  });

  it('writes multi-line messages as literal blocks, with the chomping indicator', () => {
    expect(yaml({ p: { r: 'first line\nsecond line' } })).toBe('p:\n  r: |-\n    first line\n    second line\n');
    expect(yaml({ p: { r: 'ends with newline\n' } })).toBe('p:\n  r: |\n    ends with newline\n');
  });

  it('escapes control characters in double quotes', () => {
    expect(yaml({ p: { r: 'tab\there' } })).toBe('p:\n  r: "tab\\there"\n');
    expect(yaml({ p: { r: 'trailing space\n ' } })).toBe('p:\n  r: "trailing space\\n "\n');
  });

  it('quotes keys that need it', () => {
    expect(yaml({ p: { '- dash': 'x', 'has: colon': 'v' } })).toBe("p:\n  '- dash': x\n  'has: colon': v\n");
    // yaml.v2 reads a bare `y` as a YAML 1.1 bool, so it quotes it.
    expect(yaml({ p: { r: 'y' } })).toBe('p:\n  r: "y"\n');
  });

  it('sorts keys like yaml.v2: digit runs by value, non-letters before letters', () => {
    const keys = ['rule-10', 'rule-9', 'rule-a', 'Zeta', 'alpha', 'rule_x'];
    expect([...keys].sort(compareKeys)).toEqual(['Zeta', 'alpha', 'rule-9', 'rule-10', 'rule-a', 'rule_x']);
    expect(['b_', 'bZ'].sort(compareKeys)).toEqual(['b_', 'bZ']);
  });
});

describe('warningMessages (Kyverno GetWarningMessages)', () => {
  it('gives one "policy <name>.<rule>: <message>" per warned, failed or errored rule', () => {
    const warnings = warningMessages([
      response('p', [rule('pass', 'pass', 'x'), rule('warn', 'warn', 'w'), rule('fail', 'fail', 'f')]),
      response('q', [rule('err', 'error', 'e'), rule('skip', 'skip', 's')]),
    ]);
    expect(warnings).toEqual(['policy p.warn: w', 'policy p.fail: f', 'policy q.err: e']);
  });
});

describe('failedRulesWithErrors', () => {
  it('renders the failed rules as Go prints a string slice', () => {
    const out = failedRulesWithErrors(
      response('p', [rule('a', 'error', 'x'), rule('b', 'pass', ''), rule('c', 'fail', 'y')]),
    );
    expect(out).toBe('[a: x c: y]');
  });
});

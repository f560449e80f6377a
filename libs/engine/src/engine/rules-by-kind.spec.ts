import { describe, expect, it } from 'vitest';
import type { GroupVersionKind } from '@edict/foundation';
import { compileKindGate, type KindGate } from '../match';
import type { Rule } from '../policy/types';
import { RulesByKind } from './rules-by-kind';

const rule = (name: string, kinds: string[]): Rule => ({ name, match: { any: [{ resources: { kinds } }] } });
const pod: GroupVersionKind = { group: '', version: 'v1', kind: 'Pod' };
const deployment: GroupVersionKind = { group: 'apps', version: 'v1', kind: 'Deployment' };

function gated(rules: Rule[]): Map<Rule, KindGate> {
  return new Map(rules.map((r) => [r, compileKindGate(r)!]));
}

describe('RulesByKind', () => {
  const podRule = rule('pod', ['Pod']);
  const controllers = rule('autogen-pod', ['Deployment', 'DaemonSet']);
  const cronjobs = rule('autogen-cronjob-pod', ['CronJob']);
  const anyKind = rule('any', ['*']);
  const rules = [podRule, controllers, anyKind, cronjobs];

  it('keeps, in order, the rules whose kinds can match', () => {
    const byKind = new RulesByKind(gated(rules));
    expect(byKind.select(rules, pod, '')).toEqual([podRule, anyKind]);
    expect(byKind.select(rules, deployment, '')).toEqual([controllers, anyKind]);
    expect(byKind.select(rules, pod, '')).toBe(byKind.select(rules, pod, ''));
  });

  it('tells apart kinds that differ in group, version or subresource only', () => {
    const byKind = new RulesByKind(gated(rules));
    expect(byKind.select(rules, pod, '')).toEqual([podRule, anyKind]);
    expect(byKind.select(rules, { group: 'custom.io', version: 'v1', kind: 'Deployment' }, '')).toEqual([
      controllers,
      anyKind,
    ]);
    const exec = rule('exec', ['Pod/exec']);
    const withExec = [exec, podRule];
    const execByKind = new RulesByKind(gated(withExec));
    expect(execByKind.select(withExec, pod, '')).toEqual([podRule]);
    expect(execByKind.select(withExec, pod, 'exec')).toContain(exec);
  });

  it('keeps rules without a gate (matched by the interpreter) and lists it was not built for', () => {
    const users: Rule = { name: 'users', match: { any: [{ resources: { kinds: ['Secret'] }, subjects: [] }] } };
    const byKind = new RulesByKind(gated(rules));
    expect(byKind.select([users, cronjobs], pod, '')).toEqual([users]);
    expect(new RulesByKind(new Map()).select(rules, pod, '')).toBe(rules);
  });

  it('remembers a bounded number of kinds per list', () => {
    const byKind = new RulesByKind(gated(rules));
    const first = byKind.select(rules, pod, '');
    for (let i = 0; i < 40; i++) byKind.select(rules, { group: 'g', version: 'v1', kind: `Kind${i}` }, '');
    const again = byKind.select(rules, pod, '');
    expect(again).toEqual(first);
    expect(again).not.toBe(first);
  });
});

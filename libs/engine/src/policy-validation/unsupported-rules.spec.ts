import { describe, expect, it } from 'vitest';
import type { Policy, Rule } from '../policy';
import { checkRulesEdictRuns } from './unsupported-rules';

const policy = (rules: Rule[]): Policy => ({
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'p' },
  spec: { rules },
});
const match = { any: [{ resources: { kinds: ['Pod'] } }] };

describe('checkRulesEdictRuns', () => {
  it('accepts the rule types Edict runs', () => {
    expect(
      checkRulesEdictRuns(
        policy([
          { name: 'pattern', match, validate: { pattern: { metadata: { name: '?*' } } } },
          { name: 'mutate', match, mutate: { patchStrategicMerge: { metadata: { labels: { a: 'b' } } } } },
        ]),
      ),
    ).toEqual([]);
  });

  it('refuses verifyImages, validate.cel and validate.assert, naming the rule and the field', () => {
    const problems = checkRulesEdictRuns(
      policy([
        { name: 'ok', match, validate: { deny: {} } },
        { name: 'signed', match, verifyImages: [{ imageReferences: ['*'] }] },
        { name: 'cel', match, validate: { cel: { expressions: [{ expression: 'true' }] } } as Rule['validate'] },
        { name: 'assert', match, validate: { assert: { object: {} } } as unknown as Rule['validate'] },
      ]),
    );
    expect(problems.map((problem) => [problem.object, problem.path, problem.message.split(':')[0]])).toEqual([
      ['ClusterPolicy/p', 'spec.rules[1].verifyImages', 'rule signed'],
      ['ClusterPolicy/p', 'spec.rules[2].validate.cel', 'rule cel'],
      ['ClusterPolicy/p', 'spec.rules[3].validate.assert', 'rule assert'],
    ]);
    expect(problems[0]!.message).toContain('Edict does not run verifyImages rules yet');
    expect(problems[1]!.message).toContain('CEL expressions (validate.cel) is not supported by this engine yet');
  });
});

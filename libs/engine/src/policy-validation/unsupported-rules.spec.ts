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

  it('refuses verifyImages options Edict lacks and validate.assert, naming the rule and the field', () => {
    const problems = checkRulesEdictRuns(
      policy([
        { name: 'ok', match, validate: { deny: {} } },
        {
          name: 'keyed',
          match,
          verifyImages: [{ imageReferences: ['*'], attestors: [{ entries: [{ keys: { publicKeys: 'pem' } }] }] }],
        },
        {
          name: 'signed',
          match,
          verifyImages: [{ imageReferences: ['*'], attestors: [{ entries: [{ keys: { kms: 'awskms:///k' } }] }] }],
        },
        { name: 'cel', match, validate: { cel: { expressions: [{ expression: 'true' }] } } },
        { name: 'assert', match, validate: { assert: { object: {} } } as unknown as Rule['validate'] },
      ]),
    );
    expect(problems.map((problem) => [problem.object, problem.path, problem.message.split(':')[0]])).toEqual([
      ['ClusterPolicy/p', 'spec.rules[2].verifyImages[0].attestors[0].entries[0].keys.kms', 'rule signed'],
      ['ClusterPolicy/p', 'spec.rules[4].validate.assert', 'rule assert'],
    ]);
    expect(problems[0]!.message).toContain('KMS keys are not supported by Edict');
    expect(problems[1]!.message).toContain('assertion trees (validate.assert) is not supported by this engine yet');
  });

  it('refuses CEL expressions that do not compile, naming the rule and each expression', () => {
    const problems = checkRulesEdictRuns(
      policy([
        {
          name: 'replicas',
          match,
          celPreconditions: [{ name: 'typo', expression: 'object.metadata.name ==' }],
          validate: {
            cel: {
              variables: [{ name: 'x', expression: 'nosuchvariable.spec' }],
              expressions: [
                { expression: 'object.spec.replicas <= 3' },
                { expression: '"text"', messageExpression: 'authorizer.path("/").check("get").allowed()' },
                { expression: 'params.max > 1' },
              ],
            },
          },
        },
      ]),
    );
    expect(problems.map((problem) => [problem.path, problem.message])).toEqual([
      [
        'spec.rules[0].celPreconditions[0].expression',
        'rule replicas: CEL expression does not compile: Unexpected token: EOF (at character 24)',
      ],
      [
        'spec.rules[0].validate.cel.variables[0].expression',
        'rule replicas: CEL expression does not compile: Unknown variable: nosuchvariable (at character 1)',
      ],
      [
        'spec.rules[0].validate.cel.expressions[1].expression',
        'rule replicas: CEL expression does not compile: expression must evaluate to bool, not string',
      ],
      [
        'spec.rules[0].validate.cel.expressions[1].messageExpression',
        'rule replicas: CEL expression does not compile: Unknown variable: authorizer (at character 1)',
      ],
      [
        'spec.rules[0].validate.cel.expressions[2].expression',
        'rule replicas: CEL expression does not compile: Unknown variable: params (at character 1)',
      ],
    ]);
  });
});

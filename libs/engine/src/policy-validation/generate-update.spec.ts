import { describe, expect, it } from 'vitest';
import { validatePolicy } from './index';
import { errors, expectNoErrors, policyFromYaml, warnings } from '@edict/engine/testing';

const NO_SYNC = 'no synchronization will be performed to the old target resource upon policy updates: ';

interface RuleShape {
  name?: string;
  kinds?: string;
  exclude?: boolean;
  target?: string;
  synchronize?: boolean;
  value?: string;
}

/** A ClusterPolicy with one generate rule whose parts the update tests change one at a time. */
function policy(shape: RuleShape = {}) {
  const { name = 'r', kinds = 'Namespace', exclude = false, target = 'cm', synchronize = true, value = 'a' } = shape;
  return policyFromYaml(
    [
      'background: false',
      'rules:',
      `- name: ${name}`,
      '  match:',
      '    any:',
      '    - resources:',
      `        kinds: [${kinds}]`,
      ...(exclude ? ['  exclude:', '    any:', '    - resources:', '        namespaces: [kube-system]'] : []),
      '  generate:',
      '    apiVersion: v1',
      '    kind: ConfigMap',
      `    name: ${target}`,
      '    namespace: "{{request.object.metadata.name}}"',
      `    synchronize: ${synchronize}`,
      '    data:',
      '      data:',
      `        key: ${value}`,
    ].join('\n'),
  );
}

const update = (from: RuleShape, to: RuleShape) => validatePolicy(policy(to), { previous: policy(from) });

describe('validatePolicy: updates of generate rules', () => {
  it('admits changes to synchronize and data without a word', () => {
    const ds = update({}, { synchronize: false, value: 'b' });
    expect(ds).toEqual([]);
  });

  it('warns, but admits, a change of what a rule generates', () => {
    const ds = update({}, { target: 'other' });
    expectNoErrors(ds);
    expect(warnings(ds).map((d) => d.message)).toEqual([
      `${NO_SYNC}changes in the generate rule pattern could result in stale targets`,
    ]);
  });

  it('refuses renaming a rule or changing its other fields, naming them', () => {
    expect(errors(update({}, { name: 's' })).map((d) => d.message)).toEqual([
      'changes of immutable fields of a rule spec in a generate rule is disallowed: rule "r" was removed or renamed; add a new rule instead of changing the existing one, or delete and recreate the policy',
    ]);
    const excluded = update({}, { exclude: true });
    expect(errors(excluded).map((d) => d.message)).toEqual([
      expect.stringContaining('rule "r" changed fields [exclude];'),
    ]);
    expect(warnings(excluded).map((d) => d.message)).toEqual([NO_SYNC]);
  });

  it('lets match change only while no rule of the old policy synchronizes', () => {
    expect(errors(update({}, { kinds: 'Namespace, Secret' })).map((d) => d.message)).toEqual([
      expect.stringContaining('rule "r" changed fields [match];'),
    ]);
    expectNoErrors(update({ synchronize: false }, { synchronize: false, kinds: 'Namespace, Secret' }));
  });

  it('checks nothing without the previous policy', () => {
    expectNoErrors(validatePolicy(policy({ name: 's' })));
  });
});

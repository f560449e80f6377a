import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_EXAMPLES, tempDir } from '../testing/launcher-fixtures';
import { readExamplePolicies } from './example-policies';

const test = (policies: string[]) =>
  `apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: t\npolicies:\n${policies.map((p) => `  - ${p}\n`).join('')}resources: []\n`;

describe('readExamplePolicies', () => {
  it("reads the repository's examples, named by their kyverno-test.yaml", () => {
    const policies = readExamplePolicies(REPO_EXAMPLES);
    expect(policies.map((policy) => [policy.object.kind, policy.object.metadata.name, policy.source])).toEqual([
      ['ClusterPolicy', 'no-privileged-pods', join('examples', 'no-privileged-pods', 'policy.yaml')],
      ['ClusterPolicy', 'require-team-label', join('examples', 'require-team-label', 'policy.yaml')],
    ]);
  });

  it('takes folders, skips other kinds, lists a shared policy once and keeps invalid ones for the API server', () => {
    const root = join(tempDir('examples'), 'examples');
    mkdirSync(join(root, 'a', 'policies'), { recursive: true });
    mkdirSync(join(root, 'b'));
    writeFileSync(join(root, 'a', 'kyverno-test.yaml'), test(['policies']));
    writeFileSync(
      join(root, 'a', 'policies', 'all.yaml'),
      [
        'apiVersion: kyverno.io/v1\nkind: Policy\nmetadata: { name: p, namespace: shop }\nspec: { rules: [] }',
        'apiVersion: v1\nkind: ConfigMap\nmetadata: { name: c }',
        'apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: { name: invalid }\nspec: { background: maybe }',
      ].join('\n---\n'),
    );
    writeFileSync(join(root, 'b', 'kyverno-test.yml'), test(['../a/policies/all.yaml']));
    const policies = readExamplePolicies(root);
    expect(policies.map((policy) => `${policy.object.kind}/${policy.object.metadata.name}`)).toEqual([
      'Policy/p',
      'ClusterPolicy/invalid',
    ]);
    expect(policies[0]!.source).toBe(join('examples', 'a', 'policies', 'all.yaml'));
  });

  it('names what is missing or broken', () => {
    expect(() => readExamplePolicies('/nonexistent/examples')).toThrow(
      'examples folder not found: /nonexistent/examples',
    );
    const root = tempDir('examples');
    writeFileSync(join(root, 'kyverno-test.yaml'), test(['gone.yaml', 'bad.yaml']));
    expect(() => readExamplePolicies(root)).toThrow(`policy file not found: ${join(root, 'gone.yaml')}`);
    writeFileSync(join(root, 'kyverno-test.yaml'), test(['bad.yaml']));
    writeFileSync(join(root, 'bad.yaml'), 'kind: [unclosed\n');
    expect(() => readExamplePolicies(root)).toThrow(`${join(root, 'bad.yaml')} (document 1)`);
  });
});

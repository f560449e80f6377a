import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { writeTree } from '@edict/kyverno-test/testing';
import { runCli as cli } from '../../testing/run-cli';

const oldTest = `name: legacy
policies:
  - policy.yaml
resources:
  - resources.yaml
userinfo: user.yaml
variables: values.yaml
results:
  - policy: p
    rule: r
    resource: b
    kind: Pod
    status: fail
  - policy: p
    rule: r
    resources: [a]
    kind: Pod
    result: fail
  - policy: q
    rule: r
    resources: [c, c]
    namespace: team
    kind: Pod
    result: pass
`;

describe('edict fix test', () => {
  it('prints the fixes Kyverno makes to a test file and its user info and values files', async () => {
    const dir = writeTree({
      'kyverno-test.yaml': oldTest,
      'user.yaml': 'clusterRoles: [admin]\n',
      'values.yaml': 'policies: []\n',
    });
    const run = await cli(['fix', 'test', dir]);
    expect(run.code).toBe(0);
    const path = join(dir, 'kyverno-test.yaml');
    expect(run.out).toBe(
      [
        `Processing test file (${path})...`,
        '  WARNING: api version is not set, setting `cli.kyverno.io/v1alpha1`',
        '  WARNING: kind is not set, setting `Test`',
        '  WARNING: name is deprecated, moving it into `metadata.name`',
        '  WARNING: test result uses deprecated `resource` field, moving it into the `resources` field',
        '  WARNING: test result uses deprecated `status` field, moving it into the `result` field',
        '  WARNING: test results contains duplicate resources',
        '  WARNING: test result uses deprecated `namespace` field, replacing `policy` with a `<namespace>/<name>` pattern',
        '  Processing user info file (user.yaml)...',
        '  WARNING: api version is not set, setting `cli.kyverno.io/v1alpha1`',
        '  WARNING: kind is not set, setting `UserInfo`',
        '  Processing values file (values.yaml)...',
        '  WARNING: api version is not set, setting `cli.kyverno.io/v1alpha1`',
        '  WARNING: kind is not set, setting `Values`',
        '',
        'Done.',
        '',
      ].join('\n'),
    );
    expect(readFileSync(path, 'utf8')).toBe(oldTest); // not saved without --save
  });

  it('with --save --compress, rewrites the files: results merged and sorted, keys in order', async () => {
    const dir = writeTree({
      'kyverno-test.yaml': oldTest,
      'user.yaml': 'clusterRoles: [admin]\n',
      'values.yaml': 'policies: []\n',
    });
    const run = await cli(['fix', 'test', dir, '--save', '--compress']);
    expect(run.out).toContain(`  Saving test file (${join(dir, 'kyverno-test.yaml')})...\n    OK\n`);
    expect(run.out).toContain(`  Saving user info file (${join(dir, 'user.yaml')})...\n    OK\n`);
    const saved = readFileSync(join(dir, 'kyverno-test.yaml'), 'utf8');
    expect(saved).toBe(
      [
        'apiVersion: cli.kyverno.io/v1alpha1',
        'kind: Test',
        'metadata:',
        '  name: legacy',
        'policies:',
        '- policy.yaml',
        'resources:',
        '- resources.yaml',
        'results:',
        '- kind: Pod',
        '  policy: p',
        '  resources:',
        '  - b',
        '  - a',
        '  result: fail',
        '  rule: r',
        '- kind: Pod',
        '  policy: team/q',
        '  resources:',
        '  - c',
        '  result: pass',
        '  rule: r',
        'userinfo: user.yaml',
        'variables: values.yaml',
        '',
      ].join('\n'),
    );
    expect(parse(readFileSync(join(dir, 'user.yaml'), 'utf8'))).toEqual({
      apiVersion: 'cli.kyverno.io/v1alpha1',
      kind: 'UserInfo',
      clusterRoles: ['admin'],
    });
    // Fixed files need nothing more: no save, unless --force.
    const again = await cli(['fix', 'test', dir, '--save']);
    expect(again.out).not.toContain('Saving');
    expect((await cli(['fix', 'test', dir, '--save', '--force'])).out).toContain('Saving test file');
  });

  it('reports a result with both status and result, a test without name and a broken file, and goes on', async () => {
    const dir = writeTree({
      'a/kyverno-test.yaml':
        'policies: [p.yaml]\nresources: [r.yaml]\nresults:\n- policy: p\n  status: pass\n  result: pass\n',
      'b/kyverno-test.yaml': 'results: [\n',
      'c/my-test.yaml': 'apiVersion: cli.kyverno.io/v1alpha1\nkind: Test\npolicies: [p.yaml]\nresources: [r.yaml]\n',
    });
    const run = await cli(['fix', 'test', dir]);
    expect(run.code).toBe(0);
    expect(run.out).toContain(
      '  WARNING: name is not set\n  WARNING: api version is not set, setting `cli.kyverno.io/v1alpha1`\n' +
        '  WARNING: kind is not set, setting `Test`\n' +
        `  ERROR: test result should not use both \`status\` and \`result\` fields\nProcessing test file (${join(dir, 'b/kyverno-test.yaml')})...\n  ERROR: loading test file (${join(dir, 'b/kyverno-test.yaml')}): ${join(dir, 'b/kyverno-test.yaml')} (document 1`,
    );
    const named = await cli(['fix', 'test', dir, '--file-name', 'my-test.yaml', '--save']);
    expect(named.out).toContain('  WARNING: name is not set\n  Saving test file');
    expect(parse(readFileSync(join(dir, 'c/my-test.yaml'), 'utf8')).metadata).toEqual({ name: 'my-test.yaml' });
  });

  it("fails as Kyverno's does without folders, with an empty file name, or a missing folder", async () => {
    expect(await cli(['fix', 'test'])).toMatchObject({
      code: 1,
      err: 'Error: requires at least 1 arg(s), only received 0\n',
    });
    expect(await cli(['fix', 'test', '.', '--file-name', ''])).toMatchObject({
      code: 1,
      err: 'Error: file-name must not be set to an empty string\n',
    });
    expect(await cli(['fix', 'test', '/nonexistent/edict-fix'])).toMatchObject({
      code: 1,
      err: 'Error: open /nonexistent/edict-fix: no such file or directory\n',
    });
  });
});

const oldPolicy = `apiVersion: kyverno.io/v1
kind: ClusterPolicy
metadata:
  name: cp
  uid: 1234
spec:
  validationFailureAction: enforce
  rules:
  - name: r
    match:
      resources:
        kinds:
        - Pod
      clusterRoles: [admin]
    exclude:
      resources:
        namespaces: [kube-system]
    preconditions:
    - key: "{{ request.operation }}"
      operator: Equal
      value: CREATE
    - key: a
      operator: NotIn
      value: [b]
    validate:
      message: m
      pattern:
        metadata:
          labels:
            app: "?*"
status:
  ready: true
`;

describe('edict fix policy', () => {
  it('prints the fixes Kyverno makes, and with --save rewrites policies keeping the other documents', async () => {
    const dir = writeTree({
      'policies/policy.yaml': `${oldPolicy}---\n# a ConfigMap beside it\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: keep\n`,
      'policies/notes.txt': 'not yaml',
      'policies/broken.yaml': 'a: [\n',
      'policies/fine.yml':
        'apiVersion: kyverno.io/v1\nkind: Policy\nmetadata: {name: p, namespace: n}\nspec:\n  validationFailureAction: Audit\n  rules: []\n',
    });
    const path = join(dir, 'policies/policy.yaml');
    const run = await cli(['fix', 'policy', dir]);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      [
        `Processing file (${join(dir, 'policies/fine.yml')})...`,
        `Processing file (${path})...`,
        '  WARNING: match uses old syntax, moving to any',
        '  WARNING: exclude uses old syntax, moving to any',
        '  WARNING: condition uses old operator `Equal`, updating',
        '  WARNING: condition uses old operator `NotIn`, updating',
        'Done.',
        '',
      ].join('\n'),
    );
    const saved = await cli(['fix', 'policy', dir, '--save']);
    expect(saved.out).toContain(`  Saving file (${path})...\n    OK\n`);
    expect(saved.out).not.toContain('Saving file (' + join(dir, 'policies/fine.yml'));
    const docs = parseAllDocuments(readFileSync(path, 'utf8')).map((doc) => doc.toJS());
    expect(docs).toEqual([
      {
        apiVersion: 'kyverno.io/v1',
        kind: 'ClusterPolicy',
        metadata: { name: 'cp' },
        spec: {
          validationFailureAction: 'Enforce',
          rules: [
            {
              name: 'r',
              match: { any: [{ resources: { kinds: ['Pod'] }, clusterRoles: ['admin'] }] },
              exclude: { any: [{ resources: { namespaces: ['kube-system'] } }] },
              preconditions: {
                all: [
                  { key: '{{ request.operation }}', operator: 'Equals', value: 'CREATE' },
                  { key: 'a', operator: 'AnyNotIn', value: ['b'] },
                ],
              },
              validate: { message: 'm', pattern: { metadata: { labels: { app: '?*' } } } },
            },
          ],
        },
      },
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'keep' } },
    ]);
    expect(readFileSync(path, 'utf8')).toContain('# a ConfigMap beside it');
    // Once fixed, nothing more to change.
    expect((await cli(['fix', 'policy', path, '--save'])).out).toBe(`Processing file (${path})...\nDone.\n`);
  });

  it('sets Audit when no validationFailureAction is given, and needs at least one folder', async () => {
    const dir = writeTree({
      'p.yaml': 'apiVersion: kyverno.io/v1\nkind: ClusterPolicy\nmetadata: {name: p}\nspec:\n  rules: []\n',
    });
    await cli(['fix', 'policy', dir, '--save']);
    expect(parse(readFileSync(join(dir, 'p.yaml'), 'utf8')).spec.validationFailureAction).toBe('Audit');
    expect(await cli(['fix', 'policy'])).toMatchObject({
      code: 1,
      err: 'Error: requires at least 1 arg(s), only received 0\n',
    });
  });

  it('has --help with examples', async () => {
    const help = await cli(['fix', 'test', '--help']);
    expect(help.out).toContain('Fix inconsistencies and deprecated usage in Kyverno test files.');
    expect(help.out).toContain('Example:\n  # Fix Kyverno test files\n  edict fix test .');
    expect((await cli(['fix'])).out).toContain('It can be used to fix Kyverno test files.');
  });
});

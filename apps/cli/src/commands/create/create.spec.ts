import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { runCli as cli } from '../../testing/run-cli';

const lines = (...text: string[]) => text.join('\n') + '\n';

describe('edict create exception', () => {
  it('writes the PolicyException Kyverno writes, with --any filters', async () => {
    const run = await cli([
      'create',
      'exception',
      'test',
      '--policy-rules',
      'policy,rule-1,rule-2',
      '--any',
      'kind=Pod,kind=Deployment,name=test-*',
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      lines(
        'apiVersion: kyverno.io/v2beta1',
        'kind: PolicyException',
        'metadata:',
        '  name: test',
        '  namespace: default',
        'spec:',
        '  background: true',
        '  match:',
        '    any:',
        '      -',
        '        kinds:',
        '          - Pod',
        '          - Deployment',
        '        names:',
        '          - test-*',
        '  exceptions:',
        '    - policyName: policy',
        '      ruleNames:',
        '        - rule-1',
        '        - rule-2',
      ),
    );
  });

  it('writes --all filters with namespaces and operations, the namespace and --background=false', async () => {
    const run = await cli([
      'create',
      'exception',
      'test',
      '--namespace',
      'my-ns',
      '--background=false',
      '--policy-rules',
      'policy,rule-1',
      '--policy-rules',
      'lonely',
      '--all',
      'kind=Pod,name=test-*,namespace=test,operation=UPDATE',
      '--all',
      'kind',
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toContain('  namespace: my-ns\nspec:\n  background: false\n');
    expect(run.out).toContain(
      lines(
        '    all:',
        '      -',
        '        kinds:',
        '          - Pod',
        '        names:',
        '          - test-*',
        '        namespaces:',
        '          - test',
        '        operations:',
        '          - UPDATE',
        '  exceptions:',
        '    - policyName: policy',
        '      ruleNames:',
        '        - rule-1',
      ),
    );
    expect(parse(run.out).spec.exceptions).toHaveLength(1); // `lonely` names no rule: left out
  });

  it("fails as Kyverno's does without a name, with two, or without --policy-rules", async () => {
    const none = await cli(['create', 'exception', '--policy-rules', 'p,r']);
    expect(none).toMatchObject({ code: 1, err: 'Error: accepts 1 arg(s), received 0\n' });
    expect((await cli(['create', 'exception', 'a', 'b', '--policy-rules', 'p,r'])).err).toBe(
      'Error: accepts 1 arg(s), received 2\n',
    );
    const noRules = await cli(['create', 'exception', 'a']);
    expect(noRules).toMatchObject({ code: 1, err: 'Error: required flag(s) "policy-rules" not set\n' });
  });

  it('writes to the -o file instead of stdout', async () => {
    const file = join(mkdtempSync(join(tmpdir(), 'edict-create-')), 'exception.yaml');
    const run = await cli(['create', 'exception', 'e', '--policy-rules', 'p,r', '-o', file]);
    expect(run).toMatchObject({ code: 0, out: '' });
    expect(parse(readFileSync(file, 'utf8'))).toMatchObject({ kind: 'PolicyException', metadata: { name: 'e' } });
    const bad = await cli(['create', 'exception', 'e', '--policy-rules', 'p,r', '-o', join(file, 'nope', 'x.yaml')]);
    expect(bad.code).toBe(1);
    expect(bad.err).toContain(`Error: open ${join(file, 'nope', 'x.yaml')}:`);
  });
});

describe('edict create metrics-config', () => {
  it("writes Kyverno's metrics ConfigMap with the namespaces as indented JSON", async () => {
    const run = await cli([
      'create',
      'metrics-config',
      '-i',
      'ns-included-1',
      '-i',
      'ns-included-2,a<b',
      '-e',
      'ns-excluded',
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      lines(
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: kyverno-metrics',
        '  namespace: kyverno',
        'data:',
        '  namespaces: |',
        '    {',
        '      "include": [',
        '        "ns-included-1",',
        '        "ns-included-2",',
        '        "a\\u003cb"',
        '      ],',
        '      "exclude": [',
        '        "ns-excluded"',
        '      ]',
        '    }',
      ),
    );
  });

  it('writes {} without namespaces, takes --name and --namespace, and refuses arguments', async () => {
    const run = await cli(['create', 'metrics-config', '-n', 'm', '--namespace', 'ns']);
    expect(run.out).toBe(
      lines(
        'apiVersion: v1',
        'kind: ConfigMap',
        'metadata:',
        '  name: m',
        '  namespace: ns',
        'data:',
        '  namespaces: |',
        '    {}',
      ),
    );
    expect(await cli(['create', 'metrics-config', 'foo'])).toMatchObject({
      code: 1,
      err: 'Error: unknown command "foo" for "edict create metrics-config"\n',
    });
  });
});

describe('edict create test', () => {
  it('writes a cli.kyverno.io/v1alpha1 Test with the expected results', async () => {
    const run = await cli([
      'create',
      'test',
      '-n',
      'my-test',
      '-p',
      'policy.yaml,other.yaml',
      '-r',
      'resource.yaml',
      '-f',
      'values.yaml',
      '--pass',
      'policy-name,rule-name,resource-name,resource-namespace,resource-kind',
      '--fail',
      'p,r,bad,ns,Pod,patched.yaml',
      '--skip',
      'too,few',
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      lines(
        'apiVersion: cli.kyverno.io/v1alpha1',
        'kind: Test',
        'metadata:',
        '  name: my-test',
        'policies:',
        '  - policy.yaml',
        '  - other.yaml',
        'resources:',
        '  - resource.yaml',
        'variables: values.yaml',
        'results:',
        '  - policy: policy-name',
        '    rule: rule-name',
        '    resources:',
        '      - resource-name',
        '    namespace: resource-namespace',
        '    kind: resource-kind',
        '    result: pass',
        '  - policy: p',
        '    rule: r',
        '    resources:',
        '      - bad',
        '    namespace: ns',
        '    kind: Pod',
        '    patchedResource: patched.yaml',
        '    result: fail',
      ),
    );
  });

  it('defaults the name to test-name, and refuses arguments', async () => {
    const run = await cli(['create', 'test']);
    expect(run.out).toBe(
      lines(
        'apiVersion: cli.kyverno.io/v1alpha1',
        'kind: Test',
        'metadata:',
        '  name: test-name',
        'policies:',
        'resources:',
        'results:',
      ),
    );
    expect(await cli(['create', 'test', 'foo'])).toMatchObject({
      code: 1,
      err: 'Error: unknown command "foo" for "edict create test"\n',
    });
    expect((await cli(['create', 'test', '--xxx'])).code).toBe(1);
  });

  it('has --help with an example', async () => {
    const help = await cli(['create', 'test', '--help']);
    expect(help.code).toBe(0);
    expect(help.out).toContain('Create a Kyverno test file.');
    expect(help.out).toContain('Example:\n  # Create test file\n  edict create test -p policy.yaml');
  });
});

describe('edict create user-info', () => {
  it("writes Kyverno's user info file", async () => {
    const run = await cli([
      'create',
      'user-info',
      '-u',
      'molybdenum@somecorp.com',
      '-g',
      'basic-user',
      '-c',
      'admin,viewer',
      '-r',
      'dev',
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      lines(
        '# list of roles',
        'roles:',
        '  - dev',
        '',
        '# list of cluster roles',
        'clusterRoles:',
        '  - admin',
        '  - viewer',
        '',
        'userInfo:',
        '  # user name',
        '  username: molybdenum@somecorp.com',
        '',
        '  # list of groups',
        '  groups:',
        '    - basic-user',
      ),
    );
  });
});

describe('edict create values', () => {
  it("writes Kyverno's values file, maps in key order", async () => {
    const run = await cli([
      'create',
      'values',
      '-g',
      'request.mode=dev,b=2',
      '-g',
      'broken',
      '-n',
      'prod,env=prod,tier=web',
      '--rule',
      'policy,rule,env=demo',
      '--resource',
      'policy,resource,z=1,a=2',
    ]);
    expect(run.code).toBe(0);
    expect(run.out).toBe(
      lines(
        '# list of policy values',
        'policies:',
        '  - name: policy',
        '    rules:',
        '      - name: rule',
        '        values:',
        '          env: demo',
        '  - name: policy',
        '    resources:',
        '      - name: resource',
        '        values:',
        '          a: 2',
        '          z: 1',
        '',
        '# list of global values',
        'globalValues:',
        '  b: 2',
        '  request.mode: dev',
        '',
        '# list of namespace selectors',
        'namespaceSelector:',
        '  - name: prod',
        '    labels:',
        '      env: prod',
        '      tier: web',
      ),
    );
  });
});

describe('edict create', () => {
  it('prints its help, with examples, when no sub-command is given', async () => {
    const run = await cli(['create']);
    expect(run.code).toBe(0);
    expect(run.out).toContain('Helps with the creation of various Kyverno resources.');
    expect(run.out).toContain('exception');
    expect(run.out).toContain('# Create values file');
  });
});

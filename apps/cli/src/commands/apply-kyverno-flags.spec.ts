import { afterEach, describe, expect, it, vi } from 'vitest';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { defaultEngineFactory } from '@edict/kyverno-test';
import { FakeEngine, rule, clusterPolicy, pod, yaml, writeTree, type FakeRules } from '@edict/kyverno-test/testing';
import { buildProgram } from '../program';
import { runCli as cli, runCliOn } from '../testing/run-cli';

afterEach(() => vi.restoreAllMocks());

/*
 * Kyverno's `apply` and `test` flags (cmd/cli/kubectl-kyverno/commands/{apply,test}/command.go and the
 * generated docs/user/cli/commands pages), with their short names. Each must be registered; the
 * `refused` ones fail with a message naming the flag.
 */
const KYVERNO_APPLY_FLAGS: [string, string?][] = [
  ['audit-warn'],
  ['batch-size'],
  ['cluster', 'c'],
  ['cluster-wide-resources'],
  ['concurrent'],
  ['context'],
  ['context-file'],
  ['continue-on-error'],
  ['continue-on-fail'],
  ['crd-paths'],
  ['detailed-results'],
  ['exception', 'e'],
  ['exceptions'],
  ['exceptions-with-resources'],
  ['generate-exceptions'],
  ['generated-exception-ttl'],
  ['git-branch', 'b'],
  ['json'],
  ['kubeconfig'],
  ['namespace', 'n'],
  ['output', 'o'],
  ['output-format'],
  ['parameter-resource'],
  ['password'],
  ['policy-report', 'p'],
  ['registry'],
  ['remove-color'],
  ['resource', 'r'],
  ['resources'],
  ['set', 's'],
  ['show-performance'],
  ['stdin', 'i'],
  ['table', 't'],
  ['target-resource'],
  ['target-resources'],
  ['userinfo', 'u'],
  ['username'],
  ['values-file', 'f'],
  ['warn-exit-code'],
  ['warn-no-pass'],
];
const KYVERNO_TEST_FLAGS: [string, string?][] = [
  ['detailed-results'],
  ['fail-only'],
  ['file-name', 'f'],
  ['git-branch', 'b'],
  ['output-format'],
  ['registry'],
  ['remove-color'],
  ['require-tests'],
  ['test-case-selector', 't'],
];
const REFUSED_APPLY_FLAGS = [
  ['--git-branch', 'main'],
  ['--username', 'u'],
  ['--password', 'p'],
];

function subcommand(name: string): Command {
  const program = buildProgram(
    { out: () => undefined, err: () => undefined },
    { code: 0 },
    new FakeEngine(() => []).factory(),
  );
  return program.commands.find((command) => command.name() === name)!;
}

describe("Kyverno's flag lists", () => {
  it.each([
    ['apply', KYVERNO_APPLY_FLAGS],
    ['test', KYVERNO_TEST_FLAGS],
  ] as const)('registers every flag of kyverno %s, with its short name', (name, flags) => {
    const options = subcommand(name).options;
    for (const [long, short] of flags) {
      const option = options.find((o) => o.long === `--${long}`);
      expect(option, `--${long}`).toBeDefined();
      if (short) expect(option?.short, `--${long}`).toBe(`-${short}`);
    }
    // `edict test -o` is Kyverno's `-o, --output-format` under Edict's older name.
    if (name === 'test') expect(options.find((o) => o.short === '-o')?.long).toBe('--output');
  });

  it.each(REFUSED_APPLY_FLAGS)('fails on %s (git sources) with a message naming it', async (...flag) => {
    const dir = files();
    const { err, code } = await cli(['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'pods.yaml'), ...flag]);
    expect(code).toBe(1);
    expect(err).toBe(`Error: ${flag[0]} (git sources) is not supported by edict apply (see docs/cli.md)\n`);
  });

  it('fails on a git policy source with a clear message', async () => {
    const dir = files();
    const { err, code } = await cli([
      'apply',
      'https://github.com/kyverno/policies/pod-security/',
      '-r',
      join(dir, 'pods.yaml'),
    ]);
    expect(code).toBe(1);
    expect(err).toContain('git sources are not supported (https://github.com/kyverno/policies/pod-security/)');
  });
});

/** Policy `p` (rules r, s; with autogen, 6 rules) over pods a (namespace team) and b (default). */
const files = (action = 'Enforce') =>
  writeTree({
    'policy.yaml': yaml(clusterPolicy('p', ['r', 's'], { action })),
    'pods.yaml': yaml(pod('a', 'team'), pod('b')),
  });

const script: FakeRules = (_, request) =>
  request.resource?.metadata.name === 'a'
    ? [rule('r', 'fail', 'label app is required'), rule('s', 'pass', 'ok')]
    : [rule('r', 'pass', 'ok'), rule('s', 'skip', 'not this one')];

describe('edict apply --table', () => {
  it("prints Kyverno's results table instead of the failures and the summary line", async () => {
    const dir = files();
    const { out, code } = await cli(['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'pods.yaml'), '-t'], script);
    expect(code).toBe(1);
    expect(out).toBe(
      [
        '',
        'Applying 6 policy rule(s) to 2 resource(s)...',
        '┌────┬────────┬──────┬───────────────┬────────┬────────┐',
        '│ ID │ POLICY │ RULE │ RESOURCE      │ RESULT │ REASON │',
        '├────┼────────┼──────┼───────────────┼────────┼────────┤',
        '│  1 │ p      │ r    │ team/Pod/a    │ Fail   │        │',
        '│  2 │ p      │ s    │ team/Pod/a    │ Pass   │        │',
        '│  3 │ p      │ r    │ default/Pod/b │ Pass   │        │',
        '│  4 │ p      │ s    │ default/Pod/b │ Skip   │        │',
        '└────┴────────┴──────┴───────────────┴────────┴────────┘',
        '',
      ].join('\n'),
    );
  });

  it('adds the MESSAGE column with --detailed-results, and reads Audit failures as Warn with --audit-warn', async () => {
    const dir = files('Audit');
    const args = ['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'pods.yaml'), '--table', '--detailed-results'];
    const { out, code } = await cli([...args, '--audit-warn'], script);
    expect(out).toContain('│ ID │ POLICY │ RULE │ RESOURCE      │ RESULT │ REASON │ MESSAGE               │');
    expect(out).toContain('│  1 │ p      │ r    │ team/Pod/a    │ Warn   │        │ label app is required │');
    expect(code).toBe(0);
  });
});

describe('edict apply --generate-exceptions', () => {
  it("prints a PolicyException per failure of a cluster policy, in Kyverno's format", async () => {
    const dir = files();
    const { out, code } = await cli(
      ['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'pods.yaml'), '--generate-exceptions'],
      script,
    );
    expect(code).toBe(1);
    expect(out).toBe(
      [
        '---',
        'apiVersion: kyverno.io/v2beta1',
        'kind: PolicyException',
        'metadata:',
        '  creationTimestamp: null',
        '  labels:',
        '    cleanup.kyverno.io/ttl: 720h0m0s',
        '  name: p-r-team-a',
        'spec:',
        '  exceptions:',
        '  - policyName: p',
        '    ruleNames:',
        '    - r',
        '  match:',
        '    all:',
        '    - resources:',
        '        kinds:',
        '        - Pod',
        '        names:',
        '        - a',
        '        namespaces:',
        '        - team',
        '',
        '',
      ].join('\n'),
    );
  });

  it('takes --generated-exception-ttl (0: no label), --output-format json, and covers the pods of an autogen rule', async () => {
    const dir = writeTree({
      'policy.yaml': yaml(clusterPolicy('p', ['r'])),
      'deploy.yaml': yaml({ apiVersion: 'apps/v1', kind: 'Deployment', metadata: { name: 'web', namespace: 'ns' } }),
    });
    const args = ['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'deploy.yaml'), '--generate-exceptions'];
    const autogen: FakeRules = (_, request) =>
      request.resource?.kind === 'Deployment' ? [rule('autogen-r', 'fail', 'no')] : [];
    const { out } = await cli([...args, '--generated-exception-ttl', '0s', '--output-format', 'json'], autogen);
    expect(out).toBe(
      '---\n' +
        JSON.stringify({
          kind: 'PolicyException',
          apiVersion: 'kyverno.io/v2beta1',
          metadata: { name: 'p-autogen-r-ns-web', creationTimestamp: null },
          spec: {
            match: {
              all: [{ resources: { kinds: ['Deployment', 'Pod'], names: ['web', 'web-*'], namespaces: ['ns'] } }],
            },
            exceptions: [{ policyName: 'p', ruleNames: ['autogen-r', 'r'] }],
          },
        }) +
        '\n\n',
    );
    const ttl = await cli([...args, '--generated-exception-ttl', '90m'], autogen);
    expect(ttl.out).toContain('cleanup.kyverno.io/ttl: 1h30m0s');
    const bad = await cli([...args, '--generated-exception-ttl', 'soon'], autogen);
    expect(bad.code).not.toBe(0);
    expect(bad.err).toContain('time: invalid duration "soon"');
  });
});

describe('edict apply stdin', () => {
  const run = async (args: string[], stdin: string) => {
    let out = '';
    let err = '';
    const result = { code: 0 };
    const io = { out: (t: string) => void (out += t), err: (t: string) => void (err += t), readStdin: () => stdin };
    await buildProgram(io, result, new FakeEngine(script).factory()).parseAsync(['node', 'edict', 'apply', ...args]);
    return { out, err, code: result.code };
  };

  it('reads the resources (or the policies) from stdin for a "-" path', async () => {
    const dir = files();
    const resources = await run([join(dir, 'policy.yaml'), '-r', '-'], yaml(pod('a', 'team')));
    expect(resources.out).toContain('Applying 6 policy rule(s) to 1 resource(s)...');
    expect(resources.out).toContain('pass: 1, fail: 1, warn: 0, error: 0, skip: 0 ');
    const policies = await run(['-', '-r', join(dir, 'pods.yaml')], yaml(clusterPolicy('p', ['r', 's'])));
    expect(policies.out).toContain('Applying 6 policy rule(s) to 2 resource(s)...');
  });

  it('leaves out the Applying line with --stdin, and refuses stdin for both policies and resources', async () => {
    const dir = files();
    const piped = await run([join(dir, 'policy.yaml'), '-r', '-', '--stdin'], yaml(pod('b')));
    expect(piped.out).not.toContain('Applying');
    expect(piped.out).toContain('pass: 1, fail: 0, warn: 0, error: 0, skip: 1 ');
    const both = await run(['-', '-r', '-'], '');
    expect(both.code).toBe(1);
    expect(both.err).toBe('Error: a stdin pipe can be used for either policies or resources, not both\n');
  });
});

describe("edict apply inputs Kyverno's CLI takes", () => {
  it('refuses --set with --values-file, and --json with --resource, with Kyverno’s messages', async () => {
    const dir = writeTree({
      ...treeFiles(),
      'values.yaml': yaml({ apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Value' }),
    });
    const both = await cli(
      ['apply', 'policy.yaml', '-r', 'pods.yaml', '-f', 'values.yaml', '--set', 'a=b'],
      script,
      dir,
    );
    expect(both.err).toBe('Error: pass the values either using set flag or values_file flag\n');
    const json = await cli(['apply', 'policy.yaml', '-r', 'pods.yaml', '--json', 'payload.json'], script, dir);
    expect(json.err).toBe('Error: both resource and json files can not be used together, use one or the other\n');
  });

  it('checks --crd-paths files as Kyverno does', async () => {
    const dir = writeTree(treeFiles());
    const wrong = await cli(['apply', 'policy.yaml', '-r', 'pods.yaml', '--crd-paths', 'crd.json'], script, dir);
    expect(wrong.err).toBe(`Error: CRD file must have .yaml or .yml extension: ${join(dir, 'crd.json')}\n`);
    const missing = await cli(['apply', 'policy.yaml', '-r', 'pods.yaml', '--crd-paths', 'crd.yaml'], script, dir);
    expect(missing.err).toBe(`Error: CRD file does not exist at path: ${join(dir, 'crd.yaml')}\n`);
  });

  it('--show-performance prints what was read and how long it took', async () => {
    const dir = writeTree(treeFiles());
    const { out } = await cli(['apply', 'policy.yaml', '-r', 'pods.yaml', '--show-performance'], script, dir);
    expect(out).toMatch(/\nResource loading performance:\n {2}resources: 2\n {2}JSON payloads: 0\n {2}duration: \S+\n/);
  });

  it('gives admission policies the --parameter-resource objects and CEL policies the --context-file objects', async () => {
    const dir = writeTree({
      'vap.yaml': yaml(
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicy',
          metadata: { name: 'allowed-name' },
          spec: {
            paramKind: { apiVersion: 'v1', kind: 'ConfigMap' },
            matchConstraints: {
              resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
            },
            validations: [{ expression: 'object.metadata.name == params.data.name', message: 'not allowed' }],
          },
        },
        {
          apiVersion: 'admissionregistration.k8s.io/v1',
          kind: 'ValidatingAdmissionPolicyBinding',
          metadata: { name: 'allowed-name' },
          spec: {
            policyName: 'allowed-name',
            paramRef: { name: 'allowed', namespace: 'default' },
            validationActions: ['Deny'],
          },
        },
      ),
      'params.yaml': yaml({
        apiVersion: 'v1',
        kind: 'ConfigMap',
        metadata: { name: 'allowed', namespace: 'default' },
        data: { name: 'a' },
      }),
      'vpol.yaml': yaml({
        apiVersion: 'policies.kyverno.io/v1',
        kind: 'ValidatingPolicy',
        metadata: { name: 'needs-config' },
        spec: {
          matchConstraints: {
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
          },
          validations: [
            {
              expression: 'resource.Get("v1", "configmaps", "default", "settings").data.mode == "on"',
              message: 'settings are off',
            },
          ],
        },
      }),
      'context.yaml': yaml({
        apiVersion: 'cli.kyverno.io/v1alpha1',
        kind: 'Context',
        metadata: { name: 'context' },
        spec: {
          resources: [
            {
              apiVersion: 'v1',
              kind: 'ConfigMap',
              metadata: { name: 'settings', namespace: 'default' },
              data: { mode: 'on' },
            },
          ],
        },
      }),
      'pods.yaml': yaml(pod('a', 'default'), pod('b', 'default')),
    });
    const withParams = await runCliOn(
      defaultEngineFactory,
      ['apply', 'vap.yaml', '-r', 'pods.yaml', '--parameter-resource', 'params.yaml'],
      dir,
    );
    expect(withParams.out).toContain('pass: 1, fail: 1, warn: 0, error: 0, skip: 0 ');
    const withContext = await runCliOn(
      defaultEngineFactory,
      ['apply', 'vpol.yaml', '-r', 'pods.yaml', '--context-file', 'context.yaml'],
      dir,
    );
    expect(withContext.out).toContain('pass: 2, fail: 0, warn: 0, error: 0, skip: 0 ');
    const withoutContext = await runCliOn(defaultEngineFactory, ['apply', 'vpol.yaml', '-r', 'pods.yaml'], dir);
    expect(withoutContext.out).not.toContain('pass: 2, fail: 0');
  });
});

function treeFiles(): Record<string, string> {
  return {
    'policy.yaml': yaml(clusterPolicy('p', ['r', 's'])),
    'pods.yaml': yaml(pod('a', 'team'), pod('b')),
    'payload.json': '{"a": 1}',
  };
}

describe('edict apply --output', () => {
  it('prepares the path as Kyverno does: a .yaml/.yml file created and emptied, anything else a folder', async () => {
    const dir = writeTree({ ...treeFiles(), 'old/out.yaml': 'stale: true\n' });
    await cli(['apply', 'policy.yaml', '-r', 'pods.yaml', '-o', 'old/out.yaml'], script, dir);
    expect(readFileSync(join(dir, 'old/out.yaml'), 'utf8')).toBe('');
    await cli(['apply', 'policy.yaml', '-r', 'pods.yaml', '-o', 'new/deeper/out.yml'], script, dir);
    expect(existsSync(join(dir, 'new/deeper/out.yml'))).toBe(true);
    await cli(['apply', 'policy.yaml', '-r', 'pods.yaml', '-o', 'mutated'], script, dir);
    expect(statSync(join(dir, 'mutated')).isDirectory()).toBe(true);
    const blocked = await cli(['apply', 'policy.yaml', '-r', 'pods.yaml', '-o', 'pods.yaml/x.yaml'], script, dir);
    expect(blocked.code).toBe(1);
    expect(blocked.err).toMatch(/^Error: failed to create file\/folder \(/);
  });
});

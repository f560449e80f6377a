import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { FakeEngine, rule, clusterPolicy, pod, testFile, yaml, writeTree } from '@edict/kyverno-test/testing';
import { buildProgram } from '../program';
import { runCli as cli } from '../testing/run-cli';

afterEach(() => vi.restoreAllMocks());

describe('edict version', () => {
  it("prints the package's version in Kyverno's lines", async () => {
    const { version } = JSON.parse(readFileSync('package.json', 'utf8')) as { version: string };
    const run = await cli(['version'], () => []);
    expect(run.code).toBe(0);
    expect(run.out).toBe(`Version: ${version}\nTime: ---\nGit commit ID: ---\n`);
  });
});

const tree = () =>
  writeTree({
    'kyverno-test.yaml': yaml(testFile([{ policy: 'p', rule: 'r', kind: 'Pod', resources: ['a'], result: 'fail' }])),
    'policy.yaml': yaml(clusterPolicy('p', ['r'], { action: 'Audit' })),
    'resources.yaml': yaml(pod('a'), pod('b')),
  });

/** A mutate policy `m` (rule `add` labels Pods x=y) and one Pod `a`. */
const labelPodTree = () => ({
  'policy.yaml': yaml({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'm' },
    spec: {
      rules: [
        {
          name: 'add',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          mutate: { patchStrategicMerge: { metadata: { labels: { x: 'y' } } } },
        },
      ],
    },
  }),
  'resources.yaml': yaml(pod('a')),
});

describe('edict test', () => {
  it("fails a test whose policy Kyverno's validation rejects, naming file, document and line", async () => {
    const invalid = clusterPolicy('p', ['r']);
    invalid.spec.rules[0]!.validate.message = '{{ element.name }}';
    const dir = writeTree({
      'kyverno-test.yaml': yaml(testFile([{ policy: 'p', rule: 'r', kind: 'Pod', resources: ['a'], result: 'pass' }])),
      'policy.yaml': yaml(invalid),
      'resources.yaml': yaml(pod('a')),
    });
    const { out, code } = await cli(['test', dir, '-o', 'json'], () => [rule('r', 'pass')]);
    expect(code).toBe(1);
    expect(JSON.stringify(JSON.parse(out))).toMatch(
      /invalid policy: .*policy\.yaml \(document 1, line \d+\): ClusterPolicy\/p: /,
    );
  });

  it('keeps machine output alone on stdout and exits 0 when every check passes', async () => {
    const dir = tree();
    const { out, err, code } = await cli(['test', dir, '-o', 'json'], () => [rule('r', 'fail', 'no label')]);
    expect(code).toBe(0);
    expect(JSON.parse(out).summary).toEqual({ tests: { passed: 1, failed: 0 }, checks: { passed: 1, failed: 0 } });
    expect(err).toContain('Loading test a-test');
  });

  it('exits 1 when a check fails, in the chosen verdict', async () => {
    const dir = tree();
    expect((await cli(['test', dir], () => [])).code).toBe(0); // compatible: no response counts as passed
    const strict = await cli(['test', dir, '--strict'], () => []);
    expect(strict.code).toBe(1);
    expect(strict.out).toContain('No result');
    expect((await cli(['test', dir, '-o', 'junit'], () => [rule('r', 'pass')])).code).toBe(1);
  });

  it('rejects an unknown output format and exits 1 for missing paths', async () => {
    expect((await cli(['test', '.', '-o', 'xml'], () => [])).code).not.toBe(0);
    const missing = await cli(['test', '/no/such/dir'], () => []);
    expect(missing.code).toBe(1);
    expect(missing.err).toContain('/no/such/dir: no such file or directory');
  });
});

/**
 * A policy folder as in Kyverno's policy library: beside the policy, chainsaw's steps and a policy that
 * only asserts a status (not a readable policy), and the Kyverno test in `.kyverno-test/`.
 */
const policyLibrary = () =>
  writeTree({
    'library/pod-label/policy.yaml': yaml(clusterPolicy('p', ['r'])),
    'library/pod-label/.chainsaw-test/chainsaw-test.yaml': yaml({
      apiVersion: 'chainsaw.kyverno.io/v1alpha1',
      kind: 'Test',
      metadata: { name: 'pod-label' },
      spec: { steps: [{ try: [{ apply: { file: '../policy.yaml' } }] }] },
    }),
    'library/pod-label/.chainsaw-test/policy-ready.yaml': yaml({
      apiVersion: 'kyverno.io/v1',
      kind: 'ClusterPolicy',
      metadata: { name: 'p' },
      status: { ready: true },
    }),
    'library/pod-label/.kyverno-test/kyverno-test.yaml': yaml(
      testFile([{ policy: 'p', rule: 'r', kind: 'Pod', resources: ['a'], result: 'pass' }], {
        policies: ['..'],
        resources: ['resources.yaml'],
      }),
    ),
    'library/pod-label/.kyverno-test/resources.yaml': yaml(pod('a')),
    'resources.yaml': yaml(pod('a')),
  });

describe('hidden files and folders, as Kyverno skips them', () => {
  it("apply over a folder runs its policies and ignores the hidden folders' manifests", async () => {
    const dir = policyLibrary();
    const evaluated: string[] = [];
    const { out, err, code } = await cli(['apply', join(dir, 'library'), '-r', join(dir, 'resources.yaml')], (p) => {
      evaluated.push(p.metadata.name);
      return [rule('r', 'pass')];
    });
    expect(err).toBe('');
    expect(code).toBe(0);
    expect(evaluated).toEqual(['p']);
    expect(out).toContain('\nApplying 3 policy rule(s) to 1 resource(s)...\n');
    expect(out).toContain('pass: 1, fail: 0, warn: 0, error: 0, skip: 0 \n');
  });

  it('test finds the test in .kyverno-test/, and its policy folder leaves out .chainsaw-test/', async () => {
    const dir = policyLibrary();
    const { out, code } = await cli(['test', join(dir, 'library'), '-o', 'json'], () => [rule('r', 'pass')]);
    expect(code).toBe(0);
    expect(JSON.parse(out).summary).toEqual({ tests: { passed: 1, failed: 0 }, checks: { passed: 1, failed: 0 } });
  });
});

describe('edict apply', () => {
  const withInvalidPolicies = () => {
    const outsideForeach = clusterPolicy('uses-element', ['r']);
    outsideForeach.spec.rules[0]!.validate.message = 'bad {{ element.name }}';
    const serviceAccountVariable = clusterPolicy('uses-sa', ['r']);
    serviceAccountVariable.spec.rules[0]!.validate.message = '{{ serviceAccountName }}';
    return writeTree({
      'policy.yaml': yaml(clusterPolicy('p', ['r']), outsideForeach, serviceAccountVariable),
      'resources.yaml': yaml(pod('a')),
    });
  };

  it("leaves out policies Kyverno's validation rejects, lists them, counts an error each and exits 1", async () => {
    const dir = withInvalidPolicies();
    const evaluated: string[] = [];
    const { out, err, code } = await cli(
      ['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml')],
      (policy) => {
        evaluated.push(policy.metadata.name);
        return [rule('r', 'pass')];
      },
    );
    expect(code).toBe(1);
    expect([...new Set(evaluated)]).toEqual(['p']);
    const divider = '-'.repeat(70);
    expect(out).toContain(
      `${divider}\nPolicies Skipped (as required variables are not provided by the user):\n1. uses-sa\n${divider}\n`,
    );
    expect(out).toContain(`${divider}\nInvalid Policies:\n1. uses-element\n${divider}\n`);
    expect(out).toContain('pass: 1, fail: 0, warn: 0, error: 2, skip: 0 \n');
    // Every rule loaded is announced (autogen rules included), as Kyverno counts them before validating.
    expect(out).toContain('\nApplying 9 policy rule(s) to 1 resource(s)...\n');
    expect(err).toMatch(
      /Error: policy validation error: .*policy\.yaml \(document 2, line \d+\): ClusterPolicy\/uses-element: /,
    );
    expect(err).toMatch(
      /Error: policy validation error: .*policy\.yaml \(document 3, line \d+\): ClusterPolicy\/uses-sa: /,
    );
  });

  it('lists rejected policies before the policy report too', async () => {
    const dir = withInvalidPolicies();
    const { out, code } = await cli(
      ['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml'), '-p'],
      () => [rule('r', 'pass')],
    );
    expect(code).toBe(1);
    expect(out.indexOf('Invalid Policies:')).toBeLessThan(out.indexOf('POLICY REPORT'));
  });

  it('prints failures like Kyverno and its summary line, and exits 1 on failures', async () => {
    const dir = tree();
    const { out, code } = await cli(
      ['apply', join(dir, 'policy.yaml'), '--resource', join(dir, 'resources.yaml')],
      (_, request) => [rule('r', request.resource?.metadata.name === 'a' ? 'fail' : 'pass', 'label required')],
    );
    expect(code).toBe(1);
    expect(out).toContain('\npolicy p -> resource default/Pod/a failed: \n1. r: label required \n');
    expect(out).toContain('pass: 1, fail: 1, warn: 0, error: 0, skip: 0 \n');
  });

  it('reports Audit failures as warnings with --audit-warn and exits with --warn-exit-code', async () => {
    const dir = tree();
    const { out, code } = await cli(
      ['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml'), '--audit-warn', '--warn-exit-code', '3'],
      () => [rule('r', 'fail', 'x')],
    );
    expect(code).toBe(3);
    expect(out).toContain('failed as audit warning: ');
    expect(out).toContain('pass: 0, fail: 0, warn: 2, error: 0, skip: 0 ');
  });

  it('exits 0 when everything passes, and 1 for errors', async () => {
    const dir = tree();
    expect(
      (await cli(['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml')], () => [rule('r', 'pass')]))
        .code,
    ).toBe(0);
    expect(
      (await cli(['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml')], () => [rule('r', 'error')]))
        .code,
    ).toBe(1);
  });

  it('prints the reason of each error result before the summary line, which keeps its form', async () => {
    const dir = tree();
    const reason = 'verifyImages rules are not supported by this engine';
    const errors = (_: unknown, request: { resource?: { metadata: { name?: string } } }) =>
      request.resource?.metadata.name === 'a' ? [rule('r', 'error', reason)] : [rule('r', 'pass')];
    const { out, code } = await cli(['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml')], errors);
    expect(code).toBe(1);
    expect(out).toContain(`\npolicy p -> resource default/Pod/a error: \n1. r: ${reason} \n`);
    expect(out).not.toContain('default/Pod/b error');
    expect(out.endsWith('\npass: 1, fail: 0, warn: 0, error: 1, skip: 0 \n')).toBe(true);
    // The policy report carries the reason as the result's message, and nothing else is printed.
    const report = await cli(['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml'), '-p'], errors);
    expect(report.code).toBe(1);
    expect(report.out).not.toContain('error: \n');
    expect(parse(report.out.split('POLICY REPORT:\n')[1]!.replace(/^-+\n/, '')).results).toContainEqual(
      expect.objectContaining({ result: 'error', message: reason }),
    );
  });

  it('prints a mutate error as Kyverno does', async () => {
    const dir = writeTree(labelPodTree());
    let out = '';
    const engine = new FakeEngine(
      () => [],
      () => ({ rules: [{ ...rule('add', 'error', 'variable substitution failed'), type: 'Mutation' }] }),
    );
    const result = { code: 0 };
    await buildProgram({ out: (t) => void (out += t), err: () => undefined }, result, engine.factory()).parseAsync([
      'node',
      'edict',
      'apply',
      join(dir, 'policy.yaml'),
      '-r',
      join(dir, 'resources.yaml'),
    ]);
    expect(result.code).toBe(1);
    expect(out).toContain(
      '\nerror while applying mutate policy m -> resource default/Pod/a \nerror:  variable substitution failed\n',
    );
    expect(out).toContain('pass: 0, fail: 0, warn: 0, error: 1, skip: 0 \n');
  });

  it('prints a wgpolicyk8s.io/v1alpha2 ClusterPolicyReport with --policy-report', async () => {
    const dir = tree();
    const { out } = await cli(['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'resources.yaml'), '-p'], () => [
      rule('r', 'fail', 'bad'),
    ]);
    const report = parse(out.split('POLICY REPORT:\n')[1].replace(/^-+\n/, ''));
    expect(report).toMatchObject({
      apiVersion: 'wgpolicyk8s.io/v1alpha2',
      kind: 'ClusterPolicyReport',
      metadata: { name: 'merged' },
      summary: { pass: 0, fail: 2, warn: 0, error: 0, skip: 0 },
    });
    expect(report.results[0]).toMatchObject({
      policy: 'p',
      rule: 'r',
      result: 'fail',
      message: 'bad',
      source: 'kyverno',
      scored: true,
      resources: [{ kind: 'Pod', name: 'a', namespace: 'default' }],
    });
  });

  it('reports a missing policy file without a stack trace', async () => {
    const { err, code } = await cli(['apply', '/no/policy.yaml', '-r', '/no/r.yaml'], () => []);
    expect(code).toBe(1);
    expect(err).toBe('Error: /no/policy.yaml: file not found\n');
  });

  it('announces the exceptions it was given', async () => {
    const dir = tree();
    const exception = {
      apiVersion: 'kyverno.io/v2',
      kind: 'PolicyException',
      metadata: { name: 'e', namespace: 'default' },
      spec: {
        exceptions: [{ policyName: 'p', ruleNames: ['r'] }],
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
      },
    };
    writeFileSync(join(dir, 'exception.yaml'), yaml(exception));
    const { out } = await cli(
      [
        'apply',
        join(dir, 'policy.yaml'),
        '-r',
        join(dir, 'resources.yaml'),
        '--exception',
        join(dir, 'exception.yaml'),
      ],
      () => [rule('r', 'skip')],
    );
    expect(out).toContain('\nApplying 3 policy rule(s) to 2 resource(s) with 1 exception(s)...\n');
  });

  it('applies ValidatingAdmissionPolicies: counts their results and prints their failures as Kyverno does', async () => {
    const dir = writeTree({
      'vap.yaml': yaml({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'no-host-network' },
        spec: {
          matchConstraints: {
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
          },
          validations: [
            {
              expression: '!has(object.spec.hostNetwork) || !object.spec.hostNetwork',
              message: 'hostNetwork is not allowed',
            },
          ],
        },
      }),
      'pods.yaml': yaml({ ...pod('a'), spec: { hostNetwork: true } }, pod('b')),
    });
    const { out, code } = await cli(['apply', 'vap.yaml', '--resource', 'pods.yaml'], () => [], dir);
    expect(out).toContain('Applying 1 policy rule(s) to 2 resource(s)...');
    expect(out).toContain(
      'policy no-host-network -> resource default/Pod/a failed: \n1. no-host-network: hostNetwork is not allowed \n',
    );
    expect(out).toContain('pass: 1, fail: 1, warn: 0, error: 0, skip: 0 ');
    expect(code).toBe(1);
  });

  it('applies MutatingPolicies: prints the patched resource as Kyverno prints a mutation and counts the result', async () => {
    const dir = writeTree({
      'mpol.yaml': yaml({
        apiVersion: 'policies.kyverno.io/v1',
        kind: 'MutatingPolicy',
        metadata: { name: 'add-team' },
        spec: {
          matchConstraints: {
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['CREATE'], resources: ['pods'] }],
          },
          mutations: [
            {
              patchType: 'ApplyConfiguration',
              applyConfiguration: { expression: 'Object{metadata: Object.metadata{labels: {"team": "a"}}}' },
            },
          ],
        },
      }),
      'pods.yaml': yaml(pod('a')),
    });
    const { out, code } = await cli(['apply', 'mpol.yaml', '--resource', 'pods.yaml'], () => [], dir);
    expect(out).toContain('Applying 1 policy rule(s) to 1 resource(s)...');
    expect(out).toContain('policy add-team applied to default/Pod/a:\n');
    expect(out).toContain('team: a');
    expect(out).toContain('pass: 1, fail: 0, warn: 0, error: 0, skip: 0 ');
    expect(code).toBe(0);
  });

  it('applies a DeletingPolicy: pass for what it would delete, fail for the rest', async () => {
    const dir = writeTree({
      'dpol.yaml': yaml({
        apiVersion: 'policies.kyverno.io/v1',
        kind: 'DeletingPolicy',
        metadata: { name: 'delete-a' },
        spec: {
          schedule: '*/5 * * * *',
          matchConstraints: { resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], resources: ['pods'] }] },
          conditions: [{ name: 'is-a', expression: 'object.metadata.name == "a"' }],
        },
      }),
      'pods.yaml': yaml(pod('a'), pod('b')),
    });
    const { out } = await cli(['apply', 'dpol.yaml', '--resource', 'pods.yaml'], () => [], dir);
    expect(out).toContain('Applying 1 policy rule(s) to 2 resource(s)...');
    expect(out).toContain('policy delete-a -> resource default/Pod/b failed: \n1. delete-a: resource did not match \n');
    expect(out).toContain('pass: 1, fail: 1, warn: 0, error: 0, skip: 0 ');
  });

  it('takes --set variables over the values file, and names a malformed one', async () => {
    const dir = writeTree({
      'vap.yaml': yaml({
        apiVersion: 'admissionregistration.k8s.io/v1',
        kind: 'ValidatingAdmissionPolicy',
        metadata: { name: 'no-delete' },
        spec: {
          matchConstraints: {
            resourceRules: [{ apiGroups: [''], apiVersions: ['v1'], operations: ['*'], resources: ['pods'] }],
          },
          validations: [{ expression: 'false', message: 'never' }],
        },
      }),
      'pods.yaml': yaml(pod('a')),
    });
    const bad = await cli(['apply', 'vap.yaml', '--resource', 'pods.yaml', '--set', 'novalue'], () => [], dir);
    expect(bad.err).toContain('Error: --set: expected key=value, got "novalue"');
    expect(bad.code).toBe(1);
  });

  it('requires resources', async () => {
    const { err, code } = await cli(['apply', 'p.yaml'], () => []);
    expect(code).toBe(1);
    expect(err).toContain('resource file(s) or cluster required');
  });

  it('writes mutated resources to --output', async () => {
    const dir = writeTree(labelPodTree());
    let out = '';
    const engine = new FakeEngine(
      () => [],
      (_, request) => ({
        rules: [{ ...rule('add', 'pass'), type: 'Mutation' }],
        patched: { ...request.resource!, metadata: { ...request.resource!.metadata, labels: { x: 'y' } } },
      }),
    );
    const result = { code: 0 };
    await buildProgram({ out: (t) => void (out += t), err: () => undefined }, result, engine.factory()).parseAsync([
      'node',
      'edict',
      'apply',
      join(dir, 'policy.yaml'),
      '-r',
      join(dir, 'resources.yaml'),
      '-o',
      join(dir, 'out.yaml'),
    ]);
    expect(readFileSync(join(dir, 'out.yaml'), 'utf8')).toContain('x: y');
    expect(out).toContain('Mutation has been applied successfully');
    expect(out).toContain('pass: 1, fail: 0, warn: 0, error: 0, skip: 0 ');
  });
});

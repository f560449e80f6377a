import { describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { rule, clusterPolicy, pod, yaml, writeTree } from '@edict/kyverno-test/testing';
import { runCli as cli } from '../testing/run-cli';

const files = () =>
  writeTree({
    'policy.yaml': yaml(clusterPolicy('p', ['r'], { action: 'Audit' })),
    'pods.yaml': yaml(pod('a')),
  });

describe('edict apply flags', () => {
  it('takes --resources as --resource', async () => {
    const dir = files();
    const { out } = await cli(['apply', join(dir, 'policy.yaml'), '--resources', join(dir, 'pods.yaml')], () => [
      rule('r', 'pass'),
    ]);
    expect(out).toContain('policy rule(s) to 1 resource(s)...');
    expect(out).toContain('pass: 1, fail: 0, warn: 0, error: 0, skip: 0 ');
  });

  it('--warn-no-pass: exits with the warn exit code when nothing passed', async () => {
    const dir = files();
    const args = ['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'pods.yaml'), '--warn-no-pass'];
    const skipped = await cli([...args, '--warn-exit-code', '3'], () => [rule('r', 'skip')]);
    expect(skipped.out).toContain('exit as no objects satisfied policy');
    expect(skipped.code).toBe(3);
    expect((await cli([...args, '--warn-exit-code', '3'], () => [rule('r', 'pass')])).code).toBe(0);
    expect((await cli(args, () => [rule('r', 'fail')])).code).toBe(1);
  });

  it('--output-format json prints the policy report as JSON', async () => {
    const dir = files();
    const { out } = await cli(
      ['apply', join(dir, 'policy.yaml'), '-r', join(dir, 'pods.yaml'), '-p', '--output-format', 'json'],
      () => [rule('r', 'fail', 'no label')],
    );
    const report = JSON.parse(out.slice(out.indexOf('{'))) as { kind: string; summary: { fail: number } };
    expect(report.kind).toBe('ClusterPolicyReport');
    expect(report.summary.fail).toBe(1);
    expect((await cli(['apply', 'p.yaml', '-r', 'x', '--output-format', 'xml'])).code).not.toBe(0);
  });

  it('--exceptions-with-resources reads PolicyExceptions from the resource files', async () => {
    const dir = writeTree({
      'policy.yaml': yaml(clusterPolicy('p', ['r'])),
      'pods.yaml': yaml(pod('a'), {
        apiVersion: 'kyverno.io/v2',
        kind: 'PolicyException',
        metadata: { name: 'e', namespace: 'default' },
        spec: {
          exceptions: [{ policyName: 'p', ruleNames: ['r'] }],
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
        },
      }),
    });
    const { out } = await cli([
      'apply',
      join(dir, 'policy.yaml'),
      '-r',
      join(dir, 'pods.yaml'),
      '--exceptions-with-resources',
    ]);
    expect(out).toContain('with 1 exception(s)...');
  });
});

describe('--help', () => {
  it.each(['test', 'apply', 'version'])('shows an example for edict %s', async (command) => {
    const { out, code } = await cli([command, '--help']);
    expect(code).toBe(0);
    expect(out).toMatch(new RegExp(`Examples?:\\n  edict ${command}`));
  });
});

import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Policy, ResourceRequest, RuleResponse } from '@edict/engine';
import type { JsonValue, KubeObject } from '@edict/foundation';
import { FakeEngine, rule } from './testing/fake-engine';
import { clusterPolicy, pod, testFile, yaml } from './testing/fixtures';
import { writeTree } from './testing/temp-tree';
import { runTestFile } from './run-tests';

type Script = (policy: Policy, request: ResourceRequest) => RuleResponse[];

async function run(
  results: JsonValue[],
  script: Script,
  files: Record<string, string> = {},
  engine = new FakeEngine(script),
) {
  const dir = writeTree({
    'kyverno-test.yaml': yaml(testFile(results, files['extra'] ? JSON.parse(files['extra']) : {})),
    'policy.yaml':
      files['policy.yaml'] ??
      yaml(
        clusterPolicy('p', ['r']),
        clusterPolicy('unscored', ['r'], { annotations: { 'policies.kyverno.io/scored': 'false' } }),
      ),
    'resources.yaml':
      files['resources.yaml'] ??
      yaml(pod('a'), pod('b', 'team'), pod('b', 'other'), {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: 'a' },
      }),
    ...Object.fromEntries(Object.entries(files).filter(([name]) => name !== 'extra')),
  });
  const result = await runTestFile(join(dir, 'kyverno-test.yaml'), { engineFactory: engine.factory(), cwd: dir });
  return { ...result, engine };
}

const nameOf = (request: ResourceRequest) => (request.resource ?? request.oldResource)?.metadata.name;
const entry = (resources: string[], result: string, extra: Record<string, JsonValue> = {}) => ({
  policy: 'p',
  rule: 'r',
  kind: 'Pod',
  resources,
  result,
  ...extra,
});

describe('strict verdict', () => {
  it('1. fails a check whose resource is not in the test', async () => {
    const { strict } = await run([entry(['missing'], 'pass')], () => [rule('r', 'pass')]);
    expect(strict).toEqual([expect.objectContaining({ passed: false, reason: 'Not found', resource: 'Pod/missing' })]);
  });

  it('2. looks at the rule and its autogen copies', async () => {
    const { strict } = await run([entry(['a'], 'fail', { kind: 'Deployment' })], (_, request) =>
      request.resource?.kind === 'Deployment' ? [rule('autogen-r', 'fail', 'bad')] : [],
    );
    expect(strict).toEqual([expect.objectContaining({ passed: true, got: 'fail', message: 'bad' })]);
  });

  it('3. without a response, passes only when skip is expected', async () => {
    const { strict } = await run([entry(['a'], 'skip'), entry(['a'], 'pass')], () => []);
    expect(strict.map((c) => [c.passed, c.reason])).toEqual([
      [true, 'Ok'],
      [false, 'No result'],
    ]);
  });

  it('4. needs every matching response to report the expected result', async () => {
    // `b` names two pods (two namespaces): one passes, one fails.
    const { strict } = await run([entry(['b'], 'pass'), entry(['team/b'], 'pass')], (_, request) => [
      rule('r', request.resource?.metadata.namespace === 'team' ? 'pass' : 'fail'),
    ]);
    expect(strict.map((c) => [c.passed, c.got])).toEqual([
      [false, 'pass,fail'],
      [true, 'pass'],
    ]);
    expect(strict[0].reason).toBe('Want pass, got pass,fail');
  });

  it('4. reports a failure of an unscored policy as warn', async () => {
    const { strict } = await run([{ ...entry(['a'], 'warn'), policy: 'unscored' }], () => [rule('r', 'fail')]);
    expect(strict[0]).toMatchObject({ passed: true, got: 'warn' });
  });

  it('narrows by kind: a Pod entry does not see the Deployment of the same name', async () => {
    const { strict } = await run([entry(['a'], 'pass')], (_, request) => [
      rule(request.resource?.kind === 'Pod' ? 'r' : 'autogen-r', request.resource?.kind === 'Pod' ? 'pass' : 'fail'),
    ]);
    expect(strict[0]).toMatchObject({ passed: true, got: 'pass' });
  });

  it('checks every rule of the policy when the entry names no rule', async () => {
    const { strict } = await run([{ ...entry(['a'], 'pass'), rule: '' }], () => [rule('x', 'pass'), rule('y', 'fail')]);
    expect(strict[0]).toMatchObject({ passed: false, got: 'pass,fail' });
  });

  it('5. compares patched resources after dropping nulls and empty values, and needs the object in the file', async () => {
    const mutatePolicy = {
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
    };
    const engine = new FakeEngine(
      () => [],
      (_, request) => {
        const resource = request.resource as KubeObject;
        return {
          rules: [{ ...rule('add', 'pass'), type: 'Mutation' }],
          patched: { ...resource, metadata: { ...resource.metadata, labels: { x: 'y' }, annotations: {} } },
        };
      },
    );
    const files = {
      'policy.yaml': yaml(mutatePolicy),
      'resources.yaml': yaml(pod('a'), pod('c')),
      'good.yaml': yaml({ ...pod('a', 'default', { x: 'y' }), status: null }),
      'bad.yaml': yaml(pod('a', 'default', { x: 'z' })),
    };
    const results = [
      { policy: 'm', rule: 'add', kind: 'Pod', resources: ['a'], result: 'pass', patchedResources: 'good.yaml' },
      { policy: 'm', rule: 'add', kind: 'Pod', resources: ['a'], result: 'pass', patchedResources: 'bad.yaml' },
      { policy: 'm', rule: 'add', kind: 'Pod', resources: ['c'], result: 'pass', patchedResources: 'good.yaml' },
    ];
    const { strict, compatible } = await run(results, () => [], files, engine);
    expect(strict.map((c) => [c.passed, c.reason])).toEqual([
      [true, 'Ok'],
      [false, 'Resource diff'],
      [false, 'Resource diff'],
    ]);
    expect(strict[2].message).toContain('good.yaml holds no Pod default/c');
    // Kyverno ignores an expected file that lacks the object.
    expect(compatible.map((c) => c.passed)).toEqual([true, false, true]);
    expect(compatible[2]?.reason).toBe('Ignored');
  });

  it('fails a patched-resource check when no mutation ran', async () => {
    const { strict } = await run([entry(['a'], 'pass', { patchedResources: 'x.yaml' })], () => [rule('r', 'pass')], {
      'x.yaml': yaml(pod('a')),
    });
    expect(strict[0]).toMatchObject({ passed: false, reason: 'Resource diff' });
  });
});

describe('Kyverno-compatible verdict', () => {
  it('passes an entry whose rule did not respond, whatever was expected ("Excluded")', async () => {
    const { compatible, strict } = await run([entry(['a'], 'fail')], () => []);
    expect(compatible).toEqual([expect.objectContaining({ passed: true, reason: 'Excluded' })]);
    expect(strict[0].passed).toBe(false);
  });

  it('checks every resource of the kind when the name matches nothing', async () => {
    const { compatible } = await run([entry(['nope'], 'pass')], (_, request) => [
      rule('r', nameOf(request) === 'a' ? 'pass' : 'fail'),
    ]);
    expect(compatible.map((c) => c.got)).toEqual(['pass', 'fail', 'fail']);
  });

  it('fails "Not found" when the policy answered for no resource of the kind', async () => {
    const { compatible } = await run([{ ...entry(['a'], 'pass'), kind: 'Service' }], () => [rule('r', 'pass')]);
    expect(compatible).toEqual([expect.objectContaining({ passed: false, reason: 'Not found' })]);
  });

  it('gives one row per matching rule response', async () => {
    const { compatible } = await run([entry(['a'], 'pass', { kind: 'Deployment' })], () => [
      rule('autogen-r', 'pass'),
      rule('autogen-cronjob-r', 'fail'),
    ]);
    expect(compatible.map((c) => [c.passed, c.reason])).toEqual([
      [true, 'Ok'],
      [false, 'Want pass, got fail'],
    ]);
  });
});

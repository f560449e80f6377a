// Every operation against the in-memory API server, with small test folders written to a temp dir.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startChainsawTestCluster, writeTestFolder, type ChainsawTestCluster } from '../testing';
import type { ChainsawRunOptions, ChainsawTestResult } from './options';
import { runChainsawTests } from './run-tests';

let cluster: ChainsawTestCluster;
beforeAll(async () => {
  cluster = await startChainsawTestCluster();
});
afterAll(async () => {
  await cluster?.stop();
});

const HEADER = 'apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: t\nspec:\n';

async function run(
  files: Record<string, string>,
  extra: Partial<ChainsawRunOptions> = {},
): Promise<ChainsawTestResult[]> {
  const folder = writeTestFolder(files);
  try {
    return await runChainsawTests({
      paths: [folder.root],
      kubeconfigPath: cluster.kubeconfigPath,
      timeoutScale: 0.05,
      timeoutFloorMs: 500,
      pollIntervalMs: 25,
      ...extra,
    });
  } finally {
    folder.remove();
  }
}

async function runOne(spec: string, files: Record<string, string> = {}, extra: Partial<ChainsawRunOptions> = {}) {
  const results = await run({ 'case/chainsaw-test.yaml': HEADER + spec, ...prefix(files) }, extra);
  expect(results).toHaveLength(1);
  return results[0]!;
}

function prefix(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).map(([k, v]) => [`case/${k}`, v]));
}

const configMap = (name: string, data = 'a: "1"') =>
  `apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ${name}\ndata:\n  ${data}\n`;

describe('runChainsawTests against the in-memory API server', () => {
  it('applies into a fresh namespace, asserts, and cleans everything up', async () => {
    let namespace = '';
    const result = await runOne(
      `  steps:
  - try:
    - apply:
        file: cm.yaml
    - assert:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: one
            namespace: ($namespace)
          data:
            a: "1"
`,
      { 'cm.yaml': configMap('one') },
      { onResult: (r) => (namespace = r.namespace ?? '') },
    );
    expect(result.outcome).toBe('pass');
    expect(namespace).toMatch(/^chainsaw-[a-z]+-[a-z]+$/);
    expect(await cluster.client.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'one', namespace })).toBeUndefined();
    expect(await cluster.client.get({ apiVersion: 'v1', kind: 'Namespace', name: namespace })).toBeUndefined();
  });

  it('fails an assert with the step, the operation, a path-precise reason and a diff', async () => {
    const result = await runOne(
      `  steps:
  - name: check
    try:
    - apply:
        file: cm.yaml
    - assert:
        file: expected.yaml
`,
      { 'cm.yaml': configMap('two'), 'expected.yaml': configMap('two', 'a: "2"') },
    );
    expect(result.outcome).toBe('fail');
    expect(result.failure).toMatchObject({
      step: 'check',
      stepIndex: 0,
      phase: 'try',
      operation: { type: 'assert', index: 1, file: 'expected.yaml' },
    });
    expect(result.failure!.reason).toContain('data.a: Invalid value: "1": Expected value: "2"');
    expect(result.failure!.diff).toContain('-   a: "2"');
    expect(result.failure!.diff).toContain('+   a: "1"');
  });

  it('finds assert candidates by labels when the expectation has no name', async () => {
    const result = await runOne(
      `  steps:
  - try:
    - apply:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: labelled
            labels:
              team: blue
          data:
            k: v
    - assert:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            labels:
              team: blue
          data:
            k: v
    - error:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            labels:
              team: red
`,
    );
    expect(result.outcome).toBe('pass');
  });

  it('runs create, update, patch and delete, and error passes once the object is gone', async () => {
    const result = await runOne(
      `  steps:
  - try:
    - create:
        file: cm.yaml
    - update:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: three
          data:
            a: updated
    - patch:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: three
          data:
            b: patched
    - assert:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: three
          data:
            a: updated
            b: patched
    - delete:
        ref:
          apiVersion: v1
          kind: ConfigMap
          name: three
    - error:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: three
`,
      { 'cm.yaml': configMap('three') },
    );
    expect(result.failures).toEqual([]);
    expect(result.outcome).toBe('pass');
  });

  it('fails create when the object exists, and error when a matching object is there', async () => {
    const result = await runOne(
      `  steps:
  - try:
    - create:
        file: cm.yaml
    - create:
        file: cm.yaml
  - try:
    - error:
        file: cm.yaml
`,
      { 'cm.yaml': configMap('four') },
    );
    expect(result.outcome).toBe('fail');
    expect(result.failure).toMatchObject({ stepIndex: 0, operation: { type: 'create', index: 1 } });
    expect(result.failure!.reason).toMatch(/already exists/);
    // the failed step stops the test: the second step never ran
    expect(result.failures.filter((f) => f.stepIndex === 1)).toEqual([]);
  });

  it('checks the API error of an apply with expect', async () => {
    const result = await runOne(
      `  steps:
  - try:
    - apply:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: Not_A_Valid_Name
        expect:
        - check:
            ($error != null): true
    - apply:
        file: cm.yaml
        expect:
        - match:
            metadata:
              name: other
          check:
            ($error != null): true
`,
      { 'cm.yaml': configMap('five') },
    );
    expect(result.failures).toEqual([]);
  });

  it('runs scripts with sh in the test folder, NAMESPACE and KUBECONFIG set, and checks their output', async () => {
    const result = await runOne(
      `  steps:
  - try:
    - script:
        env:
        - name: GREETING
          value: (join(' ', ['hello', $namespace]))
        content: |
          test -f marker.txt || exit 3
          test -n "$KUBECONFIG" || exit 4
          echo "$GREETING"
          echo "ns=$NAMESPACE" >&2
        check:
          ($error): ~
          (contains($stdout, 'hello chainsaw-')): true
          (starts_with($stderr, 'ns=chainsaw-')): true
    - script:
        content: exit 2
        check:
          ($error): exit status 2
    - command:
        entrypoint: sh
        args: ["-c", "echo $NAMESPACE"]
        outputs:
        - name: printed
          value: (trim_space($stdout))
    - script:
        env:
        - name: PRINTED
          value: ($printed)
        content: test "$PRINTED" = "$NAMESPACE"
`,
      { 'marker.txt': 'x' },
    );
    expect(result.failures).toEqual([]);
  });

  it('fails a script that exits non-zero without a check, with its output', async () => {
    const result = await runOne(
      `  steps:
  - try:
    - script:
        content: echo oops >&2; exit 1
`,
    );
    expect(result.outcome).toBe('fail');
    expect(result.failure!.reason).toContain('exit status 1');
    expect(result.failure!.reason).toContain('oops');
  });

  it('runs catch on failure and finally always, and stops at the failed step', async () => {
    const result = await runOne(
      `  steps:
  - name: first
    try:
    - script:
        content: exit 1
    catch:
    - script:
        content: exit 7
    finally:
    - script:
        content: exit 8
  - name: second
    try:
    - script:
        content: exit 9
`,
    );
    expect(result.failures.map((f) => [f.step, f.phase, f.reason.split('\n')[0]])).toEqual([
      ['first', 'try', 'script failed: exit status 1'],
      ['first', 'catch', 'script failed: exit status 7'],
      ['first', 'finally', 'script failed: exit status 8'],
    ]);
  });

  it('uses step templates with bindings, file paths relative to the test', async () => {
    const results = await run({
      'templates/apply-and-check.yaml': `apiVersion: chainsaw.kyverno.io/v1alpha1
kind: StepTemplate
metadata:
  name: apply-and-check
spec:
  bindings:
  - name: value
    value: default
  try:
  - apply:
      file: ($file)
  - assert:
      resource:
        apiVersion: v1
        kind: ConfigMap
        metadata:
          name: ($name)
        data:
          a: ($value)
`,
      'suite/case/chainsaw-test.yaml': `${HEADER}  steps:
  - name: via template
    use:
      template: ../../templates/apply-and-check.yaml
      with:
        bindings:
        - name: file
          value: cm.yaml
        - name: name
          value: six
        - name: value
          value: "1"
`,
      'suite/case/cm.yaml': configMap('six'),
    });
    expect(results[0]!.failures).toEqual([]);
    expect(results[0]!.outcome).toBe('pass');
  });

  it('templates applied resources with bindings, and sleeps', async () => {
    const result = await runOne(
      `  bindings:
  - name: suffix
    value: seven
  steps:
  - try:
    - apply:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: (join('-', ['cm', $suffix]))
          data:
            ns: ($namespace)
    - sleep:
        duration: 10ms
    - assert:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: cm-seven
          data:
            ns: ($namespace)
            (length(@)): 1
`,
    );
    expect(result.failures).toEqual([]);
  });

  it('leaves cluster-scoped objects without a namespace and deletes them at the end', async () => {
    const result = await runOne(
      `  steps:
  - try:
    - apply:
        resource:
          apiVersion: v1
          kind: Namespace
          metadata:
            name: chainsaw-spec-cluster-scoped
    - assert:
        resource:
          apiVersion: v1
          kind: Namespace
          metadata:
            name: chainsaw-spec-cluster-scoped
`,
    );
    expect(result.failures).toEqual([]);
    expect(
      await cluster.client.get({ apiVersion: 'v1', kind: 'Namespace', name: 'chainsaw-spec-cluster-scoped' }),
    ).toBeUndefined();
  });

  it('keeps what the test created with skipDelete, and uses a namespace the test names', async () => {
    const result = await runOne(
      `  namespace: chainsaw-spec-named
  skipDelete: true
  steps:
  - try:
    - apply:
        file: cm.yaml
`,
      { 'cm.yaml': configMap('kept') },
    );
    expect(result.outcome).toBe('pass');
    expect(result.namespace).toBe('chainsaw-spec-named');
    expect(
      await cluster.client.get({ apiVersion: 'v1', kind: 'ConfigMap', name: 'kept', namespace: 'chainsaw-spec-named' }),
    ).toBeDefined();
  });

  it('waits for a condition and reads the read-only operations without effect', async () => {
    const result = await runOne(
      `  steps:
  - try:
    - apply:
        resource:
          apiVersion: v1
          kind: ConfigMap
          metadata:
            name: waited
    - delete:
        ref:
          apiVersion: v1
          kind: ConfigMap
          name: waited
    - wait:
        apiVersion: v1
        kind: ConfigMap
        name: waited
        for:
          deletion: {}
    - describe:
        apiVersion: v1
        kind: ConfigMap
    - podLogs:
        selector: app=x
`,
    );
    expect(result.failures).toEqual([]);
  });

  it('runs each test through aroundTest, which sees the test and its result', async () => {
    const seen: string[] = [];
    const sleep = '  steps:\n  - try:\n    - sleep:\n        duration: 1ms\n';
    const results = await run(
      {
        'a-shared/chainsaw-test.yaml': `${HEADER}  concurrent: false\n${sleep}`.replace('name: t', 'name: shared'),
        'b-free/chainsaw-test.yaml': `${HEADER}${sleep}`.replace('name: t', 'name: free'),
      },
      {
        aroundTest: async (test, runTest) => {
          const result = await runTest();
          seen.push(`${test.name}:${String(test.concurrent)}:${result.outcome}`);
          return result;
        },
      },
    );
    expect(results.map((r) => [r.name, r.outcome])).toEqual([
      ['shared', 'pass'],
      ['free', 'pass'],
    ]);
    expect(seen).toEqual(['shared:false:pass', 'free:undefined:pass']);
  });

  it('reports a bad test file as an error naming the file and field, and runs the others', async () => {
    const results = await run({
      'a-bad/chainsaw-test.yaml': `${HEADER}  steps:
  - try:
    - apply:
        fil: cm.yaml
`,
      'b-good/chainsaw-test.yaml': `${HEADER}  steps:
  - try:
    - sleep:
        duration: 1ms
`,
    });
    expect(results.map((r) => r.outcome)).toEqual(['error', 'pass']);
    expect(results[0]!.message).toMatch(
      /chainsaw-test\.yaml \(document 1, line 9\): spec\.steps\[0\]\.try\[0\]\.apply\.fil: unknown field "fil"/,
    );
  });

  it('applies every document of a multi-document file and reads the configuration walking up', async () => {
    const results = await run({
      '.chainsaw.yaml': `apiVersion: chainsaw.kyverno.io/v1alpha2
kind: Configuration
metadata:
  name: c
spec:
  namespace:
    name: chainsaw-spec-configured
  timeouts:
    assert: 20s
`,
      'deep/case/chainsaw-test.yaml': `${HEADER}  steps:
  - try:
    - apply:
        file: two.yaml
    - assert:
        file: two.yaml
`,
      'deep/case/two.yaml': `${configMap('first')}---\n${configMap('second')}`,
    });
    expect(results[0]!.failures).toEqual([]);
    expect(results[0]!.namespace).toBe('chainsaw-spec-configured');
  });
});

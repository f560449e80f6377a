import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { writeTestFolder } from '../testing';
import { discoverTestFiles } from './discover';
import { ChainsawLoadError } from './fields';
import { findConfigurationFile, loadConfiguration } from './load-configuration';
import { loadTestFile } from './load-test';

const HEADER = 'apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Test\nmetadata:\n  name: t\nspec:\n';
let cleanup: Array<() => void> = [];
afterEach(() => {
  cleanup.forEach((remove) => remove());
  cleanup = [];
});

function folder(files: Record<string, string>): string {
  const written = writeTestFolder(files);
  cleanup.push(written.remove);
  return written.root;
}

function loadError(spec: string): ChainsawLoadError {
  const root = folder({ 'chainsaw-test.yaml': HEADER + spec });
  try {
    loadTestFile(join(root, 'chainsaw-test.yaml'));
  } catch (error) {
    if (error instanceof ChainsawLoadError) return error;
    throw error;
  }
  throw new Error('expected a load error');
}

describe('loadTestFile', () => {
  it('reads steps, operations, timeouts and bindings', () => {
    const root = folder({
      'chainsaw-test.yaml': `${HEADER}  timeouts:
    assert: 1m30s
  bindings:
  - name: a
    value: (join('-', ['x', 'y']))
  steps:
  - try:
    - apply:
        file: x.yaml
        expect:
        - check:
            ($error): ~
    - script:
        timeout: 30s
        content: echo hi
    - sleep:
        duration: 2s
    finally:
    - delete:
        ref:
          apiVersion: v1
          kind: ConfigMap
          name: x
        deletionPropagationPolicy: Foreground
`,
    });
    const [test] = loadTestFile(join(root, 'chainsaw-test.yaml'));
    expect(test!.timeouts).toEqual({ assert: 90_000 });
    expect(test!.bindings).toEqual([{ name: 'a', value: "(join('-', ['x', 'y']))" }]);
    const step = test!.steps[0]!;
    expect(step.name).toBe('step-01');
    expect(step.try.map((op) => op.type)).toEqual(['apply', 'script', 'sleep']);
    expect(step.try[1]).toMatchObject({ type: 'script', timeout: 30_000, content: 'echo hi' });
    expect(step.try[2]).toMatchObject({ type: 'sleep', duration: 2000 });
    expect(step.finally[0]).toMatchObject({ type: 'delete', deletionPropagationPolicy: 'Foreground' });
  });

  it.each([
    ['  steps: []\n', 'spec.steps: a test needs at least one step'],
    [
      '  steps:\n  - try:\n    - sleep:\n        duration: soon\n',
      'spec.steps[0].try[0].sleep.duration: invalid duration "soon"',
    ],
    [
      '  steps:\n  - try:\n    - apply:\n        file: a.yaml\n      assert:\n        file: a.yaml\n',
      'an operation holds exactly one action, found apply and assert',
    ],
    [
      '  steps:\n  - try:\n    - apply:\n        file: a.yaml\n        resource: {}\n',
      'apply needs exactly one of file, resource',
    ],
    ['  steps:\n  - try:\n    - script: {}\n', 'spec.steps[0].try[0].script.content: required field is missing'],
    ['  steps:\n  - tri: []\n', 'spec.steps[0].tri: unknown field "tri"'],
    ['  skip: maybe\n  steps:\n  - try: []\n', 'spec.skip: expected a boolean, got string "maybe"'],
  ])('refuses %j with a clear error', (spec, message) => {
    const error = loadError(spec);
    expect(error.message).toContain(message);
    expect(error.message).toContain('chainsaw-test.yaml (document 1, line');
  });

  it('refuses another kind or apiVersion, and broken YAML with its line', () => {
    const root = folder({
      'a/chainsaw-test.yaml':
        'apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: StepTemplate\nmetadata:\n  name: x\nspec: {}\n',
      'b/chainsaw-test.yaml': 'apiVersion: v1\nkind: Test\n',
      'c/chainsaw-test.yaml': 'spec:\n  steps: [\n',
    });
    expect(() => loadTestFile(join(root, 'a/chainsaw-test.yaml'))).toThrow(/kind: expected Test, got "StepTemplate"/);
    expect(() => loadTestFile(join(root, 'b/chainsaw-test.yaml'))).toThrow(
      /apiVersion: expected chainsaw\.kyverno\.io\/v1alpha1/,
    );
    expect(() => loadTestFile(join(root, 'c/chainsaw-test.yaml'))).toThrow(ChainsawLoadError);
  });

  it("merges a step template: template defaults, then the caller's bindings", () => {
    const root = folder({
      'tpl.yaml':
        'apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: StepTemplate\nmetadata:\n  name: x\nspec:\n  bindings:\n  - name: nm\n    value: default\n  try:\n  - assert:\n      file: ($nm)\n',
      'case/chainsaw-test.yaml': `${HEADER}  steps:\n  - use:\n      template: ../tpl.yaml\n      with:\n        bindings:\n        - name: nm\n          value: given\n`,
    });
    const [test] = loadTestFile(join(root, 'case/chainsaw-test.yaml'));
    expect(test!.steps[0]!.bindings.map((b) => b.value)).toEqual(['default', 'given']);
    expect(test!.steps[0]!.try[0]).toMatchObject({ type: 'assert', file: '($nm)' });
  });

  it("joins a template path that starts with '/' to the test's folder, as chainsaw does", () => {
    const root = folder({
      'tpl.yaml':
        'apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: StepTemplate\nmetadata:\n  name: x\nspec:\n  try:\n  - sleep:\n      duration: 1s\n',
      'a/case/chainsaw-test.yaml': `${HEADER}  steps:\n  - use:\n      template: /../../tpl.yaml\n`,
    });
    const [test] = loadTestFile(join(root, 'a/case/chainsaw-test.yaml'));
    expect(test!.steps[0]!.try[0]).toMatchObject({ type: 'sleep' });
  });

  it('names a missing step template', () => {
    expect(() =>
      loadTestFile(
        join(
          folder({ 'chainsaw-test.yaml': `${HEADER}  steps:\n  - use:\n      template: nowhere.yaml\n` }),
          'chainsaw-test.yaml',
        ),
      ),
    ).toThrow(/spec\.steps\[0\]\.use\.template: step template .*nowhere\.yaml: cannot read/);
  });
});

describe('configuration', () => {
  it('reads v1alpha2 and v1alpha1, and finds the nearest file walking up', () => {
    const root = folder({
      '.chainsaw.yaml':
        'apiVersion: chainsaw.kyverno.io/v1alpha2\nkind: Configuration\nmetadata:\n  name: c\nspec:\n  timeouts:\n    apply: 10s\n  execution:\n    failFast: true\n  namespace:\n    fastDelete: true\n  cleanup:\n    delayBeforeCleanup: 1s\n  discovery:\n    fullName: true\n',
      'old/.chainsaw.yaml':
        'apiVersion: chainsaw.kyverno.io/v1alpha1\nkind: Configuration\nmetadata:\n  name: c\nspec:\n  timeouts:\n    assert: 5s\n  skipDelete: true\n  template: false\n',
      'old/case/x': '',
      'new/case/x': '',
    });
    const v2 = loadConfiguration(findConfigurationFile(join(root, 'new/case'))!);
    expect(v2).toMatchObject({
      timeouts: { apply: 10_000 },
      failFast: true,
      fastDelete: true,
      delayBeforeCleanup: 1000,
      template: true,
    });
    const v1 = loadConfiguration(findConfigurationFile(join(root, 'old/case'))!);
    expect(v1).toMatchObject({ timeouts: { assert: 5000 }, skipDelete: true, template: false });
  });
});

// Kyverno's chainsaw suite beside the repository (../shared/chainsaw), or $EDICT_CHAINSAW_DIR.
const CORPUS = process.env['EDICT_CHAINSAW_DIR'] ?? resolve(__dirname, '../../../../../shared/chainsaw');
describe("Kyverno's chainsaw corpus", () => {
  it('loads every test and its configuration without an error', () => {
    expect(
      existsSync(CORPUS),
      `Kyverno's chainsaw suite is not at ${CORPUS}: put it at ../shared/chainsaw beside the repository, or set EDICT_CHAINSAW_DIR`,
    ).toBe(true);
    const files = discoverTestFiles([CORPUS]);
    expect(files.length).toBeGreaterThan(300);
    const problems: string[] = [];
    for (const file of files) {
      try {
        loadTestFile(file);
        const configuration = findConfigurationFile(join(file, '..'));
        if (configuration) loadConfiguration(configuration);
      } catch (error) {
        problems.push((error as Error).message);
      }
    }
    expect(problems).toEqual([]);
  });
});

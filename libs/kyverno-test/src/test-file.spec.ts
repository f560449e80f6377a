import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from './testing/temp-tree';
import { loadTestFile, parseTestDefinition } from './test-file';

const base = { policies: ['p.yaml'], resources: ['r.yaml'] };

describe('parseTestDefinition', () => {
  it('reads a cli.kyverno.io/v1alpha1 Test with keys in any case', () => {
    const test = parseTestDefinition(
      {
        apiVersion: 'cli.kyverno.io/v1alpha1',
        kind: 'Test',
        metadata: { name: 'mine' },
        Policies: ['p.yaml'],
        resources: ['r.yaml'],
        Variables: 'values.yaml',
        results: [
          {
            Policy: 'p',
            Rule: 'r',
            kind: 'Pod',
            resources: ['ns/a', 'b'],
            result: 'fail',
            patchedResources: 'patched.yaml',
          },
        ],
      },
      '/t/kyverno-test.yaml',
    );
    expect(test.name).toBe('mine');
    expect(test.dir).toBe('/t');
    expect(test.policies).toEqual(['p.yaml']);
    expect(test.variables).toBe('values.yaml');
    expect(test.results[0]).toMatchObject({
      index: 0,
      policy: 'p',
      rule: 'r',
      kind: 'Pod',
      resources: ['ns/a', 'b'],
      result: 'fail',
      patchedResources: 'patched.yaml',
    });
  });

  it('reads the older un-versioned form with name at the top and deprecated result fields', () => {
    const test = parseTestDefinition(
      {
        name: 'old',
        ...base,
        results: [{ policy: 'p', rule: 'r', resource: 'a', namespace: 'ns', status: 'pass', kind: 'Pod' }],
      },
      '/t/kyverno-test.yaml',
    );
    expect(test.name).toBe('old');
    expect(test.results[0]).toMatchObject({ resources: ['a'], namespace: 'ns', result: 'pass' });
  });

  it('reads a per-result operation and mocked API call responses', () => {
    const test = parseTestDefinition(
      {
        ...base,
        apiCallResponses: [{ url: 'https://x/y', response: { statusCode: 200, body: { ok: true } } }],
        results: [{ policy: 'p', rule: 'r', resources: ['a'], result: 'fail', operation: 'delete', kind: 'Pod' }],
      },
      '/t/k.yaml',
    );
    expect(test.results[0].operation).toBe('DELETE');
    expect(test.apiCallResponses).toEqual([
      { url: 'https://x/y', method: undefined, statusCode: 200, body: { ok: true } },
    ]);
  });

  it('names file and field for an unknown field', () => {
    expect(() => parseTestDefinition({ ...base, resorces: [] }, '/t/k.yaml')).toThrow(
      '/t/k.yaml: resorces: unknown field',
    );
    expect(() =>
      parseTestDefinition(
        { ...base, results: [{ policy: 'p', resources: [], result: 'pass', reslt: 1 }] },
        '/t/k.yaml',
      ),
    ).toThrow('/t/k.yaml: results[0].reslt: unknown field');
  });

  it('names file and field for a bad expected result', () => {
    expect(() =>
      parseTestDefinition({ ...base, results: [{ policy: 'p', resources: [], result: 'passed' }] }, '/t/k.yaml'),
    ).toThrow('/t/k.yaml: results[0].result: expected one of pass, fail, warn, error, skip, got "passed"');
    expect(() => parseTestDefinition({ ...base, results: [{ policy: 'p', resources: [] }] }, '/t/k.yaml')).toThrow(
      '/t/k.yaml: results[0].result: is required',
    );
    expect(() => parseTestDefinition({ ...base, results: [{ resources: [], result: 'pass' }] }, '/t/k.yaml')).toThrow(
      '/t/k.yaml: results[0].policy: is required',
    );
  });

  it('rejects other kinds and wrongly typed lists', () => {
    expect(() => parseTestDefinition({ kind: 'Values' }, '/t/k.yaml')).toThrow(
      '/t/k.yaml: kind: expected Test, got "Values"',
    );
    expect(() => parseTestDefinition({ policies: 'p.yaml' }, '/t/k.yaml')).toThrow(
      '/t/k.yaml: policies: expected a list of strings',
    );
  });
});

describe('loadTestFile', () => {
  it('reports malformed YAML with the file and line', () => {
    const dir = writeTree({ 'kyverno-test.yaml': 'policies:\n  - a\n bad: [\n' });
    expect(() => loadTestFile(join(dir, 'kyverno-test.yaml'))).toThrow(/kyverno-test\.yaml.*line \d+/);
  });

  it('reports a missing file and an empty file', () => {
    const dir = writeTree({ 'empty/kyverno-test.yaml': '# nothing\n' });
    expect(() => loadTestFile(join(dir, 'missing.yaml'))).toThrow('missing.yaml: file not found');
    expect(() => loadTestFile(join(dir, 'empty/kyverno-test.yaml'))).toThrow('the file holds no test');
  });
});

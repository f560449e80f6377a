import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from './testing/temp-tree';
import { loadContextFile } from './context-file';
import { yaml } from './testing/fixtures';
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

describe('parseTestDefinition: the fields of the CEL corpus', () => {
  const result = { policy: 'p', kind: 'Pod', resources: ['a'], result: 'pass' };

  it('reads context, payloads, params, global context entries and the CEL kind flags', () => {
    const test = parseTestDefinition(
      {
        ...base,
        context: 'context.yaml',
        jsonPayloads: ['a.json'],
        jsonPayload: 'b.json',
        paramResources: ['params.yaml'],
        globalContextEntries: [
          { name: 'g', data: { items: [1] }, fieldPath: 'items', projections: [{ name: 'first', path: '[0]' }] },
          { name: 'r', resourceFiles: ['objects.yaml'] },
        ],
        results: [
          { ...result, isValidatingPolicy: true },
          { ...result, isValidatingAdmissionPolicy: false },
        ],
      },
      '/t/k.yaml',
    );
    expect(test).toMatchObject({
      context: 'context.yaml',
      jsonPayloads: ['a.json', 'b.json'],
      paramResources: ['params.yaml'],
    });
    expect(test.globalContextEntries).toEqual([
      {
        name: 'g',
        data: { items: [1] },
        fieldPath: 'items',
        resourceFiles: [],
        projections: [{ name: 'first', path: '[0]' }],
      },
      { name: 'r', data: null, resourceFiles: ['objects.yaml'], projections: [] },
    ]);
    expect(test.results.map((entry) => entry.celKind)).toEqual(['ValidatingPolicy', undefined]);
  });

  it('names the field of a bad CEL-corpus entry', () => {
    const parse = (extra: Record<string, unknown>) => () => parseTestDefinition({ ...base, ...extra }, '/t/k.yaml');
    expect(parse({ results: [{ ...result, isValidatingPolicy: 'yes' }] })).toThrow(
      '/t/k.yaml: results[0].isValidatingPolicy: expected true or false',
    );
    expect(parse({ results: [{ ...result, isValidatingPolicy: true, isMutatingPolicy: true }] })).toThrow(
      '/t/k.yaml: results[0].isMutatingPolicy: conflicts with isValidatingPolicy',
    );
    expect(parse({ globalContextEntries: [{ name: 'g' }] })).toThrow(
      '/t/k.yaml: globalContextEntries[0].data: is required (or resources, or resourceFiles)',
    );
    expect(parse({ globalContextEntries: [{ name: 'g', data: [1] }] })).toThrow(
      '/t/k.yaml: globalContextEntries[0].data: expected a JSON object',
    );
    expect(parse({ globalContextEntries: [{ name: 'g', data: {}, projections: [{ name: 'p' }] }] })).toThrow(
      '/t/k.yaml: globalContextEntries[0].projections[0].path: is required',
    );
    expect(parse({ apiCallResponses: [{ url: 'https://x', method: 'PUT', response: { body: {} } }] })).toThrow(
      '/t/k.yaml: apiCallResponses[0].method: expected GET or POST, got "PUT"',
    );
    expect(parse({ apiCallResponses: [{ url: 'https://x', response: { statusCode: 42, body: {} } }] })).toThrow(
      '/t/k.yaml: apiCallResponses[0].response.statusCode: 42 must be between 100 and 599',
    );
  });
});

describe('loadContextFile', () => {
  it('reads objects and image data, and names the field of a bad entry', () => {
    const dir = writeTree({
      'context.yaml': yaml({
        apiVersion: 'cli.kyverno.io/v1alpha1',
        kind: 'Context',
        spec: {
          resources: [{ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c' } }],
          images: [
            {
              image: 'nginx:1',
              resolvedImage: 'docker.io/nginx:1',
              registry: 'docker.io',
              repository: 'nginx',
              tag: '1',
            },
          ],
        },
      }),
      'bad.yaml': yaml({ apiVersion: 'cli.kyverno.io/v1alpha1', kind: 'Context', spec: { images: [{ tag: '1' }] } }),
      'wrong.yaml': yaml({ kind: 'Context', spec: { resources: [{ kind: 'ConfigMap' }] } }),
    });
    const context = loadContextFile(join(dir, 'context.yaml'));
    expect(context.resources).toEqual([
      { apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'c', namespace: 'default' } },
    ]);
    expect(context.images[0]).toMatchObject({ image: 'nginx:1', registry: 'docker.io', tag: '1' });
    expect(() => loadContextFile(join(dir, 'bad.yaml'))).toThrow(/bad\.yaml: spec\.images\[0\]\.image: is required/);
    expect(() => loadContextFile(join(dir, 'wrong.yaml'))).toThrow(
      /wrong\.yaml: spec\.resources\[0\]\.apiVersion: is required/,
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

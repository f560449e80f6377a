import { describe, expect, it } from 'vitest';
import { formatDiagnostic, isError } from './diagnostics';
import { fieldLine, parseDocuments } from './documents';

describe('parseDocuments', () => {
  it('reads every document with its index and starting line', () => {
    const text = ['# header', 'a: 1', '---', '', 'b: 2', '---', 'c: 3', ''].join('\n');
    const { documents, errors } = parseDocuments(text, 'f.yaml');
    expect(errors).toEqual([]);
    expect(documents.map((d) => [d.value, d.index, d.line])).toEqual([
      [{ a: 1 }, 0, 2],
      [{ b: 2 }, 1, 5],
      [{ c: 3 }, 2, 7],
    ]);
    expect(documents[0].file).toBe('f.yaml');
  });

  it('skips empty and comment-only documents but keeps counting them', () => {
    const { documents } = parseDocuments('---\n# nothing\n---\n~\n---\nx: 1\n', 'f.yaml');
    expect(documents).toHaveLength(1);
    expect(documents[0].index).toBe(2);
  });

  it('returns nothing for empty text', () => {
    expect(parseDocuments('', 'f.yaml')).toEqual({ documents: [], errors: [] });
  });

  it('uses YAML 1.1 scalars the way Kubernetes reads them', () => {
    const text = [
      'a: yes',
      'b: on',
      'c: NO',
      'd: y',
      'e: Off',
      'f: 0777',
      'g: 0x1F',
      'h: 1_000',
      'i: 0o17',
      'j: 2001-12-14',
      'k: 1:30',
      'l: "yes"',
      'm: 1.5',
      'nil: ~',
      'n: key',
      'on: push',
    ].join('\n');
    const [doc] = parseDocuments(text, 'f.yaml').documents;
    expect(doc.value).toEqual({
      a: true,
      b: true,
      c: false,
      d: true,
      e: false,
      f: 511,
      g: 31,
      h: 1000,
      i: 15,
      j: '2001-12-14',
      k: '1:30',
      l: 'yes',
      m: 1.5,
      nil: null,
      false: 'key', // keys resolve like values: `n` and `on` are booleans
      true: 'push',
    });
  });

  it('supports anchors, aliases and merge keys', () => {
    const text = 'base: &b {p: 1, q: 2}\nother:\n  <<: *b\n  q: 3\n';
    expect(parseDocuments(text, 'f.yaml').documents[0].value).toEqual({ base: { p: 1, q: 2 }, other: { p: 1, q: 3 } });
  });

  it('turns syntax errors into diagnostics with line and column, keeping other documents', () => {
    const text = 'a: 1\n---\nb: [1, 2\n---\nc: 3\n';
    const { documents, errors } = parseDocuments(text, 'bad.yaml');
    expect(documents.map((d) => d.value)).toEqual([{ a: 1 }, { c: 3 }]);
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ file: 'bad.yaml', document: 1, line: 4, column: 1 });
    expect(isError(errors[0])).toBe(true);
    expect(errors[0].message).not.toMatch(/\n/);
    expect(formatDiagnostic(errors[0])).toMatch(/^bad\.yaml \(document 2, line 4, column 1\): /);
  });

  it('reports bad indentation with its line', () => {
    const text = 'spec:\n  rules:\n    - name: a\n   match: {}\n';
    const { documents, errors } = parseDocuments(text, 'f.yaml');
    expect(documents).toHaveLength(0);
    expect(errors[0].line).toBe(4);
  });

  it('keeps the last value of a repeated key and warns', () => {
    const { documents, errors } = parseDocuments('a: 1\na: 2\n', 'f.yaml');
    expect(documents[0].value).toEqual({ a: 2 });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatchObject({ severity: 'warning', line: 2 });
    expect(isError(errors[0])).toBe(false);
  });

  it('rejects values JSON cannot hold', () => {
    const { documents, errors } = parseDocuments('a: .inf\n', 'f.yaml');
    expect(documents).toHaveLength(0);
    expect(errors[0].message).toMatch(/infinity/);
  });

  it('expands List documents into their items with their own lines', () => {
    const text = [
      'apiVersion: v1',
      'kind: List',
      'items:',
      '- kind: Pod',
      '  metadata: {name: a}',
      '- kind: Pod',
      '  metadata:',
      '    name: b',
      '---',
      'kind: PodList',
      'items: []',
      '---',
      'kind: Pod',
      'items: [not, a, list]',
    ].join('\n');
    const { documents } = parseDocuments(text, 'f.yaml');
    expect(documents.map((d) => [d.index, d.item, d.line])).toEqual([
      [0, 0, 4],
      [0, 1, 6],
      [2, undefined, 13],
    ]);
    expect(documents[1].value).toEqual({ kind: 'Pod', metadata: { name: 'b' } });
    expect(fieldLine(documents[1], 'metadata.name')).toBe(8);
  });
});

describe('fieldLine', () => {
  const text = [
    'apiVersion: kyverno.io/v1', // 1
    'kind: ClusterPolicy', // 2
    'spec:', // 3
    '  rules:', // 4
    '  - name: a', // 5
    '    match: {}', // 6
    '  - name: b', // 7
    '    validate:', // 8
    '      pattern:', // 9
    '        spec: {}', // 10
  ].join('\n');
  const [doc] = parseDocuments(text, 'p.yaml').documents;

  it('finds the line of a field', () => {
    expect(fieldLine(doc, 'spec.rules[1].validate.pattern')).toBe(9);
    expect(fieldLine(doc, ['spec', 'rules', 0, 'match'])).toBe(6);
    expect(fieldLine(doc, 'spec.rules[1]')).toBe(7);
    expect(fieldLine(doc, '')).toBe(1);
  });

  it('falls back to the deepest existing ancestor', () => {
    expect(fieldLine(doc, 'spec.rules[1].validate.message')).toBe(8);
    expect(fieldLine(doc, 'spec.rules[5].name')).toBe(4);
  });

  it('is undefined for objects not read from YAML', () => {
    expect(fieldLine({ value: {}, file: 'x', index: 0, line: 1 }, 'a')).toBeUndefined();
  });
});

import { relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { writeTree } from '../testing/temp-tree';
import { expandPath } from './input-paths';

const library = () =>
  writeTree({
    'pol/policy.yaml': 'kind: ClusterPolicy',
    'pol/.chainsaw-test/chainsaw-test.yaml': 'kind: Test',
    'pol/.kyverno-test/kyverno-test.yaml': 'kind: Test',
    'pol/.hidden.yaml': 'kind: ClusterPolicy',
    'pol/notes.txt': 'not yaml',
    'pol/nested/more.yml': 'kind: ClusterPolicy',
    '.git/config.yaml': 'x: 1',
    'top.json': '{}',
  });

const walked = (root: string, hidden?: 'skip' | 'read') => expandPath(root, hidden).map((f) => relative(root, f));

describe('expandPath', () => {
  it('leaves out hidden folders and hidden files met in a folder, as Kyverno loads policies', () => {
    expect(walked(library())).toEqual(['pol/nested/more.yml', 'pol/policy.yaml', 'top.json']);
  });

  it('reads hidden files but still enters no hidden folder when asked to (resource folders)', () => {
    expect(walked(library(), 'read')).toEqual([
      'pol/.hidden.yaml',
      'pol/nested/more.yml',
      'pol/policy.yaml',
      'top.json',
    ]);
  });

  it('reads a hidden path that is given explicitly', () => {
    const root = library();
    expect(walked(`${root}/pol/.chainsaw-test`)).toEqual(['chainsaw-test.yaml']);
    expect(expandPath(`${root}/pol/.hidden.yaml`)).toEqual([`${root}/pol/.hidden.yaml`]);
  });
});

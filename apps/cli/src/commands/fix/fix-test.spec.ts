import { describe, expect, it } from 'vitest';
import { fixTest } from './fix-test';

const base = {
  apiVersion: 'cli.kyverno.io/v1alpha1',
  kind: 'Test',
  metadata: { name: 't' },
  policies: ['p'],
  resources: ['r'],
};

describe('fixTest', () => {
  it('compresses results equal but for their resources, dropping duplicates, and sorts them', () => {
    const { fixed, messages } = fixTest(
      {
        ...base,
        results: [
          { policy: 'z', rule: 'r', kind: 'Pod', result: 'pass', resources: ['x'] },
          { policy: 'a', rule: 'r', kind: 'Pod', result: 'fail', resources: ['b', 'a'] },
          { policy: 'a', rule: 'r', kind: 'Pod', result: 'fail', resources: ['a'] },
          { policy: 'a', rule: 'r', kind: 'Pod', result: 'pass', resources: ['c'] },
        ],
      },
      true,
    );
    expect(messages).toEqual(['test results contains duplicate resources']);
    expect(fixed.results).toEqual([
      { policy: 'a', rule: 'r', kind: 'Pod', result: 'fail', resources: ['b', 'a'] },
      { policy: 'a', rule: 'r', kind: 'Pod', result: 'pass', resources: ['c'] },
      { policy: 'z', rule: 'r', kind: 'Pod', result: 'pass', resources: ['x'] },
    ]);
  });

  it('warns of a test without policies or resources, of both resource fields, and of global context entries without data', () => {
    const { messages, fixed } = fixTest(
      {
        apiVersion: 'cli.kyverno.io/v1alpha1',
        kind: 'Test',
        globalContextEntries: [
          { name: 'g', data: null },
          { name: 'h', data: { a: 1 } },
        ],
        results: [{ policy: 'p', rule: 'r', resource: 'a', resources: ['b'], result: 'pass' }],
      },
      false,
    );
    expect(messages).toEqual([
      'test has no policies',
      'test has no resources',
      'global context entry "g" has no data source',
      'test result should not use both `resource` and `resources` fields',
      'test result uses deprecated `resource` field, moving it into the `resources` field',
    ]);
    expect(fixed.results).toEqual([{ policy: 'p', rule: 'r', resources: ['b', 'a'], result: 'pass' }]);
  });

  it('leaves a current test as it is', () => {
    const test = { ...base, results: [{ policy: 'p', rule: 'r', kind: 'Pod', resources: ['a'], result: 'pass' }] };
    expect(fixTest(test, false)).toEqual({ fixed: test, messages: [] });
  });
});

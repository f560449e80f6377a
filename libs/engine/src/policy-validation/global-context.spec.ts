import { describe, expect, it } from 'vitest';
import type { Policy } from '../policy';
import { globalContextEntryReady, globalContextWarnings } from './index';

const policy = (names: (string | undefined)[]): Policy =>
  ({
    apiVersion: 'kyverno.io/v1',
    kind: 'ClusterPolicy',
    metadata: { name: 'p' },
    spec: {
      rules: [
        {
          name: 'r',
          match: { any: [{ resources: { kinds: ['Pod'] } }] },
          context: names.map((name, i) => ({ name: `e${i}`, globalReference: { name } })),
          validate: { deny: {} },
        },
      ],
    },
  }) as unknown as Policy;

describe('globalContextWarnings', () => {
  const entries = new Map([
    ['ready', { ready: true }],
    ['loading', { ready: false }],
  ]);
  const lookup = (name: string) => Promise.resolve(entries.get(name));

  it('is silent when every referenced entry is ready', async () => {
    expect(await globalContextWarnings(policy(['ready', 'ready']), lookup)).toEqual([]);
  });

  it('warns, once, about the first entry missing or not ready, naming it', async () => {
    expect(await globalContextWarnings(policy(['ready', 'loading', 'gone']), lookup)).toEqual([
      'Global context entry loading does not exist or is not ready',
    ]);
    expect(await globalContextWarnings(policy(['gone']), lookup)).toEqual([
      'Global context entry gone does not exist or is not ready',
    ]);
  });

  it('warns about a reference without a name', async () => {
    expect(await globalContextWarnings(policy(['']), lookup)).toEqual(['Global context entry name is not provided']);
  });
});

describe('globalContextEntryReady', () => {
  it('reads the Ready condition only', () => {
    expect(globalContextEntryReady({ conditions: [{ type: 'Ready', status: 'True' }] })).toBe(true);
    expect(globalContextEntryReady({ conditions: [{ type: 'Ready', status: 'False' }], ready: true })).toBe(false);
    expect(globalContextEntryReady({ ready: true })).toBe(false);
    expect(globalContextEntryReady(undefined)).toBe(false);
  });
});

import { describe, expect, it } from 'vitest';
import type { Rule } from '@edict/engine';
import { factsOf, ruleTypesOf } from './rule-facts';

const base = (extra: Partial<Rule>): Rule => ({ name: 'r', match: {}, ...extra });

describe('rule facts', () => {
  it('classifies rule types; mutate with targets is mutate-existing', () => {
    expect(ruleTypesOf(base({ validate: { pattern: {} } }))).toEqual(['validate']);
    expect(ruleTypesOf(base({ mutate: { patchStrategicMerge: {} } }))).toEqual(['mutate']);
    expect(
      ruleTypesOf(base({ mutate: { targets: [{ apiVersion: 'v1', kind: 'Secret' }], patchStrategicMerge: {} } })),
    ).toEqual(['mutate-existing']);
    expect(ruleTypesOf(base({ generate: { kind: 'ConfigMap' } }))).toEqual(['generate']);
    expect(ruleTypesOf(base({ verifyImages: [{ imageReferences: ['*'] }] }))).toEqual(['verify-images']);
    expect(ruleTypesOf(base({}))).toEqual([]);
  });

  it('collects kinds from the legacy block, any and all', () => {
    const facts = factsOf(
      base({
        match: {
          resources: { kinds: ['Pod'] },
          any: [{ resources: { kinds: ['apps/v1/Deployment'] } }, { resources: {} }],
          all: [{ resources: { kinds: ['Service'] } }],
        },
      }),
    );
    expect(facts.kinds).toEqual(['Pod', 'apps/v1/Deployment', 'Service']);
  });

  it('ignores exclude kinds (they only narrow)', () => {
    const facts = factsOf(
      base({
        match: { any: [{ resources: { kinds: ['Pod'] } }] },
        exclude: { any: [{ resources: { kinds: ['Secret'] } }] },
      }),
    );
    expect(facts.kinds).toEqual(['Pod']);
  });

  it('limits operations only when every path names them', () => {
    const ops = (match: Rule['match']) => {
      const o = factsOf(base({ match })).operations;
      return o ? [...o].sort() : undefined;
    };
    expect(ops({ any: [{ resources: { kinds: ['Pod'] } }] })).toBeUndefined();
    expect(ops({ any: [{ resources: { kinds: ['Pod'], operations: ['CREATE'] } }] })).toEqual(['CREATE']);
    // One any-filter without operations lets every operation through.
    expect(
      ops({ any: [{ resources: { kinds: ['Pod'], operations: ['CREATE'] } }, { resources: { kinds: ['Pod'] } }] }),
    ).toBeUndefined();
    expect(
      ops({
        any: [
          { resources: { kinds: ['Pod'], operations: ['CREATE'] } },
          { resources: { kinds: ['Pod'], operations: ['DELETE'] } },
        ],
      }),
    ).toEqual(['CREATE', 'DELETE']);
    expect(
      ops({
        all: [
          { resources: { kinds: ['Pod'], operations: ['CREATE', 'UPDATE'] } },
          { resources: { operations: ['UPDATE', 'DELETE'] } },
        ],
      }),
    ).toEqual(['UPDATE']);
    expect(ops({ resources: { kinds: ['Pod'], operations: ['UPDATE'] } })).toEqual(['UPDATE']);
  });
});

import { describe, expect, it } from 'vitest';
import { EvaluationContext } from '../variables';
import type { ContextLoaders } from '../core/loaders';
import type { ContextEntry } from '../policy/types';
import { loadContextEntries } from './load-context';

describe('loadContextEntries: variable entries', () => {
  it('lets a later variable entry of the same name replace an object outright (no merge)', async () => {
    const ctx = new EvaluationContext();
    const entries: ContextEntry[] = [
      { name: 'cfg', variable: { value: { first: 1, shared: 'a' } } },
      { name: 'cfg', variable: { value: { shared: 'b' } } },
    ];
    await loadContextEntries(entries, ctx, {});
    expect(ctx.query('cfg')).toEqual({ shared: 'b' });
  });

  it('replaces a value supplied beforehand (CLI values are loaded first, variables after)', async () => {
    const ctx = new EvaluationContext();
    ctx.add('settings', { mode: 'values-file', extra: true });
    await loadContextEntries([{ name: 'settings', variable: { value: { mode: 'policy' } } }], ctx, {
      provided: new Set(['settings']),
    });
    expect(ctx.query('settings')).toEqual({ mode: 'policy' });
  });

  it('replaces only the named leaf of a dotted name, keeping its siblings', async () => {
    const ctx = new EvaluationContext({ outer: { keep: 1, inner: { old: true } } });
    await loadContextEntries([{ name: 'outer.inner', variable: { value: { fresh: true } } }], ctx, {});
    expect(ctx.query('outer.inner')).toEqual({ fresh: true });
    expect(ctx.query('outer')).toEqual({ keep: 1, inner: { fresh: true } });
  });

  it('later entries read earlier ones', async () => {
    const ctx = new EvaluationContext();
    await loadContextEntries(
      [
        { name: 'a', variable: { value: { n: 'x' } } },
        { name: 'b', variable: { jmesPath: 'a.n' } },
      ],
      ctx,
      {},
    );
    expect(ctx.query('b')).toBe('x');
  });
});

describe('loadContextEntries: deferred loading', () => {
  it('evaluates a variable entry only when a query names it', async () => {
    const ctx = new EvaluationContext({ request: { operation: 'DELETE', object: null } });
    await loadContextEntries([{ name: 'ingressClass', variable: { jmesPath: 'request.object.spec' } }], ctx, {});
    expect(ctx.query('request.operation')).toBe('DELETE');
    expect(() => ctx.query('ingressClass')).toThrow(
      /Unknown key "ingressClass".*; context entry ingressClass could not be loaded: unable to add context entry for variable ingressClass since it evaluated to nil$/,
    );
  });

  it('leaves an entry whose lookup fails unset (queries missing it say why), and still rejects an entry with no source', async () => {
    const ctx = new EvaluationContext();
    const failing = {
      configMap: () => Promise.reject(new Error('boom')),
      apiCall: () => Promise.reject(new Error('boom')),
      globalReference: () => Promise.reject(new Error('boom')),
      imageRegistry: () => Promise.reject(new Error('boom')),
    };
    await loadContextEntries(
      [
        { name: 'cm', configMap: { name: 'c', namespace: 'n' } },
        { name: 'after', variable: { value: 'loaded' } },
      ],
      ctx,
      { loaders: failing },
    );
    expect(ctx.query('after')).toBe('loaded');
    expect(() => ctx.query('cm.data')).toThrow(/Unknown key "cm".*; context entry cm could not be loaded: boom$/);
    await expect(loadContextEntries([{ name: 'nothing' }], ctx, {})).rejects.toThrow('invalid context entry nothing');
  });
});

/** ConfigMap `settings` answers after a tick, as a cluster read would; nothing else exists. */
const slowSettings: ContextLoaders = {
  configMap: async (namespace, name) => {
    await Promise.resolve();
    return {
      apiVersion: 'v1',
      kind: 'ConfigMap',
      metadata: { name, namespace },
      data: { banned: 'b', mode: 'strict' },
    };
  },
  apiCall: () => undefined,
  globalReference: () => undefined,
  imageRegistry: () => undefined,
};

describe('loadContextEntries: synchronous unless an entry is read from outside', () => {
  it('registers variable entries without a promise', () => {
    const ctx = new EvaluationContext();
    expect(loadContextEntries([{ name: 'x', variable: { value: 1 } }], ctx, {})).toBeUndefined();
    expect(ctx.query('x')).toBe(1);
  });

  it('returns a promise once an external entry comes, and loads the entries after it in order', async () => {
    const ctx = new EvaluationContext();
    const loaded = loadContextEntries(
      [
        { name: 'cm', configMap: { name: 'settings', namespace: 'default' } },
        { name: 'mode', variable: { jmesPath: 'cm.data.mode' } },
      ],
      ctx,
      { loaders: slowSettings },
    );
    expect(loaded).toBeInstanceOf(Promise);
    await loaded;
    expect(ctx.query('mode')).toBe('strict');
  });
});

import { describe, expect, it } from 'vitest';
import { EvaluationContext } from './context';
import { ContextQueryError } from './errors';
import { splitVariableName } from './context-data';
import { compileJmesPath } from '@edict/jmespath';
import { EvaluationBudget } from '@edict/foundation';

describe('EvaluationContext.add', () => {
  it('sets nested fields from dotted names and merges objects', () => {
    const ctx = new EvaluationContext();
    ctx.add('request.operation', 'UPDATE');
    ctx.add('request', { namespace: 'prod' });
    ctx.add('a.b.c', 1);
    expect(ctx.document()).toEqual({ request: { operation: 'UPDATE', namespace: 'prod' }, a: { b: { c: 1 } } });
  });

  it('replaces non-objects and stores null', () => {
    const ctx = new EvaluationContext({ a: { b: 1 } });
    ctx.add('a', 'text');
    ctx.add('n', null);
    expect(ctx.document()).toEqual({ a: 'text', n: null });
  });

  it('never mutates the objects it was given', () => {
    const initial = { request: { object: { metadata: { name: 'x' } } } };
    const ctx = new EvaluationContext(initial);
    ctx.add('request.object.metadata.labels', { a: 'b' });
    expect(initial).toEqual({ request: { object: { metadata: { name: 'x' } } } });
    expect(ctx.query('request.object.metadata')).toEqual({ name: 'x', labels: { a: 'b' } });
  });

  it('splits names like Kyverno (CSV with dots, quotes group)', () => {
    expect(splitVariableName('a.b')).toEqual(['a', 'b']);
    expect(splitVariableName('"a.b".c')).toEqual(['a.b', 'c']);
    expect(splitVariableName('"say ""hi""".x')).toEqual(['say "hi"', 'x']);
    expect(splitVariableName('a.')).toEqual(['a', '']);
    expect(() => splitVariableName('')).toThrow(/empty/);
    expect(() => splitVariableName('a"b')).toThrow(/bare "/);
    expect(() => splitVariableName('"a"b')).toThrow(/quoted field/);
  });

  it('replaces a whole entry with replace()', () => {
    const ctx = new EvaluationContext({ entry: { old: 1 } });
    ctx.replace('entry', { fresh: 2 });
    expect(ctx.document()).toEqual({ entry: { fresh: 2 } });
  });

  it('overwrites foreach elements instead of merging them', () => {
    const ctx = new EvaluationContext();
    ctx.addElement({ name: 'a', extra: true }, 0, 0);
    ctx.addElement({ name: 'b' }, 1, 0);
    expect(ctx.document()).toEqual({
      element: { name: 'b' },
      element0: { name: 'b' },
      elementIndex: 1,
      elementIndex0: 1,
    });
  });

  it('keeps __proto__ keys as data', () => {
    const ctx = new EvaluationContext();
    ctx.add('__proto__.polluted', 'yes');
    expect(({} as Record<string, unknown>)['polluted']).toBeUndefined();
    expect(Object.keys(ctx.document())).toEqual(['__proto__']);
  });
});

describe('EvaluationContext.query', () => {
  const ctx = new EvaluationContext({ a: { b: null, list: [1, 2] } });

  it('evaluates JMESPath', () => {
    expect(ctx.query('a.list[1]')).toBe(2);
    expect(ctx.query(' a.b ')).toBeNull();
    expect(ctx.query('a.b.c')).toBeNull();
  });

  it('fails on missing keys and bad expressions with Kyverno messages', () => {
    expect(() => ctx.query('a.missing')).toThrow('JMESPath query failed: Unknown key "missing" in path');
    try {
      ctx.query('a.missing');
    } catch (error) {
      expect((error as ContextQueryError).notFound).toBe(true);
    }
    expect(() => ctx.query('   ')).toThrow('invalid query (nil)');
    expect(() => ctx.query('a[')).toThrow(/^incorrect query a\[: /);
  });
});

describe('EvaluationContext checkpoints', () => {
  it('restores and resets like Kyverno', () => {
    const ctx = new EvaluationContext({ base: 1 });
    ctx.checkpoint();
    ctx.add('loop', 'first');
    ctx.reset();
    expect(ctx.document()).toEqual({ base: 1 });
    ctx.add('loop', 'second');
    ctx.checkpoint();
    ctx.add('inner', true);
    ctx.restore();
    expect(ctx.document()).toEqual({ base: 1, loop: 'second' });
    ctx.restore();
    expect(ctx.document()).toEqual({ base: 1 });
  });

  it('ignores restore and reset without a checkpoint', () => {
    const ctx = new EvaluationContext({ a: 1 });
    ctx.restore();
    ctx.reset();
    expect(ctx.document()).toEqual({ a: 1 });
  });

  it('keeps the operation across checkpoints', () => {
    const ctx = new EvaluationContext();
    ctx.setOperation('DELETE');
    ctx.checkpoint();
    ctx.restore();
    expect(ctx.operation()).toBe('DELETE');
    expect(ctx.query('request.operation')).toBe('DELETE');
  });
});

describe('EvaluationContext deferred loaders', () => {
  it('loads an entry on first mention only', () => {
    const ctx = new EvaluationContext();
    let loads = 0;
    ctx.addDeferredLoader('cm', (target) => {
      loads++;
      target.add('cm', { data: { k: 'v' } });
    });
    expect(ctx.query("'no mention'")).toBe('no mention');
    expect(loads).toBe(0);
    expect(ctx.query('cm.data.k')).toBe('v');
    expect(ctx.query('cm.data')).toEqual({ k: 'v' });
    expect(loads).toBe(1);
  });

  it('matches whole words not preceded by a dot', () => {
    const ctx = new EvaluationContext({ x: { cm: 1 }, cmx: 2 });
    let loads = 0;
    ctx.addDeferredLoader('cm', () => loads++);
    ctx.query('x.cm');
    ctx.query('cmx');
    expect(loads).toBe(0);
    ctx.query('[cm]');
    expect(loads).toBe(1);
  });

  it('lets a loader query entries registered before it', () => {
    const ctx = new EvaluationContext();
    ctx.addDeferredLoader('first', (target) => target.add('first', 'one'));
    ctx.addDeferredLoader('second', (target) => target.add('second', `${String(target.query('first'))}+two`));
    expect(ctx.query('second')).toBe('one+two');
  });

  it('leaves a failing entry undefined', () => {
    const ctx = new EvaluationContext();
    ctx.addDeferredLoader('broken', () => {
      throw new Error('boom');
    });
    expect(() => ctx.query('broken')).toThrow('Unknown key "broken"');
  });

  it('drops loaders and loaded data added after a checkpoint, and reloads lazily', () => {
    const ctx = new EvaluationContext();
    let loads = 0;
    ctx.addDeferredLoader('early', (target) => {
      loads++;
      target.add('early', loads);
    });
    ctx.checkpoint();
    ctx.addDeferredLoader('late', (target) => target.add('late', true));
    expect(ctx.query('early')).toBe(1);
    expect(ctx.query('late')).toBe(true);
    ctx.reset();
    expect(() => ctx.query('late')).toThrow('Unknown key "late"');
    expect(ctx.query('early')).toBe(2);
    ctx.restore();
    expect(ctx.query('early')).toBe(3);
  });
});

describe('EvaluationContext.fork', () => {
  it('starts from the current data and operation and diverges independently', () => {
    const base = EvaluationContext.forRequest({
      operation: 'DELETE',
      oldResource: { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'web', namespace: 'shop' } },
    });
    const fork = base.fork();
    expect(fork.operation()).toBe('DELETE');
    expect(fork.query('request.oldObject.metadata.name')).toBe('web');
    fork.add('extra', 1);
    expect(fork.query('extra')).toBe(1);
    expect(() => base.query('extra')).toThrow();
  });
});

describe('EvaluationContext.shareQueryResults', () => {
  const document = { request: { object: { spec: { containers: [{ name: 'a' }], initContainers: [{ name: 'b' }] } } } };
  const list = 'request.object.spec.[initContainers, containers][]';

  it("lets the forks reuse each other's results on the shared document", () => {
    const base = new EvaluationContext(document);
    base.shareQueryResults();
    const first = base.fork(new EvaluationBudget()).query(list);
    const second = base.fork(new EvaluationBudget()).query(list);
    expect(first).toEqual([{ name: 'b' }, { name: 'a' }]);
    expect(second).toBe(first); // the same array, not a new projection
  });

  it('answers anew once the document changed, for a function call, or under other limits', () => {
    const base = new EvaluationContext(document);
    base.shareQueryResults();
    const first = base.fork(new EvaluationBudget()).query(list);

    const changed = base.fork(new EvaluationBudget());
    changed.add('extra', 1);
    expect(changed.query(list)).not.toBe(first);
    expect(changed.query(list)).toEqual(first);

    const call = 'values(request.object.spec)';
    expect(base.fork().query(call)).not.toBe(base.fork().query(call));

    const strict = base.fork(new EvaluationBudget({ maxResultSize: 10, maxContextSize: 10 }));
    expect(() => strict.query(list)).toThrow(/limit|exceed/i);
  });

  it('is off unless asked for', () => {
    const base = new EvaluationContext(document);
    expect(base.fork().query(list)).not.toBe(base.fork().query(list));
  });
});

describe('EvaluationContext.search (a query compiled beforehand)', () => {
  it('gives what query gives, deferred loads included', () => {
    const ctx = new EvaluationContext({ request: { object: { metadata: { name: 'web' } } } });
    ctx.addDeferredLoader('cm', (target) => target.add('cm', { data: { team: 'payments' } }));
    expect(ctx.search(compileJmesPath('request.object.metadata.name'))).toBe('web');
    expect(ctx.search(compileJmesPath('cm.data.team'))).toBe('payments');
  });

  it('fails with the same error as query, naming a context entry that could not be loaded', () => {
    const ctx = new EvaluationContext({ request: {} });
    ctx.noteLoadFailure('cm', 'configmap not found');
    const expression = 'cm.data.team';
    const viaQuery = (() => {
      try {
        return ctx.query(expression);
      } catch (error) {
        return error;
      }
    })();
    expect(viaQuery).toBeInstanceOf(ContextQueryError);
    expect(() => ctx.search(compileJmesPath(expression))).toThrow((viaQuery as Error).message);
    expect((viaQuery as Error).message).toContain('context entry cm could not be loaded: configmap not found');
  });
});

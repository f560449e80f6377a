import { describe, expect, it } from 'vitest';
import { ValuesLookup, baseRuleName } from './values-lookup';
import { EMPTY_VALUES } from './values-file';

const lookup = new ValuesLookup({
  ...EMPTY_VALUES,
  globalValues: { shared: 'g', 'request.operation': 'UPDATE' },
  policies: [
    {
      name: 'p',
      rules: [{ name: 'r', values: { count: 3 }, foreachValues: { element: ['a'] } }],
      resources: [{ name: 'pod-a', values: { shared: 'resource', 'request.operation': 'DELETE' } }],
    },
  ],
  namespaceLabels: { team: { env: 'prod' } },
});

describe('ValuesLookup', () => {
  it('overlays a resource’s values on the global values, per policy', () => {
    expect(lookup.resourceValues('p', 'pod-a')).toEqual({ shared: 'resource', 'request.operation': 'DELETE' });
    expect(lookup.resourceValues('p', 'pod-b')).toEqual({ shared: 'g', 'request.operation': 'UPDATE' });
    expect(lookup.resourceValues('other', 'pod-a').shared).toBe('g');
  });

  it('puts --set values over the global and per-resource ones, as Kyverno puts its variables', () => {
    const set = new ValuesLookup({ ...lookup.spec, setValues: { shared: 'set', 'request.operation': 'UPDATE' } });
    expect(set.resourceValues('p', 'pod-a')).toEqual({ shared: 'set', 'request.operation': 'UPDATE' });
    expect(set.operation('p', 'pod-a')).toBe('UPDATE');
  });

  it('takes the operation from request.operation, honouring only UPDATE and DELETE', () => {
    expect(lookup.operation('p', 'pod-a')).toBe('DELETE');
    expect(lookup.operation('p', 'pod-b')).toBe('UPDATE');
    const connect = new ValuesLookup({ ...EMPTY_VALUES, globalValues: { 'request.operation': 'CONNECT' } });
    expect(connect.operation('p', 'x')).toBe('CREATE');
  });

  it('gives a rule’s values to its autogen copies', () => {
    const options = lookup.options('p', 'pod-b');
    expect(options.ruleValues?.('p', 'r')).toEqual({ count: 3 });
    expect(options.ruleValues?.('p', 'autogen-r')).toEqual({ count: 3 });
    expect(options.ruleValues?.('p', 'autogen-cronjob-r')).toEqual({ count: 3 });
    expect(options.foreachValues?.('p', 'autogen-r')).toEqual({ element: ['a'] });
    expect(options.ruleValues?.('p', 'other')).toBeUndefined();
  });

  it('reads namespace labels by namespace name', () => {
    expect(lookup.namespaceLabels('team')).toEqual({ env: 'prod' });
    expect(lookup.namespaceLabels('other')).toBeUndefined();
  });

  it('strips autogen prefixes', () => {
    expect(baseRuleName('autogen-cronjob-x')).toBe('x');
    expect(baseRuleName('autogen-x')).toBe('x');
    expect(baseRuleName('x')).toBe('x');
  });
});

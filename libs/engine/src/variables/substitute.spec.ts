import { describe, expect, it } from 'vitest';
import type { JsonObject, JsonValue } from '@edict/foundation';
import { EvaluationContext } from './context';
import { VariableSubstitutionError } from './errors';
import { substituteVariables } from './substitute';

const pod: JsonObject = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'web', namespace: 'prod', labels: { app: 'nginx', tier: null } },
  spec: { replicas: 3, containers: [{ name: 'c1', image: 'nginx:1.25' }] },
};

function context(extra: JsonObject = {}): EvaluationContext {
  const ctx = new EvaluationContext();
  ctx.add('request', { operation: 'CREATE', object: pod });
  for (const [name, value] of Object.entries(extra)) ctx.add(name, value);
  return ctx;
}

function failure(run: () => unknown): VariableSubstitutionError {
  try {
    run();
  } catch (error) {
    if (error instanceof VariableSubstitutionError) return error;
    throw error;
  }
  throw new Error('expected a VariableSubstitutionError');
}

describe('substituteVariables: interpolation and types', () => {
  const ctx = context();

  it('gives a whole-string variable its JSON type', () => {
    expect(substituteVariables('{{ request.object.spec.replicas }}', ctx)).toBe(3);
    expect(substituteVariables('{{request.object.metadata.labels}}', ctx)).toEqual({ app: 'nginx', tier: null });
    expect(substituteVariables("{{ request.object.spec.containers[0].name == 'c1' }}", ctx)).toBe(true);
    expect(substituteVariables('{{ request.object.metadata.labels.tier }}', ctx)).toBeNull();
  });

  it('interpolates several variables as text', () => {
    expect(substituteVariables('{{request.object.metadata.namespace}}/{{ request.object.metadata.name }}', ctx)).toBe(
      'prod/web',
    );
  });

  it('writes non-strings inside text as Go JSON (sorted keys, null)', () => {
    expect(substituteVariables('n={{ request.object.spec.replicas }}', ctx)).toBe('n=3');
    expect(substituteVariables('labels: {{ request.object.metadata.labels }}', ctx)).toBe(
      'labels: {"app":"nginx","tier":null}',
    );
    expect(substituteVariables('tier={{ request.object.metadata.labels.tier }}', ctx)).toBe('tier=null');
    expect(substituteVariables('ok={{ `true` }}', ctx)).toBe('ok=true');
  });

  it('does not type a variable surrounded by whitespace', () => {
    expect(substituteVariables(' {{ request.object.spec.replicas }}', ctx)).toBe(' 3');
  });

  it('substitutes inside arrays and objects and keeps everything else', () => {
    const input: JsonValue = { a: ['{{ request.object.metadata.name }}', 1, null], b: { c: 'plain' } };
    expect(substituteVariables(input, ctx)).toEqual({ a: ['web', 1, null], b: { c: 'plain' } });
  });

  it('returns the same reference when there is nothing to substitute', () => {
    const input: JsonValue = { a: ['x', { b: 'y { z }' }], c: 1 };
    expect(substituteVariables(input, ctx)).toBe(input);
  });

  it('shares untouched subtrees', () => {
    const untouched = { deep: ['x'] };
    const input: JsonObject = { untouched, changed: '{{ request.object.metadata.name }}' };
    const output = substituteVariables(input, ctx) as JsonObject;
    expect(output['untouched']).toBe(untouched);
    expect(input['changed']).toBe('{{ request.object.metadata.name }}');
  });

  it('substitutes variables inside values produced by a variable, as Kyverno re-traverses them', () => {
    const withTemplates = context({ tmpl: { name: '{{ request.object.metadata.name }}' } });
    expect(substituteVariables('{{ tmpl }}', withTemplates)).toEqual({ name: 'web' });
  });

  it('re-scans text produced by a variable inside a longer string', () => {
    const nestedText = context({ note: 'see {{ request.object.metadata.name }}' });
    expect(substituteVariables('x: {{ note }}', nestedText)).toBe('x: see web');
  });

  it('keeps a variable-produced string as is when it is the whole value', () => {
    const nestedText = context({ note: '{{ request.object.metadata.name }}' });
    expect(substituteVariables('{{ note }}', nestedText)).toBe('{{ request.object.metadata.name }}');
  });

  it('types the last variable when the others vanish (Kyverno re-scan quirk)', () => {
    const empty = context({ blank: '' });
    expect(substituteVariables('{{ blank }}{{ request.object.spec.replicas }}', empty)).toBe(3);
    expect(substituteVariables('{{ request.object.spec.replicas }}{{ blank }}', empty)).toBe('3');
  });

  it('leaves strings with unmatched braces alone', () => {
    expect(substituteVariables('{{ not closed', ctx)).toBe('{{ not closed');
    expect(substituteVariables('a } b {', ctx)).toBe('a } b {');
  });
});

describe('substituteVariables: nesting', () => {
  const ctx = context({ key: 'app', index: 0, names: { web: 'W' } });

  it('resolves inner variables first', () => {
    expect(substituteVariables('{{ request.object.metadata.labels.{{ key }} }}', ctx)).toBe('nginx');
    expect(substituteVariables('{{ names.{{ request.object.metadata.name }} }}', ctx)).toBe('W');
  });

  it('inserts non-string inner values as JSON text', () => {
    expect(substituteVariables('{{ request.object.spec.containers[{{ index }}].name }}', ctx)).toBe('c1');
  });

  it('handles nested variables inside quoted JMESPath arguments', () => {
    expect(substituteVariables("{{ contains('{{ request.object.metadata.name }}', 'we') }}", ctx)).toBe(true);
  });

  it('reports the inner variable when it fails', () => {
    const error = failure(() => substituteVariables('{{ a.{{ missing }} }}', ctx, { path: '/x' }));
    expect(error.message).toBe(
      'failed to resolve missing at path /x: JMESPath query failed: Unknown key "missing" in path',
    );
  });
});

describe('substituteVariables: escaping', () => {
  const ctx = context({ key: 'app' });

  it('keeps escaped variables literal and drops the backslash', () => {
    expect(substituteVariables('\\{{ request.object.metadata.name }}', ctx)).toBe('{{ request.object.metadata.name }}');
    expect(substituteVariables('a \\{{ x }} b {{ request.object.metadata.name }}', ctx)).toBe('a {{ x }} b web');
  });

  it('still substitutes variables nested in an escaped one', () => {
    expect(substituteVariables('\\{{ labels.{{ key }} }}', ctx)).toBe('{{ labels.app }}');
  });

  it('removes only one backslash', () => {
    expect(substituteVariables('\\\\{{ x }}', ctx)).toBe('\\{{ x }}');
  });
});

describe('substituteVariables: keys', () => {
  const ctx = context({ key: 'app', nothing: null, count: 2 });

  it('substitutes variables in object keys', () => {
    expect(substituteVariables({ '{{ key }}': '{{ request.object.metadata.name }}', other: 1 }, ctx)).toEqual({
      app: 'web',
      other: 1,
    });
    expect(substituteVariables({ 'label-{{ key }}': 'x' }, ctx)).toEqual({ 'label-app': 'x' });
  });

  it('keeps the original key when it resolves to null', () => {
    expect(substituteVariables({ '{{ nothing }}': 'x' }, ctx)).toEqual({ '{{ nothing }}': 'x' });
  });

  it('rejects keys that become non-strings', () => {
    expect(failure(() => substituteVariables({ '{{ count }}': 'x' }, ctx)).message).toBe(
      'expected string after substituting variables in key "{{ count }}"',
    );
  });
});

describe('substituteVariables: missing variables', () => {
  const ctx = context();

  it('fails with Kyverno message naming the variable, the path and the missing key', () => {
    const error = failure(() =>
      substituteVariables({ validate: { message: 'x {{ request.object.metadata.annotations.owner }}' } }, ctx),
    );
    expect(error.message).toBe(
      'failed to resolve request.object.metadata.annotations.owner at path /validate/message: JMESPath query failed: Unknown key "annotations" in path',
    );
    expect(error.variable).toBe('request.object.metadata.annotations.owner');
    expect(error.path).toBe('/validate/message');
  });

  it('reports the path of array items and of the option prefix', () => {
    const error = failure(() => substituteVariables(['ok', '{{ nope }}'], ctx, { path: '/spec' }));
    expect(error.message).toBe(
      'failed to resolve nope at path /spec/1: JMESPath query failed: Unknown key "nope" in path',
    );
  });

  it('reports the path with an empty string for a bare value (as in preconditions)', () => {
    expect(failure(() => substituteVariables('{{ nope }}', ctx)).message).toBe(
      'failed to resolve nope at path : JMESPath query failed: Unknown key "nope" in path',
    );
  });

  it('is not an error when a function or default handles the missing key', () => {
    expect(substituteVariables("{{ request.object.metadata.annotations.owner || 'none' }}", ctx)).toBe('none');
  });

  it('reports empty and invalid expressions', () => {
    expect(failure(() => substituteVariables('{{ }}', ctx)).message).toBe(
      'failed to resolve  at path : invalid query (nil)',
    );
    expect(failure(() => substituteVariables('{{ a[ }}', ctx)).message).toMatch(
      /^failed to resolve a\[ at path : incorrect query a\[: /,
    );
  });

  it('reports the first failure in Kyverno order (innermost variables first)', () => {
    const error = failure(() => substituteVariables('{{ x.{{ request.object.kind }} }} {{ second }}', ctx));
    expect(error.variable).toBe('second');
  });

  it('reads unresolvable variables as empty strings in "empty" mode', () => {
    expect(substituteVariables('{{ nope }}', ctx, { missing: 'empty' })).toBe('');
    expect(substituteVariables('a-{{ nope }}-b', ctx, { missing: 'empty' })).toBe('a--b');
    expect(substituteVariables(['{{ request.object.metadata.name }}', '{{ a[ }}'], ctx, { missing: 'empty' })).toEqual([
      'web',
      '',
    ]);
  });
});

describe('substituteVariables: {{@}} and DELETE', () => {
  it('reads the value at the same path of the admitted object', () => {
    const ctx = context();
    const rule = {
      validate: { pattern: { metadata: { name: '{{@}}' }, spec: { containers: [{ image: '{{ @ }}' }] } } },
    };
    expect(substituteVariables(rule, ctx)).toEqual({
      validate: { pattern: { metadata: { name: 'web' }, spec: { containers: [{ image: 'nginx:1.25' }] } } },
    });
  });

  it('skips up to a foreach and prefers the mutate target', () => {
    const ctx = context();
    ctx.setTarget({ metadata: { name: 'target-name' } });
    const rule = { mutate: { foreach: [{ patchStrategicMerge: { metadata: { name: '{{@}}' } } }] } };
    expect(substituteVariables(rule, ctx)).toEqual({
      mutate: { foreach: [{ patchStrategicMerge: { metadata: { name: 'target-name' } } }] },
    });
  });

  it('quotes keys that are not identifiers', () => {
    const ctx = context();
    ctx.add('request.object.metadata.annotations', { 'example.com/owner': 'me' });
    const pattern = { validate: { pattern: { metadata: { annotations: { 'example.com/owner': '{{@}}' } } } } };
    expect(substituteVariables(pattern, ctx)).toEqual({
      validate: { pattern: { metadata: { annotations: { 'example.com/owner': 'me' } } } },
    });
  });

  it('reads request.oldObject when the operation is DELETE', () => {
    const ctx = new EvaluationContext();
    ctx.add('request', { operation: 'DELETE', object: null, oldObject: pod });
    expect(substituteVariables('{{ request.object.metadata.name }}', ctx)).toBe('web');
    expect(failure(() => substituteVariables('{{ request.object.nope }}', ctx)).variable).toBe(
      'request.oldObject.nope',
    );
  });
});

import { describe, expect, it } from 'vitest';
import type { KubeObject, SpanAttributes, SpanHandle, Tracing } from '@edict/foundation';
import type { Policy, Rule } from '../policy/types';
import { Engine } from './engine';

/** Records each span with its parent, as a tracer keeping the current span would. */
function recording(): Tracing & { spans: Array<{ name: string; parent?: string; attributes: SpanAttributes }> } {
  const spans: Array<{ name: string; parent?: string; attributes: SpanAttributes }> = [];
  const stack: string[] = [];
  const handle: SpanHandle = { setAttributes: () => undefined };
  return {
    enabled: true,
    spans,
    span<T>(name: string, attributes: SpanAttributes, run: (span: SpanHandle) => T): T {
      spans.push({ name, attributes, ...(stack.length > 0 ? { parent: stack[stack.length - 1] } : {}) });
      stack.push(name);
      const result = run(handle);
      if (result instanceof Promise) return result.finally(() => stack.pop()) as T;
      stack.pop();
      return result;
    },
    inSpan: () => stack.length > 0,
    bind: (run) => run,
  };
}

const rule = (name: string, label: string): Rule => ({
  name,
  match: { any: [{ resources: { kinds: ['Pod'] } }] },
  validate: { message: `${label} is required`, pattern: { metadata: { labels: { [label]: '?*' } } } },
});

const policy: Policy = {
  apiVersion: 'kyverno.io/v1',
  kind: 'ClusterPolicy',
  metadata: { name: 'labels' },
  spec: {
    validationFailureAction: 'Enforce',
    rules: [
      rule('team', 'team'),
      rule('app', 'app'),
      {
        name: 'configmaps-only',
        match: { any: [{ resources: { kinds: ['ConfigMap'] } }] },
        validate: { message: 'x', pattern: { data: { x: '?*' } } },
      },
    ],
  },
};

const pod: KubeObject = { apiVersion: 'v1', kind: 'Pod', metadata: { name: 'a', namespace: 'shop' }, spec: {} };

describe('engine spans (Kyverno: POLICY per policy evaluated, RULE per rule run)', () => {
  it('one POLICY span with the policy attributes, a RULE span under it per matched rule', async () => {
    const tracing = recording();
    const engine = new Engine({ tracing });
    await engine.validate(engine.compile(policy), { operation: 'CREATE', resource: pod });
    expect(tracing.spans.map(({ name, parent }) => [name, parent])).toEqual([
      ['POLICY /labels', undefined],
      ['RULE team', 'POLICY /labels'],
      ['RULE app', 'POLICY /labels'],
    ]);
    expect(tracing.spans[0]!.attributes).toEqual({
      'kyverno.policy.name': 'labels',
      'kyverno.policy.namespace': '',
      'kyverno.policy.kind': 'ClusterPolicy',
      'kyverno.policy.group': 'kyverno.io',
      'kyverno.policy.version': 'v1',
    });
    expect(tracing.spans[1]!.attributes).toEqual({ 'kyverno.rule.name': 'team' });
  });

  it('a disabled tracing is never called', async () => {
    const tracing = recording();
    const engine = new Engine({ tracing: { ...tracing, enabled: false } });
    const response = await engine.validate(engine.compile(policy), { operation: 'CREATE', resource: pod });
    expect(response.rules).toHaveLength(2);
    expect(tracing.spans).toEqual([]);
  });
});

import { describe, expect, it } from 'vitest';
import type { KubeObject } from '@edict/foundation';
import type { Operation } from '../core/types';
import type { ContextLoaders } from '../core/loaders';
import type { Rule } from '../policy/types';
import { EvaluationContext } from '../variables';
import { validateResource } from './validate-resource';
import type { RuleRun } from './rule-run';

const service: KubeObject = { apiVersion: 'v1', kind: 'Service', metadata: { name: 'web' }, spec: { ports: [] } };

function run(validate: Rule['validate'], operation: Operation = 'CREATE'): RuleRun {
  const rule = { name: 'r', match: { any: [{ resources: { kinds: ['Service'] } }] }, validate } as Rule;
  const request = { resource: service, operation };
  return { rule, ctx: EvaluationContext.forRequest(request), request, resource: service, context: {} };
}

describe('validateResource: rule types with their own handlers or none', () => {
  const keys = { attestors: [{ entries: [{ keys: { publicKeys: '-----BEGIN PUBLIC KEY-----\n...' } }] }] };

  it('hands validate.manifests to the manifest handler (an unsigned resource fails)', async () => {
    const response = await validateResource(run({ manifests: keys }));
    expect(response?.status).toBe('fail');
    expect(response?.message).toBe(
      'manifest verification failed; verifiedCount 0; requiredCount 1; message ' +
        '.attestors[0].entries[0].keys: YAML manifest not found for this resource: message not found',
    );
  });

  it('names validate.assert too', async () => {
    const assert = { assert: { object: { spec: {} } } } as unknown as Rule['validate'];
    const response = await validateResource(run(assert));
    expect(response?.status).toBe('error');
    expect(response?.message).toBe('assertion trees (validate.assert) is not supported by this engine');
  });

  it('produces no response on DELETE, like the Kyverno handlers', async () => {
    expect(await validateResource(run({ manifests: keys }, 'DELETE'))).toBeUndefined();
  });

  it('evaluates a supported body that sits beside an unsupported one', async () => {
    const both = { assert: { object: {} }, pattern: { metadata: { name: 'web' } } } as unknown as Rule['validate'];
    const response = await validateResource(run(both));
    expect(response?.status).toBe('pass');
  });

  it('prefers manifests over a pattern beside it, as Kyverno picks its handler', async () => {
    const response = await validateResource(run({ manifests: keys, pattern: { metadata: { name: 'web' } } }));
    expect(response?.message).toContain('message not found');
  });

  it('keeps a rule with nothing to evaluate silent', async () => {
    expect(await validateResource(run({ message: 'only a message' }))).toBeUndefined();
  });
});

describe('validateResource: anyPattern failure message', () => {
  it('shows the rule message with its variables substituted', async () => {
    const ruleRun = run({
      message: 'the name must be {{ allowed }}',
      anyPattern: [{ metadata: { name: '{{ allowed }}' } }, { spec: { type: 'NodePort' } }],
    });
    ruleRun.ctx.add('allowed', '80 | 443');
    const response = await validateResource(ruleRun);
    expect(response?.status).toBe('fail');
    expect(response?.message).toBe(
      'validation error: the name must be 80 | 443. rule r[0] failed at path /metadata/name/ ' +
        'rule r[1] failed at path /spec/type/',
    );
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

describe('validateResource: synchronous unless something waits', () => {
  const pods = {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: { name: 'p' },
    spec: { containers: [{ name: 'a' }, { name: 'b' }] },
  };

  function podRun(validate: Rule['validate'], context: RuleRun['context'] = {}): RuleRun {
    const rule = { name: 'r', match: { any: [{ resources: { kinds: ['Pod'] } }] }, validate } as Rule;
    const request = { resource: pods, operation: 'CREATE' as const };
    return { rule, ctx: EvaluationContext.forRequest(request), request, resource: pods, context };
  }

  it('answers a foreach deny over plain data at once, not as a promise', () => {
    const response = validateResource(
      podRun({
        foreach: [
          {
            list: 'request.object.spec.containers',
            deny: { conditions: { all: [{ key: '{{ element.name }}', operator: 'Equals', value: 'b' }] } },
          },
        ],
      }),
    );
    expect(response).not.toBeInstanceOf(Promise);
    expect((response as Awaited<typeof response>)?.message).toBe('validation failure: validation error: rule r failed');
  });

  it('waits for a context entry read from outside inside a foreach, then goes on with the next elements', async () => {
    const ruleRun = podRun(
      {
        foreach: [
          {
            list: 'request.object.spec.containers',
            context: [{ name: 'cm', configMap: { name: 'settings', namespace: 'default' } }],
            deny: {
              conditions: { all: [{ key: '{{ element.name }}', operator: 'Equals', value: '{{ cm.data.banned }}' }] },
            },
          },
        ],
      },
      { loaders: slowSettings },
    );
    const pending = validateResource(ruleRun);
    expect(pending).toBeInstanceOf(Promise);
    expect((await pending)?.status).toBe('fail');
    // The loop's layer of the context is gone once it is done.
    expect(() => ruleRun.ctx.query('element')).toThrow('Unknown key "element"');
  });
});

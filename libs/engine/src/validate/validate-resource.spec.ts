import { describe, expect, it } from 'vitest';
import type { KubeObject } from '../json';
import type { Operation } from '../core/types';
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

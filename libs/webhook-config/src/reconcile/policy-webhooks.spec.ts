import { describe, expect, it } from 'vitest';
import { resolveWebhookOptions } from '../webhooks.options';
import type { DiscoverySource } from '@edict/kube';
import { labelRule, policyOf } from '@edict/policy/testing';
import { cachedPolicyOf, staticResolver } from '../testing';
import { PolicyWebhooks } from './policy-webhooks';

describe('PolicyWebhooks', () => {
  it('reads discovery while no policy exists, so the first policy does not wait on it', async () => {
    const asked: (readonly string[] | undefined)[] = [];
    const discovery: DiscoverySource = {
      resolver: (kinds) => {
        asked.push(kinds);
        return Promise.resolve(() => []);
      },
      invalidate: () => undefined,
    };
    const none = { policies: () => [], hasSynced: () => true, onChange: () => () => undefined };
    const desired = new PolicyWebhooks(resolveWebhookOptions(), none, discovery);
    const built = await desired.build('ca');
    expect(built.complete).toBe(true);
    expect(asked).toEqual([undefined]);
  });

  it('gives no rules to a ClusterPolicy the API server enforces through its generated VAP, still published', async () => {
    const discovery: DiscoverySource = {
      resolver: () => Promise.resolve(staticResolver()),
      invalidate: () => undefined,
    };
    const withStatus = (name: string, kinds: string[], generated: boolean) =>
      cachedPolicyOf({
        ...policyOf(name, [labelRule('team', kinds)]),
        status: { validatingadmissionpolicy: { generated, message: '' } },
      } as Parameters<typeof cachedPolicyOf>[0]);
    const cached = [withStatus('pods', ['Pod'], false), withStatus('maps', ['ConfigMap'], true)];
    const source = { policies: () => cached, hasSynced: () => true, onChange: () => () => undefined };
    const built = await new PolicyWebhooks(resolveWebhookOptions(), source, discovery).build('ca');
    const resources = JSON.stringify(built.validating);
    expect(resources).toContain('"pods"');
    expect(resources).not.toContain('"configmaps"');
    expect([...(built.publication?.policies.keys() ?? [])].sort()).toEqual(['maps', 'pods']);
  });
});

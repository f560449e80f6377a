import { describe, expect, it } from 'vitest';
import { resolveWebhookOptions } from '../webhooks.options';
import type { DiscoverySource } from '@edict/kube';
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
});

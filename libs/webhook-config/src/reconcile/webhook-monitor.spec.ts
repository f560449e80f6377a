import { describe, expect, it } from 'vitest';
import { HEARTBEAT_ANNOTATION } from '../configurations/names';
import { resolveWebhookOptions } from '../webhooks.options';
import { ALWAYS_LEADER, NEVER_LEADER, type LeaderGate } from '@edict/leader';
import type { WebhookConfigStore } from './ports';
import { WebhookMonitor } from './webhook-monitor';
import type { ReconcileOutcome, WebhookReconciler } from './webhook-reconciler';

const DONE: ReconcileOutcome = {
  status: 'done',
  complete: true,
  created: [],
  updated: [],
  unchanged: ['edict-resource-validating-webhook-cfg'],
  unresolved: [],
};

function setup(reconcile: () => Promise<ReconcileOutcome>, gate: LeaderGate) {
  const stamped: Array<{ name: string; annotations: Record<string, string> }> = [];
  const store = {
    annotate: async (_kind: string, name: string, annotations: Record<string, string>) => {
      stamped.push({ name, annotations });
    },
  } as unknown as WebhookConfigStore;
  const owned = { ValidatingWebhookConfiguration: ['edict-resource-validating-webhook-cfg'] };
  const reconciler = { reconcile, wanted: { owned } } as unknown as WebhookReconciler;
  return { monitor: new WebhookMonitor(resolveWebhookOptions(), reconciler, store, gate), stamped };
}

describe('WebhookMonitor', () => {
  it('reconciles, then stamps the heartbeat on the resource validating configuration', async () => {
    const { monitor, stamped } = setup(async () => DONE, ALWAYS_LEADER);
    const outcome = await monitor.check();
    expect(outcome).toMatchObject({ status: 'ok', reconcile: DONE });
    expect(stamped).toHaveLength(1);
    expect(stamped[0]!.name).toBe('edict-resource-validating-webhook-cfg');
    expect(stamped[0]!.annotations[HEARTBEAT_ANNOTATION]).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/);
    expect(monitor.lastSuccess()).toBeInstanceOf(Date);
  });

  it('does nothing on a follower', async () => {
    let reconciled = false;
    const { monitor, stamped } = setup(async () => ((reconciled = true), DONE), NEVER_LEADER);
    expect(await monitor.check()).toEqual({ status: 'skipped', reason: 'not-leader' });
    expect(reconciled).toBe(false);
    expect(stamped).toEqual([]);
    expect(monitor.lastSuccess()).toBeUndefined();
  });

  it('does not stamp when leadership ended during the pass', async () => {
    let leading = true;
    const { monitor, stamped } = setup(
      async () => {
        leading = false; // lost while reconciling: the reconciler stopped writing
        return DONE;
      },
      { isLeader: () => leading },
    );
    expect(await monitor.check()).toEqual({ status: 'skipped', reason: 'not-leader' });
    expect(stamped).toEqual([]);
  });

  it('never throws: a failed pass is kept for lastError()', async () => {
    const { monitor } = setup(async () => {
      throw new Error('apiserver down');
    }, ALWAYS_LEADER);
    expect(await monitor.check()).toEqual({ status: 'skipped', reason: 'error: apiserver down' });
    expect(monitor.lastError()).toBe('apiserver down');
  });
});

/**
 * WebhookMonitor: the periodic safety net. The app's scheduler calls `check()` every
 * WEBHOOK_MONITOR_INTERVAL_MS; on the leader it runs a full reconcile (which recreates deleted
 * configurations and repairs edited ones) and stamps a heartbeat annotation on the first validating
 * configuration it owns (the admission controller's resource validating one), the way Kyverno's watchdog stamps `kyverno.io/last-request-time`.
 * `lastSuccess()` lets readiness checks see that the controller is alive.
 */
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import type { ResolvedWebhookOptions } from '../webhooks.options';
import { WEBHOOK_CONFIG_STORE, WEBHOOK_LEADER_GATE, WEBHOOK_OPTIONS } from '../webhooks.constants';
import { ALWAYS_LEADER, type LeaderGate } from '@edict/leader';
import type { WebhookConfigStore } from './ports';
import { WebhookReconciler, type ReconcileOutcome } from './webhook-reconciler';
import { errorMessage } from '@edict/foundation';

export type MonitorOutcome =
  | { readonly status: 'skipped'; readonly reason: string }
  | { readonly status: 'ok'; readonly at: Date; readonly reconcile: ReconcileOutcome };

@Injectable()
export class WebhookMonitor {
  private readonly logger = new Logger('WebhookMonitor');
  private lastOk?: Date;
  private lastErrorText?: string;

  constructor(
    @Inject(WEBHOOK_OPTIONS) private readonly options: ResolvedWebhookOptions,
    private readonly reconciler: WebhookReconciler,
    @Inject(WEBHOOK_CONFIG_STORE) private readonly store: WebhookConfigStore,
    @Optional() @Inject(WEBHOOK_LEADER_GATE) private readonly leader: LeaderGate = ALWAYS_LEADER,
  ) {}

  /** One check; never throws (errors are logged and kept for `lastError()`). */
  async check(): Promise<MonitorOutcome> {
    if (!this.leader.isLeader()) return { status: 'skipped', reason: 'not-leader' };
    try {
      const reconcile = await this.reconciler.reconcile();
      if (reconcile.status === 'skipped') return { status: 'skipped', reason: reconcile.reason };
      // Leadership may have ended during the pass (the reconciler then stops writing): so do we.
      if (!this.leader.isLeader()) return { status: 'skipped', reason: 'not-leader' };
      const at = new Date();
      const [stamped] = this.reconciler.wanted.owned.ValidatingWebhookConfiguration;
      if (stamped)
        await this.store.annotate('ValidatingWebhookConfiguration', stamped, {
          [this.options.names.heartbeatAnnotation]: at.toISOString().replace(/\.\d{3}Z$/, 'Z'),
        });
      this.lastOk = at;
      this.lastErrorText = undefined;
      return { status: 'ok', at, reconcile };
    } catch (error) {
      this.lastErrorText = errorMessage(error);
      this.logger.warn(`webhook check failed: ${this.lastErrorText}`);
      return { status: 'skipped', reason: `error: ${this.lastErrorText}` };
    }
  }

  /** When the last check succeeded (undefined: never, or not the leader). */
  lastSuccess(): Date | undefined {
    return this.lastOk;
  }

  lastError(): string | undefined {
    return this.lastErrorText;
  }
}

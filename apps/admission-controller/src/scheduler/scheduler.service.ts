/**
 * Every periodic job of the controller, in one place. Now: the certificate check (the leader renews,
 * every replica re-reads the material in case a Secret event was missed) and the webhook
 * configuration monitor (leader only: recreates missing configurations, stamps the heartbeat).
 */
import {
  Inject,
  Injectable,
  Logger,
  type BeforeApplicationShutdown,
  type OnApplicationBootstrap,
} from '@nestjs/common';
import { SchedulerRegistry } from '@nestjs/schedule';
import { CertLifecycle } from '@edict/cert';
import { WebhookMonitor } from '@edict/webhooks';
import { CONTROLLER_CONFIG } from '../config/tokens';
import type { ControllerConfig } from '../config/controller-config';

export const CERT_CHECK_JOB = 'cert-check';
export const WEBHOOK_MONITOR_JOB = 'webhook-monitor';

@Injectable()
export class SchedulerService implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Scheduler');

  constructor(
    @Inject(CONTROLLER_CONFIG) private readonly settings: ControllerConfig,
    private readonly registry: SchedulerRegistry,
    private readonly certs: CertLifecycle,
    private readonly webhooks: WebhookMonitor,
  ) {}

  onApplicationBootstrap(): void {
    this.every(CERT_CHECK_JOB, this.settings.certCheckIntervalMs, () => this.certs.sync());
    // Recreates missing or edited webhook configurations; the monitor skips unless this replica leads.
    this.every(WEBHOOK_MONITOR_JOB, this.settings.webhookMonitorIntervalMs, async () => {
      await this.webhooks.check();
    });
  }

  beforeApplicationShutdown(): void {
    for (const name of this.registry.getIntervals()) this.registry.deleteInterval(name);
  }

  /** Runs `job` every `ms`; a run still going when the next is due is not overlapped. */
  private every(name: string, ms: number, job: () => Promise<void>): void {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      job()
        .catch((error: Error) => this.logger.error(`${name} failed: ${error.message}`))
        .finally(() => (running = false));
    }, ms);
    timer.unref();
    this.registry.addInterval(name, timer);
  }
}

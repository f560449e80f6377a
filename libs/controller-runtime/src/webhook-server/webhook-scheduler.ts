/**
 * The periodic jobs of a webhook server, in one place: the certificate check (the leader renews,
 * every replica re-reads the material in case a Secret event was missed) and the webhook
 * configuration monitor (leader only: recreates missing or edited configurations).
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
import { WebhookMonitor } from '@edict/webhook-config';
import type { WebhookServerConfig } from '../config/webhook-server-config';

/** The app's WebhookServerConfig (each app provides it from its own config). */
export const WEBHOOK_SERVER_CONFIG = Symbol('WEBHOOK_SERVER_CONFIG');

export const CERT_CHECK_JOB = 'cert-check';
export const WEBHOOK_MONITOR_JOB = 'webhook-monitor';

@Injectable()
export class WebhookScheduler implements OnApplicationBootstrap, BeforeApplicationShutdown {
  private readonly logger = new Logger('Scheduler');

  constructor(
    @Inject(WEBHOOK_SERVER_CONFIG) private readonly settings: WebhookServerConfig,
    private readonly registry: SchedulerRegistry,
    private readonly certs: CertLifecycle,
    private readonly webhooks: WebhookMonitor,
  ) {}

  onApplicationBootstrap(): void {
    this.every(CERT_CHECK_JOB, this.settings.certCheckIntervalMs, () => this.certs.sync());
    // The monitor skips unless this replica leads.
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

/**
 * The ConfigMap's webhook keys for the cleanup controller's configurations: Kyverno's cleanup
 * controller loads the same ConfigMap and its generic webhook controllers write its
 * `webhookLabels`, `webhookAnnotations` and `matchConditions` on the cleanup and TTL webhooks
 * (rebuilt when it changes). Parsed as the admission controller parses it: a bad value is logged and
 * keeps its default, a deleted ConfigMap means the defaults again.
 */
import { Inject, Injectable, Logger } from '@nestjs/common';
import { defaultAdmissionConfig, parseAdmissionConfig } from '@edict/admission';
import { InformerFactory, InformerService } from '@edict/kube';
import type { KubeObject } from '@edict/foundation';
import type { WebhookSettings, WebhookSettingsSource } from '@edict/webhook-config';
import type { CleanupConfig } from '../config/cleanup-config';
import { CLEANUP_CONFIG } from '../config/tokens';

type ConfigMap = KubeObject & { data?: Record<string, string> };

@Injectable()
export class CleanupWebhookSettings extends InformerService implements WebhookSettingsSource {
  private readonly logger = new Logger('CleanupWebhookSettings');
  private settings: WebhookSettings;
  private readonly listeners = new Set<() => void>();

  constructor(
    @Inject(CLEANUP_CONFIG) private readonly config: CleanupConfig,
    informers: InformerFactory,
  ) {
    super(informers, config.watchTimeoutSeconds);
    this.settings = webhookSettingsOf(defaultAdmissionConfig({ controllerNamespace: config.namespace }));
    const informer = this.watch<ConfigMap>({
      apiVersion: 'v1',
      kind: 'ConfigMap',
      namespace: config.namespace,
      fieldSelector: `metadata.name=${config.configMapName}`,
    });
    const apply = (configMap: ConfigMap | undefined) => this.apply(configMap);
    informer.on('add', apply);
    informer.on('update', apply);
    informer.on('delete', () => apply(undefined));
  }

  current(): WebhookSettings {
    return this.settings;
  }

  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private apply(configMap: ConfigMap | undefined): void {
    const { config, problems } = parseAdmissionConfig(configMap?.data, { controllerNamespace: this.config.namespace });
    for (const problem of problems) this.logger.warn(`ConfigMap ${this.config.configMapName}: ${problem.message}`);
    this.settings = webhookSettingsOf(config);
    for (const listener of this.listeners) listener();
  }
}

function webhookSettingsOf(config: WebhookSettings): WebhookSettings {
  const { webhook, matchConditions, webhookAnnotations, webhookLabels } = config;
  return Object.freeze({ webhook, matchConditions, webhookAnnotations, webhookLabels });
}

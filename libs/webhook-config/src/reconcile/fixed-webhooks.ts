/**
 * Webhook configurations that depend only on the CA bundle and, when given, the ConfigMap's webhook
 * keys (the cleanup controller's: Kyverno's generic webhook controllers take `webhookLabels`,
 * `webhookAnnotations` and `matchConditions` from it): always complete, rebuilt when the ConfigMap
 * changes (the reconciler also follows the CA and leadership).
 */
import type { WebhookConfigurations } from '../configurations/types';
import type { DesiredWebhooks, DesiredWebhookSet, WebhookSettings, WebhookSettingsSource } from './ports';

export class FixedWebhooks implements DesiredWebhooks {
  readonly owned;
  readonly removesLabelled = false;

  constructor(
    private readonly configurations: (caBundlePem: string, settings?: WebhookSettings) => WebhookConfigurations,
    private readonly settings?: WebhookSettingsSource | null,
  ) {
    const probe = configurations('');
    this.owned = {
      ValidatingWebhookConfiguration: probe.validating.map((c) => c.metadata.name),
      MutatingWebhookConfiguration: probe.mutating.map((c) => c.metadata.name),
    };
  }

  onChange(listener: (now: boolean) => void): () => void {
    return this.settings?.onChange(() => listener(false)) ?? (() => undefined);
  }

  async build(caBundlePem: string): Promise<DesiredWebhookSet> {
    return { ...this.configurations(caBundlePem, this.settings?.current()), complete: true, unresolved: [] };
  }
}

/**
 * Webhook configurations that depend on nothing but the CA bundle (the cleanup controller's): always
 * complete, never changing on their own (the reconciler still follows the CA and leadership).
 */
import type { WebhookConfigurations } from '../configurations/types';
import type { DesiredWebhooks, DesiredWebhookSet } from './ports';

export class FixedWebhooks implements DesiredWebhooks {
  readonly owned;
  readonly removesLabelled = false;

  constructor(private readonly configurations: (caBundlePem: string) => WebhookConfigurations) {
    const probe = configurations('');
    this.owned = {
      ValidatingWebhookConfiguration: probe.validating.map((c) => c.metadata.name),
      MutatingWebhookConfiguration: probe.mutating.map((c) => c.metadata.name),
    };
  }

  onChange(): () => void {
    return () => undefined;
  }

  async build(caBundlePem: string): Promise<DesiredWebhookSet> {
    return { ...this.configurations(caBundlePem), complete: true, unresolved: [] };
  }
}

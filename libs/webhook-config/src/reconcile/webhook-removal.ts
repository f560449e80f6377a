/**
 * Removing the configurations when the controller goes away for good, so that a cluster without
 * Edict is not left with webhooks that fail closed. Like Kyverno, the app decides on graceful
 * shutdown: the configurations go only when the Deployment is scaled to zero or being deleted
 * (a rolling update or a single pod restart keeps them). Idempotent.
 */
import { Inject, Injectable, Logger, Optional } from '@nestjs/common';
import { isNotFound } from '@edict/kube';
import type { WebhookConfigurationKind } from '../configurations/types';
import type { ResolvedWebhookOptions } from '../webhooks.options';
import { WEBHOOK_CONFIG_STORE, WEBHOOK_KUBE_RESOURCES, WEBHOOK_OPTIONS } from '../webhooks.constants';
import type { WebhookConfigStore } from './ports';
import { WebhookReconciler } from './webhook-reconciler';
import { errorMessage } from '@edict/foundation';

/** Reads one object (KubeResources fits). */
export interface DeploymentReader {
  find(ref: {
    apiVersion: string;
    kind: string;
    namespace?: string;
    name: string;
  }): Promise<Record<string, unknown> | undefined>;
}

const KINDS: readonly WebhookConfigurationKind[] = ['ValidatingWebhookConfiguration', 'MutatingWebhookConfiguration'];

@Injectable()
export class WebhookRemoval {
  private readonly logger = new Logger('WebhookRemoval');

  constructor(
    @Inject(WEBHOOK_OPTIONS) private readonly options: ResolvedWebhookOptions,
    private readonly reconciler: WebhookReconciler,
    @Inject(WEBHOOK_CONFIG_STORE) private readonly store: WebhookConfigStore,
    @Optional() @Inject(WEBHOOK_KUBE_RESOURCES) private readonly deployments?: DeploymentReader,
  ) {}

  /**
   * True when the Deployment (`deploymentName` in the own namespace) is gone, being deleted or
   * has `spec.replicas: 0`. False without a configured Deployment, or when it cannot be read.
   */
  async isScaledToZero(): Promise<boolean> {
    const name = this.options.deploymentName;
    if (!name || !this.deployments) return false;
    try {
      const deployment = await this.deployments.find({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        namespace: this.options.namespace,
        name,
      });
      if (!deployment) return true;
      const metadata = (deployment.metadata ?? {}) as Record<string, unknown>;
      if (metadata.deletionTimestamp) return true;
      const spec = (deployment.spec ?? {}) as Record<string, unknown>;
      return spec.replicas === 0;
    } catch (error) {
      if (isNotFound(error)) return true;
      this.logger.warn(`cannot read Deployment ${name}: ${errorMessage(error)}`);
      return false;
    }
  }

  /**
   * Stops the reconciler, then deletes every configuration it owns (and, for the admission
   * controller, whatever carries the managed-by label). Returns what it deleted.
   */
  async removeAll(): Promise<string[]> {
    this.reconciler.stop();
    const names = this.options.names;
    const { owned: known, removesLabelled } = this.reconciler.wanted;
    const deleted: string[] = [];
    for (const kind of KINDS) {
      const labelled = removesLabelled
        ? await this.store.listNames(kind, `${names.managedByLabel}=${names.managedBy}`)
        : [];
      for (const name of new Set([...known[kind], ...labelled])) {
        if (await this.store.delete(kind, name)) deleted.push(`${kind}/${name}`);
      }
    }
    if (deleted.length > 0) this.logger.log(`removed ${deleted.join(', ')}`);
    return deleted;
  }

  /** On graceful shutdown: removes everything only when the controller is scaled to zero. */
  async removeIfScaledToZero(): Promise<boolean> {
    if (!(await this.isScaledToZero())) return false;
    await this.removeAll();
    return true;
  }
}

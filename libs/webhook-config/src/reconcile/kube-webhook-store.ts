/** WebhookConfigStore over `@edict/kube`'s KubeResources. */
import { isNotFound, type KubeResources } from '@edict/kube';
import type { WebhookConfiguration, WebhookConfigurationKind } from '../configurations/types';
import type { WebhookConfigStore } from './ports';

const API_VERSION = 'admissionregistration.k8s.io/v1';

export class KubeWebhookConfigStore implements WebhookConfigStore {
  constructor(private readonly resources: KubeResources) {}

  async get<T extends WebhookConfiguration>(kind: T['kind'], name: string): Promise<T | undefined> {
    return this.resources.find<T>({ apiVersion: API_VERSION, kind, name });
  }

  async create<T extends WebhookConfiguration>(object: T): Promise<T> {
    return this.resources.create(object);
  }

  async replace<T extends WebhookConfiguration>(object: T): Promise<T> {
    return this.resources.replace(object);
  }

  async annotate(kind: WebhookConfigurationKind, name: string, annotations: Record<string, string>): Promise<void> {
    await this.resources.patch({ apiVersion: API_VERSION, kind, name }, 'merge', { metadata: { annotations } });
  }

  async listNames(kind: WebhookConfigurationKind, labelSelector: string): Promise<string[]> {
    const page = await this.resources.list({ apiVersion: API_VERSION, kind }, { labelSelector });
    return page.items.map((item) => item.metadata?.name ?? '').filter((name) => name !== '');
  }

  async delete(kind: WebhookConfigurationKind, name: string): Promise<boolean> {
    try {
      await this.resources.delete({ apiVersion: API_VERSION, kind, name });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw error;
    }
  }
}

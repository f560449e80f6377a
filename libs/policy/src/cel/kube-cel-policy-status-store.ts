/** CelPolicyStatusStore over `@edict/kube`'s KubeResources, through policies.kyverno.io/v1. */
import type { KubeObject } from '@edict/foundation';
import type { KubeResources } from '@edict/kube';
import type { CelPolicyStatusStore } from './cel-policy-status-writer';
import type { CelPolicyEntry } from './cel-policy-store';

const API_VERSION = 'policies.kyverno.io/v1';

export class KubeCelPolicyStatusStore implements CelPolicyStatusStore {
  constructor(private readonly resources: KubeResources) {}

  async get(kind: CelPolicyEntry['kind'], name: string, namespace?: string): Promise<KubeObject | undefined> {
    const found = await this.resources.find<KubeObject>({
      apiVersion: API_VERSION,
      kind,
      name,
      ...(namespace ? { namespace } : {}),
    });
    return found ? { ...found, apiVersion: API_VERSION, kind } : undefined;
  }

  replaceStatus(object: KubeObject): Promise<KubeObject> {
    return this.resources.replace({ ...object, apiVersion: API_VERSION }, { subresource: 'status' });
  }
}

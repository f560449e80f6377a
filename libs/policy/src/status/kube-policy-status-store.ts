/** PolicyStatusStore over `@edict/kube`'s KubeResources, through `kyverno.io/v1` (the storage version). */
import type { Policy } from '@edict/engine';
import type { KubeResources } from '@edict/kube';
import type { PolicyStatusStore } from './ports';

const API_VERSION = 'kyverno.io/v1';

export class KubePolicyStatusStore implements PolicyStatusStore {
  constructor(private readonly resources: KubeResources) {}

  async get(kind: Policy['kind'], name: string, namespace?: string): Promise<Policy | undefined> {
    const found = await this.resources.find<Policy>({
      apiVersion: API_VERSION,
      kind,
      name,
      ...(namespace ? { namespace } : {}),
    });
    // A GET names its kind; keep the object's own fields otherwise.
    return found ? { ...found, apiVersion: API_VERSION, kind } : undefined;
  }

  async replaceStatus(policy: Policy): Promise<Policy> {
    return this.resources.replace({ ...policy, apiVersion: API_VERSION }, { subresource: 'status' });
  }
}

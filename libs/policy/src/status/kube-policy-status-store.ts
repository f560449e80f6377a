/** PolicyStatusStore over `@edict/kube`'s KubeResources, through `kyverno.io/v1` (the storage version). */
import type { Policy } from '@edict/engine';
import type { KubeResources } from '@edict/kube';
import type { KubeObject } from '@edict/foundation';
import type { PolicyStatusStore } from './ports';

const API_VERSION = 'kyverno.io/v1';

export class KubePolicyStatusStore implements PolicyStatusStore {
  constructor(private readonly resources: KubeResources) {}

  async get(kind: Policy['kind'], name: string, namespace?: string): Promise<Policy | undefined> {
    const found = await this.resources.find<KubeObject>({
      apiVersion: API_VERSION,
      kind,
      name,
      ...(namespace ? { namespace } : {}),
    });
    // A GET names its kind; keep the object's own fields otherwise.
    return found ? ({ ...found, apiVersion: API_VERSION, kind } as unknown as Policy) : undefined;
  }

  async replaceStatus(policy: Policy): Promise<Policy> {
    const object = { ...policy, apiVersion: API_VERSION } as unknown as KubeObject;
    return (await this.resources.replace(object, { subresource: 'status' })) as unknown as Policy;
  }
}

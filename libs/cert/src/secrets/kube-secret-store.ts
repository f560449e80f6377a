/** SecretStore over libs/kube's REST client (Secret data is base64 on the wire). */
import { toKubeApiError, type KubeResources } from '@edict/kube';
import { type ObjectHeader } from '@edict/foundation';
import { SecretConflictError, type SecretStore, type SecretWrite, type StoredSecret } from './secret-store';

interface Secret extends ObjectHeader {
  type?: string;
  data?: Record<string, string>;
  stringData?: Record<string, string>;
}

function statusOf(error: unknown): number | undefined {
  return toKubeApiError(error)?.code;
}

function decode(secret: Secret): StoredSecret {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data ?? {}))
    data[key] = Buffer.from(value, 'base64').toString('utf8');
  for (const [key, value] of Object.entries(secret.stringData ?? {})) data[key] = value;
  return {
    name: secret.metadata?.name ?? '',
    resourceVersion: secret.metadata?.resourceVersion ?? '',
    type: secret.type,
    labels: secret.metadata?.labels ?? {},
    annotations: secret.metadata?.annotations ?? {},
    data,
  };
}

function encode(namespace: string, secret: SecretWrite, resourceVersion?: string): Secret {
  const data: Record<string, string> = {};
  for (const [key, value] of Object.entries(secret.data)) data[key] = Buffer.from(value, 'utf8').toString('base64');
  return {
    apiVersion: 'v1',
    kind: 'Secret',
    metadata: {
      name: secret.name,
      namespace,
      labels: { ...secret.labels },
      annotations: { ...secret.annotations },
      ...(resourceVersion ? { resourceVersion } : {}),
    },
    type: secret.type,
    data,
  };
}

export class KubeSecretStore implements SecretStore {
  constructor(
    private readonly resources: KubeResources,
    private readonly namespace: string,
  ) {}

  async read(name: string): Promise<StoredSecret | undefined> {
    try {
      return decode(
        await this.resources.get<Secret>({ apiVersion: 'v1', kind: 'Secret', namespace: this.namespace, name }),
      );
    } catch (error) {
      if (statusOf(error) === 404) return undefined;
      throw error;
    }
  }

  async create(secret: SecretWrite): Promise<StoredSecret> {
    try {
      return decode(await this.resources.create<Secret>(encode(this.namespace, secret)));
    } catch (error) {
      if (statusOf(error) === 409)
        throw new SecretConflictError(`secret ${this.namespace}/${secret.name} already exists`);
      throw error;
    }
  }

  async replace(secret: SecretWrite, resourceVersion: string): Promise<StoredSecret> {
    try {
      return decode(await this.resources.replace<Secret>(encode(this.namespace, secret, resourceVersion)));
    } catch (error) {
      const status = statusOf(error);
      if (status === 409 || status === 404) {
        throw new SecretConflictError(
          `secret ${this.namespace}/${secret.name} changed since resourceVersion ${resourceVersion}`,
        );
      }
      throw error;
    }
  }
}

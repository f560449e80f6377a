/**
 * ClusterClient over the project's REST client (`@edict/kube` KubeResources), from a kubeconfig.
 * Like chainsaw's own client (controller-runtime's), a namespace on a cluster-scoped object or ref is
 * ignored rather than refused: a test file may carry one, and the API server clears it.
 */
import type { JsonObject } from '@edict/engine';
import { KubeHttpClient, KubeResources, isNotFound, toKubeApiError, type KubeObject } from '@edict/kube';
import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterClient, ObjectRef, PropagationPolicy } from './cluster-client';

export class KubeClusterClient implements ClusterClient {
  constructor(private readonly resources: KubeResources) {}

  static fromKubeconfigFile(path: string): KubeClusterClient {
    const config = new KubeConfig();
    config.loadFromFile(path);
    return new KubeClusterClient(new KubeResources(new KubeHttpClient(config)));
  }

  async isNamespaced(apiVersion: string, kind: string): Promise<boolean> {
    return call(async () => (await this.resources.resource(apiVersion, kind)).namespaced);
  }

  async get(ref: ObjectRef & { name: string }): Promise<JsonObject | undefined> {
    return call(async () => (await this.resources.find<KubeObject>(await this.scoped(ref))) as JsonObject | undefined);
  }

  async list(ref: ObjectRef, options: { labelSelector?: string } = {}): Promise<JsonObject[]> {
    return call(async () => {
      const page = await this.resources.list<KubeObject>(
        await this.scoped({ apiVersion: ref.apiVersion, kind: ref.kind, namespace: ref.namespace }),
        { labelSelector: options.labelSelector || undefined },
      );
      return page.items as JsonObject[];
    });
  }

  async create(object: JsonObject): Promise<JsonObject> {
    return call(async () => (await this.resources.create(await this.scopedObject(object))) as JsonObject);
  }

  async update(object: JsonObject): Promise<JsonObject> {
    return call(async () => (await this.resources.replace(await this.scopedObject(object))) as JsonObject);
  }

  async patch(ref: ObjectRef & { name: string }, mergePatch: JsonObject): Promise<JsonObject> {
    return call(async () => (await this.resources.patch(await this.scoped(ref), 'merge', mergePatch)) as JsonObject);
  }

  async apply(object: JsonObject): Promise<{ object: JsonObject; created: boolean }> {
    const ref = refOf(object);
    const existing = await this.get(ref);
    if (existing === undefined) return { object: await this.create(object), created: true };
    return { object: await this.patch(ref, object), created: false };
  }

  async delete(
    ref: ObjectRef & { name: string },
    options: { propagationPolicy?: PropagationPolicy } = {},
  ): Promise<boolean> {
    try {
      await this.resources.http.json({
        method: 'DELETE',
        path: await this.resources.path(await this.scoped(ref)),
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: options.propagationPolicy ?? 'Background' },
      });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw asClusterError(error);
    }
  }

  /** The ref without its namespace when the kind is cluster-scoped (an unknown kind is left as is). */
  private async scoped<T extends ObjectRef>(ref: T): Promise<T> {
    if (!ref.namespace || (await this.namespacedOrUnknown(ref.apiVersion, ref.kind))) return ref;
    return { ...ref, namespace: undefined };
  }

  private async scopedObject(object: JsonObject): Promise<KubeObject> {
    const kube = object as KubeObject;
    const namespace = kube.metadata?.namespace;
    if (!namespace || (await this.namespacedOrUnknown(kube.apiVersion ?? '', kube.kind ?? ''))) return kube;
    const { namespace: _ignored, ...metadata } = kube.metadata ?? {};
    return { ...kube, metadata };
  }

  private async namespacedOrUnknown(apiVersion: string, kind: string): Promise<boolean> {
    try {
      return (await this.resources.resource(apiVersion, kind)).namespaced;
    } catch {
      return true; // the request itself reports the server's answer
    }
  }
}

function refOf(object: JsonObject): ObjectRef & { name: string } {
  const metadata = (object['metadata'] ?? {}) as { name?: string; namespace?: string };
  return {
    apiVersion: String(object['apiVersion']),
    kind: String(object['kind']),
    name: metadata.name ?? '',
    namespace: metadata.namespace,
  };
}

async function call<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw asClusterError(error);
  }
}

/** The API server's message alone (what `$error` holds), whatever client failed. */
function asClusterError(error: unknown): Error {
  const apiError = toKubeApiError(error);
  if (apiError) return apiError;
  return error instanceof Error ? error : new Error(String(error));
}

/**
 * ClusterClient over the project's REST client (`@edict/kube` KubeResources), from a kubeconfig.
 * Like chainsaw's own client (controller-runtime's), a namespace on a cluster-scoped object or ref is
 * ignored rather than refused: a test file may carry one, and the API server clears it.
 *
 * Every call maps the kind through discovery first, as controller-runtime's REST mapper does: a
 * kind the server does not serve is a NoKindMatchError, so a 404 that reaches `get` is a missing
 * object of a served kind. KubeResources refetches a group's discovery on a miss, so a kind whose
 * CRD a test installed in an earlier step maps on its next use.
 */
import type { JsonObject, KubeObject } from '@edict/foundation';
import {
  KubeApiError,
  KubeHttpClient,
  KubeResources,
  KubeTimeoutError,
  isNotFound,
  toKubeApiError,
  type ApiResourceInfo,
} from '@edict/kube';
import { KubeConfig } from '@kubernetes/client-node';
import type { ClusterClient, ObjectRef, PropagationPolicy } from './cluster-client';
import { NoKindMatchError, TransientClusterError, isTransientAnswer } from './cluster-errors';

export class KubeClusterClient implements ClusterClient {
  constructor(private readonly resources: KubeResources) {}

  static fromKubeconfigFile(path: string): KubeClusterClient {
    const config = new KubeConfig();
    config.loadFromFile(path);
    return new KubeClusterClient(new KubeResources(new KubeHttpClient(config)));
  }

  async isNamespaced(apiVersion: string, kind: string): Promise<boolean> {
    return (await this.mapping(apiVersion, kind)).namespaced;
  }

  async get(ref: ObjectRef & { name: string }): Promise<JsonObject | undefined> {
    const scoped = await this.scoped(ref);
    return call(async () => (await this.resources.find<KubeObject>(scoped)) as JsonObject | undefined);
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

  async delete(
    ref: ObjectRef & { name: string },
    options: { propagationPolicy?: PropagationPolicy } = {},
  ): Promise<boolean> {
    const scoped = await this.scoped(ref);
    try {
      await this.resources.http.json({
        method: 'DELETE',
        path: await this.resources.path(scoped),
        body: { kind: 'DeleteOptions', apiVersion: 'v1', propagationPolicy: options.propagationPolicy ?? 'Background' },
      });
      return true;
    } catch (error) {
      if (isNotFound(error)) return false;
      throw asClusterError(error);
    }
  }

  /**
   * The kind's API resource from discovery. Discovery answering 404 (for the group-version, or no
   * such kind in it) means the server does not serve the kind: NoKindMatchError.
   */
  private async mapping(apiVersion: string, kind: string): Promise<ApiResourceInfo> {
    try {
      return await this.resources.resource(apiVersion, kind);
    } catch (error) {
      if (isNotFound(error)) throw new NoKindMatchError(apiVersion, kind);
      throw asClusterError(error);
    }
  }

  /** The ref, mapped, without its namespace when the kind is cluster-scoped. */
  private async scoped<T extends ObjectRef>(ref: T): Promise<T> {
    const { namespaced } = await this.mapping(ref.apiVersion, ref.kind);
    if (!ref.namespace || namespaced) return ref;
    return { ...ref, namespace: undefined };
  }

  private async scopedObject(object: JsonObject): Promise<KubeObject> {
    const kube = object as KubeObject;
    const { namespaced } = await this.mapping(kube.apiVersion ?? '', kube.kind ?? '');
    if (!kube.metadata?.namespace || namespaced) return kube;
    const { namespace: _ignored, ...metadata } = kube.metadata;
    return { ...kube, metadata };
  }
}

async function call<T>(action: () => Promise<T>): Promise<T> {
  try {
    return await action();
  } catch (error) {
    throw asClusterError(error);
  }
}

/**
 * The API server's message alone (what `$error` holds), whatever client failed; a transient answer
 * (or a request that timed out here) as a TransientClusterError, which writes retry.
 */
function asClusterError(error: unknown): Error {
  if (error instanceof NoKindMatchError || error instanceof TransientClusterError) return error;
  if (error instanceof KubeTimeoutError) return new TransientClusterError(error.message);
  const apiError = toKubeApiError(error);
  if (apiError) return transientOr(apiError);
  return error instanceof Error ? error : new Error(String(error));
}

function transientOr(error: KubeApiError): Error {
  return isTransientAnswer(error.code, error.reason) ? new TransientClusterError(error.message, error.code) : error;
}

/**
 * `resource.Get/List/Post/ToGVR` of Kyverno's CEL policies against the API server, as Kyverno's
 * dynamic client does: the resource is the plural in an apiVersion (found in discovery), a
 * namespace given for a cluster-scoped resource finds nothing (the API server's 404), list items
 * get the list's apiVersion and kind, and every read is bounded in time and size. The policy's
 * namespace confinement is the CEL library's (it never asks for another namespace).
 */
import {
  CelPortError,
  type CelGroupVersionResource,
  type CelPortCall,
  type CelResourcePort,
  type CelResourceTarget,
} from '@edict/cel';
import type { JsonObject } from '@edict/foundation';
import { groupVersionPath, isNotFound, KubeApiError, type ApiResourceInfo, type KubeResources } from '@edict/kube';
import { RESOURCE_READ_TIMEOUT_MS } from './cluster-resource-loader';

/** Objects one list may bring (one page); more is an error asking for a label selector. */
export const MAX_CEL_LISTED_OBJECTS = 500;

export class KubeCelResourcePort implements CelResourcePort {
  constructor(private readonly resources: Pick<KubeResources, 'http' | 'resource' | 'resourceNamed'>) {}

  async get(target: CelResourceTarget & { readonly name: string }, call: CelPortCall): Promise<JsonObject | null> {
    const info = await this.served(target, call);
    if (!fitsScope(info, target.namespace)) return null;
    try {
      return await this.resources.http.json<JsonObject>({
        path: path(target, info, target.name),
        totalTimeoutMs: RESOURCE_READ_TIMEOUT_MS,
        maxResponseBytes: call.maxResponseBytes,
        ...(call.signal ? { signal: call.signal } : {}),
      });
    } catch (error) {
      if (isNotFound(error)) return null;
      throw portError(error);
    }
  }

  async list(
    target: CelResourceTarget & { readonly labels?: Readonly<Record<string, string>> },
    call: CelPortCall,
  ): Promise<JsonObject> {
    const info = await this.served(target, call);
    if (!info.namespaced && target.namespace !== '') throw notFound(target);
    let list: JsonObject;
    try {
      list = await this.resources.http.json<JsonObject>({
        path: path(target, info),
        query: {
          limit: MAX_CEL_LISTED_OBJECTS,
          ...(target.labels ? { labelSelector: selector(target.labels) } : {}),
        },
        totalTimeoutMs: RESOURCE_READ_TIMEOUT_MS,
        maxResponseBytes: call.maxResponseBytes,
        ...(call.signal ? { signal: call.signal } : {}),
      });
    } catch (error) {
      throw portError(error);
    }
    const metadata = (list.metadata ?? {}) as JsonObject;
    if (typeof metadata.continue === 'string' && metadata.continue !== '') {
      throw new CelPortError(
        `more than ${MAX_CEL_LISTED_OBJECTS} ${target.resource} in ${target.namespace || 'the cluster'}; narrow the list with labels`,
      );
    }
    // As client-go's unstructured list decoding does: each item gets the list's apiVersion and kind.
    const kind = typeof list.kind === 'string' && list.kind.endsWith('List') ? list.kind.slice(0, -4) : info.kind;
    const items = ((list.items ?? []) as JsonObject[]).map((item) => ({
      apiVersion: target.apiVersion,
      kind,
      ...item,
    }));
    return { ...list, items };
  }

  async create(target: CelResourceTarget, object: JsonObject, call: CelPortCall): Promise<JsonObject> {
    const info = await this.served(target, call);
    if (!fitsScope(info, target.namespace)) throw notFound(target);
    try {
      return await this.resources.http.json<JsonObject>({
        method: 'POST',
        path: path(target, info),
        body: object,
        totalTimeoutMs: RESOURCE_READ_TIMEOUT_MS,
        maxResponseBytes: call.maxResponseBytes,
        ...(call.signal ? { signal: call.signal } : {}),
      });
    } catch (error) {
      throw portError(error);
    }
  }

  async toGVR(apiVersion: string, kind: string, call: CelPortCall): Promise<CelGroupVersionResource> {
    let info: ApiResourceInfo;
    try {
      info = await this.resources.resource(apiVersion, kind, call.signal);
    } catch (error) {
      throw portError(error);
    }
    const slash = apiVersion.indexOf('/');
    return {
      group: slash < 0 ? '' : apiVersion.slice(0, slash),
      version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
      resource: info.name,
    };
  }

  private async served(target: CelResourceTarget, call: CelPortCall): Promise<ApiResourceInfo> {
    let info: ApiResourceInfo | undefined;
    try {
      info = await this.resources.resourceNamed(target.apiVersion, target.resource, call.signal);
    } catch (error) {
      throw portError(error);
    }
    if (!info) throw notFound(target);
    return info;
  }
}

/** A namespaced resource needs a namespace to name one object; a cluster-scoped one takes none. */
function fitsScope(info: ApiResourceInfo, namespace: string): boolean {
  return info.namespaced ? namespace !== '' : namespace === '';
}

function path(target: CelResourceTarget, info: ApiResourceInfo, name?: string): string {
  const parts = [groupVersionPath(target.apiVersion)];
  if (info.namespaced && target.namespace) parts.push('namespaces', encodeURIComponent(target.namespace));
  parts.push(info.name);
  if (name !== undefined) parts.push(encodeURIComponent(name));
  return parts.join('/');
}

/** `a=1,b=2`, keys sorted (labels.SelectorFromSet). */
function selector(labels: Readonly<Record<string, string>>): string {
  return Object.keys(labels)
    .sort()
    .map((key) => `${key}=${labels[key]}`)
    .join(',');
}

function notFound(target: CelResourceTarget): CelPortError {
  return new CelPortError(
    `the server could not find the requested resource (${target.resource} in ${target.apiVersion}${target.namespace ? `, namespace ${target.namespace}` : ''})`,
    'NotFound',
  );
}

function portError(error: unknown): Error {
  if (error instanceof KubeApiError) {
    const reason =
      error.code === 403
        ? 'Forbidden'
        : error.code === 401
          ? 'Unauthorized'
          : error.code === 404
            ? 'NotFound'
            : undefined;
    return new CelPortError(error.message, reason);
  }
  return error instanceof Error ? error : new Error(String(error));
}

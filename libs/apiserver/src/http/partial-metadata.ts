/**
 * kube-apiserver's metadata-only answers (`Accept: application/json;as=PartialObjectMetadata...`),
 * which client-go's metadata informers ask for: an object becomes `PartialObjectMetadata` (its
 * apiVersion `meta.k8s.io/v1` or v1beta1 and its whole metadata, nothing else), a list
 * `PartialObjectMetadataList` of those, and each watch event's object a `PartialObjectMetadata`.
 * Asking for the single form of a list, or the list form of an object, answers 406.
 */
import type { JsonObject } from '@edict/foundation';
import { notAcceptable } from '../status';
import type { PartialMetadataRequest } from '../tables/table';

export function partialObject(object: JsonObject, request: PartialMetadataRequest): JsonObject {
  if (request.as !== 'PartialObjectMetadata') {
    throw notAcceptable('you requested PartialObjectMetadataList, but the requested object is not a list');
  }
  return metadataOf(object, request.apiVersion);
}

export function partialList(
  items: readonly JsonObject[],
  listMetadata: JsonObject,
  request: PartialMetadataRequest,
): JsonObject {
  if (request.as !== 'PartialObjectMetadataList') {
    throw notAcceptable('you requested PartialObjectMetadata, but the requested object is a list');
  }
  return {
    kind: 'PartialObjectMetadataList',
    apiVersion: request.apiVersion,
    metadata: listMetadata,
    items: items.map((item) => metadataOf(item, request.apiVersion)),
  };
}

/** A watch streams single objects: only the single form applies to its events. */
export function checkWatchable(request: PartialMetadataRequest): void {
  if (request.as !== 'PartialObjectMetadata') {
    throw notAcceptable('you requested PartialObjectMetadataList, but a watch streams single objects');
  }
}

function metadataOf(object: JsonObject, apiVersion: string): JsonObject {
  return { kind: 'PartialObjectMetadata', apiVersion, metadata: (object.metadata ?? {}) as JsonObject };
}

/** The Table or metadata-only form a read asks for, and list bodies as kube-apiserver serves them. */
import type { IncomingMessage } from 'node:http';
import type { JsonObject } from '@edict/foundation';
import type { AdmissionRequestContext } from '../../admission/types';
import { apiVersionOf, type ResourceType } from '../../registry/resource-type';
import type { ListResult } from '../../resources/write-options';
import { printerFor, requestedRepresentation, type Representation } from '../../tables/table';

/** The representation the request asks for, if any; Table columns this server cannot fill become warnings. */
export function representationFor(
  type: ResourceType,
  request: IncomingMessage,
  query: URLSearchParams,
  context: AdmissionRequestContext,
): Representation | undefined {
  const representation = requestedRepresentation(request.headers.accept, query);
  if (representation?.as === 'Table') context.warnings.push(...printerFor(type).problems);
  return representation;
}

export function listMetadata(result: {
  resourceVersion: string;
  continue?: string;
  remainingItemCount?: number;
}): JsonObject {
  return {
    resourceVersion: result.resourceVersion,
    ...(result.continue ? { continue: result.continue } : {}),
    ...(result.remainingItemCount !== undefined ? { remainingItemCount: result.remainingItemCount } : {}),
  };
}

/** A list body: built-in lists carry items without kind/apiVersion, as kube-apiserver serves them. */
export function listBody(type: ResourceType, result: ListResult): JsonObject {
  const items = type.builtin
    ? result.items.map(({ kind: _kind, apiVersion: _apiVersion, ...rest }) => rest)
    : result.items;
  return { kind: type.listKind, apiVersion: apiVersionOf(type), metadata: listMetadata(result), items };
}

/**
 * Kubernetes `Status` bodies with kube-apiserver's exact reasons, codes and message texts, so that
 * clients which parse them (kubectl's error printer, client-go's `IsNotFound`...) cannot tell us apart.
 */
import type { JsonObject } from '@edict/foundation';

/** What a Status names: the resource (plural) and its group, as kube's `details` carry them. */
export interface StatusTarget {
  readonly group: string;
  /** The plural resource name (`pods`), or the Kind for Invalid errors (`Pod`). */
  readonly kind: string;
  readonly name?: string;
}

export interface StatusCause {
  readonly reason: string;
  readonly message: string;
  readonly field: string;
}

/** A request failure carrying the Status kube-apiserver would send. */
export class ApiError extends Error {
  constructor(
    readonly code: number,
    readonly reason: string,
    message: string,
    readonly details?: JsonObject,
  ) {
    super(message);
  }

  toStatus(): JsonObject {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      // Go omits an empty reason (a webhook's denial may carry none).
      ...(this.reason ? { reason: this.reason } : {}),
      ...(this.details ? { details: this.details } : {}),
      code: this.code,
    };
  }
}

/** `pods` or `deployments.apps`: how kube names a group resource in messages. */
export function qualifiedResource(group: string, resource: string): string {
  return group ? `${resource}.${group}` : resource;
}

function details(target: StatusTarget, extra: JsonObject = {}): JsonObject {
  return {
    ...(target.name !== undefined ? { name: target.name } : {}),
    ...(target.group ? { group: target.group } : {}),
    kind: target.kind,
    ...extra,
  };
}

export function notFound(target: StatusTarget & { name: string }): ApiError {
  const what = qualifiedResource(target.group, target.kind);
  return new ApiError(404, 'NotFound', `${what} "${target.name}" not found`, details(target));
}

export function alreadyExists(target: StatusTarget & { name: string }): ApiError {
  const what = qualifiedResource(target.group, target.kind);
  return new ApiError(409, 'AlreadyExists', `${what} "${target.name}" already exists`, details(target));
}

export function conflict(target: StatusTarget & { name: string }, reason?: string): ApiError {
  const what = qualifiedResource(target.group, target.kind);
  const why = reason ?? 'the object has been modified; please apply your changes to the latest version and try again';
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${what} "${target.name}": ${why}`,
    details(target),
  );
}

/** 422 with kube's `<Kind>[.group] "<name>" is invalid: <field>: <message>, ...` text. */
export function invalid(
  target: { group: string; kind: string; name: string },
  causes: readonly StatusCause[],
): ApiError {
  const what = qualifiedResource(target.group, target.kind);
  const summary = causes.map((cause) => `${cause.field}: ${cause.message}`);
  const text = summary.length === 1 ? summary[0] : `[${summary.join(', ')}]`;
  return new ApiError(
    422,
    'Invalid',
    `${what} "${target.name}" is invalid: ${text}`,
    details(target, { causes: causes.map((cause) => ({ ...cause })) }),
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

export function methodNotAllowed(
  message = 'the server does not allow this method on the requested resource',
): ApiError {
  return new ApiError(405, 'MethodNotAllowed', message, {});
}

export function unsupportedMediaType(contentType: string): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${contentType}`,
  );
}

/** 406 when no media type the client accepts can be served. */
export function notAcceptable(message: string): ApiError {
  return new ApiError(406, 'NotAcceptable', message);
}

/** The 404 for a path the server does not serve at all (no such resource or group). */
export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource', {});
}

/** 410 for a watch or continue from a compacted version: `too old resource version: 5 (12)`. */
export function expired(requested: number, oldest: number): ApiError {
  return new ApiError(410, 'Expired', `too old resource version: ${requested} (${oldest})`);
}

export function internalError(message: string): ApiError {
  return new ApiError(500, 'InternalError', `Internal error occurred: ${message}`, {
    causes: [{ message }],
  } as JsonObject);
}

export function successStatus(target: StatusTarget & { name: string }, uid: string): JsonObject {
  return {
    kind: 'Status',
    apiVersion: 'v1',
    metadata: {},
    status: 'Success',
    details: details(target, { uid }),
  };
}

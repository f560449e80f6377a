/** kube-apiserver's error texts for webhook admission. */
import { isObject, type JsonObject } from '@edict/foundation';
import { ApiError, badRequest, internalError, qualifiedResource } from '../status';

/** A webhook said no: its status code (403 if none) and `admission webhook "<name>" denied the request: <why>`. */
export function deniedError(webhookName: string, status: JsonObject | undefined): ApiError {
  const result = status ?? {};
  const code = typeof result.code === 'number' && result.code !== 0 ? result.code : 403;
  const deniedBy = `admission webhook "${webhookName}" denied the request`;
  const message =
    typeof result.message === 'string' && result.message !== ''
      ? `${deniedBy}: ${result.message}`
      : typeof result.reason === 'string' && result.reason !== ''
        ? `${deniedBy}: ${result.reason}`
        : `${deniedBy} without explanation`;
  const reason = typeof result.reason === 'string' ? result.reason : '';
  return new ApiError(code, reason, message, isObject(result.details) ? result.details : undefined);
}

/** A call that failed under failurePolicy Fail: 500 `failed calling webhook "<name>": <reason>`. */
export function callingError(webhookName: string, reason: string): ApiError {
  return internalError(`failed calling webhook "${webhookName}": ${reason}`);
}

export function dryRunUnsupported(webhookName: string): ApiError {
  return badRequest(`admission webhook "${webhookName}" does not support dry run`);
}

/**
 * A webhook's match conditions errored under failurePolicy Fail: kube fails closed with a
 * Forbidden on the request's resource, `<resource.group> "<name>" is forbidden: <errors>`.
 */
export function matchConditionsForbidden(
  target: { group: string; plural: string; name: string },
  reason: string,
): ApiError {
  const what = qualifiedResource(target.group, target.plural);
  return new ApiError(403, 'Forbidden', `${what}${target.name ? ` "${target.name}"` : ''} is forbidden: ${reason}`, {
    ...(target.name ? { name: target.name } : {}),
    ...(target.group ? { group: target.group } : {}),
    kind: target.plural,
  });
}

/**
 * The span of one admission review, as Kyverno's AdmissionHandler.WithTrace names and fills it:
 * `ADMISSION <operation> <group>/<version>, Kind=<kind>`, the request's attributes at its start,
 * the response's at its end, under Kyverno's attribute keys.
 */
import type { AdmissionRequest, AdmissionResponse, ReviewGroupVersionKind } from '@edict/admission';
import { TRACE_KEYS as K, type SpanAttributes } from '@edict/foundation';

/** Go's metav1.GroupVersionKind String(). */
function gvk(kind: ReviewGroupVersionKind | undefined): string {
  return `${kind?.group ?? ''}/${kind?.version ?? ''}, Kind=${kind?.kind ?? ''}`;
}

export function admissionSpanName(request: AdmissionRequest): string {
  return `ADMISSION ${request.operation} ${gvk(request.kind)}`;
}

export function admissionRequestAttributes(request: AdmissionRequest): SpanAttributes {
  return {
    [K.requestName]: request.name ?? '',
    [K.requestNamespace]: request.namespace ?? '',
    [K.requestUid]: request.uid,
    [K.requestOperation]: request.operation,
    [K.requestDryRun]: request.dryRun === true,
    [K.requestKindGroup]: request.kind?.group ?? '',
    [K.requestKindVersion]: request.kind?.version ?? '',
    [K.requestKindKind]: request.kind?.kind ?? '',
    [K.requestSubResource]: request.subResource ?? '',
    [K.requestRequestKindGroup]: request.requestKind?.group ?? '',
    [K.requestRequestKindVersion]: request.requestKind?.version ?? '',
    [K.requestRequestKindKind]: request.requestKind?.kind ?? '',
    [K.requestRequestSubResource]: request.requestSubResource ?? '',
    [K.requestResourceGroup]: request.resource?.group ?? '',
    [K.requestResourceVersion]: request.resource?.version ?? '',
    [K.requestResourceResource]: request.resource?.resource ?? '',
    [K.requestRequestResourceGroup]: request.requestResource?.group ?? '',
    [K.requestRequestResourceVersion]: request.requestResource?.version ?? '',
    [K.requestRequestResourceResource]: request.requestResource?.resource ?? '',
    [K.requestUserName]: request.userInfo?.username ?? '',
    [K.requestUserUid]: request.userInfo?.uid ?? '',
    [K.requestUserGroups]: request.userInfo?.groups ?? [],
  };
}

export function admissionResponseAttributes(response: AdmissionResponse | undefined): SpanAttributes {
  if (!response) return {};
  return {
    [K.responseUid]: response.uid,
    [K.responseAllowed]: response.allowed,
    [K.responseWarnings]: response.warnings ?? [],
    ...(response.status
      ? {
          [K.responseResultStatus]: response.status.status,
          [K.responseResultMessage]: response.status.message ?? '',
          [K.responseResultReason]: response.status.reason ?? '',
          [K.responseResultCode]: response.status.code ?? 0,
        }
      : {}),
    ...(response.patchType ? { [K.responsePatchType]: response.patchType } : {}),
  };
}

/** The `admission.k8s.io/v1` AdmissionReview a webhook receives, and checks on what it answers. */
import { randomUUID } from 'node:crypto';
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { AdmissionAttributes } from './types';

export function admissionReview(attributes: AdmissionAttributes, uid: string = randomUUID()): JsonObject {
  const { type, userInfo } = attributes;
  const kind = attributes.kind ? { ...attributes.kind } : { group: type.group, version: type.version, kind: type.kind };
  const resource = { group: type.group, version: type.version, resource: type.plural };
  const request: JsonObject = {
    uid,
    kind,
    resource,
    ...(attributes.subresource ? { subResource: attributes.subresource } : {}),
    requestKind: kind,
    requestResource: resource,
    ...(attributes.subresource ? { requestSubResource: attributes.subresource } : {}),
    ...(attributes.name ? { name: attributes.name } : {}),
    ...(attributes.namespace ? { namespace: attributes.namespace } : {}),
    operation: attributes.operation,
    userInfo: {
      username: userInfo.username,
      ...(userInfo.uid ? { uid: userInfo.uid } : {}),
      ...(userInfo.groups && userInfo.groups.length > 0 ? { groups: [...userInfo.groups] } : {}),
      ...(userInfo.extra
        ? { extra: Object.fromEntries(Object.entries(userInfo.extra).map(([k, v]) => [k, [...v]])) }
        : {}),
    },
    object: attributes.object ?? null,
    oldObject: attributes.oldObject ?? null,
    dryRun: attributes.dryRun,
    options: attributes.options,
  };
  return { kind: 'AdmissionReview', apiVersion: 'admission.k8s.io/v1', request };
}

export interface AdmissionResponse {
  readonly allowed: boolean;
  readonly status?: JsonObject;
  readonly patch?: JsonValue[];
  readonly warnings: readonly string[];
}

/** Checks a webhook's answer the way kube does; throws an Error whose text kube would report. */
export function verifyAdmissionResponse(uid: string, mutating: boolean, body: JsonValue): AdmissionResponse {
  if (!isObject(body) || body.apiVersion !== 'admission.k8s.io/v1' || body.kind !== 'AdmissionReview') {
    const got = isObject(body) ? `${String(body.apiVersion ?? '')}, Kind=${String(body.kind ?? '')}` : 'no object';
    throw new Error(`expected webhook response of admission.k8s.io/v1, Kind=AdmissionReview, got ${got}`);
  }
  const response = body.response;
  if (!isObject(response)) throw new Error('webhook response was absent');
  if (response.uid !== uid) throw new Error(`expected response.uid="${uid}", got "${String(response.uid ?? '')}"`);
  const patchType = typeof response.patchType === 'string' ? response.patchType : '';
  const rawPatch = typeof response.patch === 'string' ? response.patch : '';
  let patch: JsonValue[] | undefined;
  if (mutating && rawPatch !== '') {
    if (patchType === '') throw new Error('webhook returned response.patch but not response.patchType');
    if (patchType !== 'JSONPatch') throw new Error(`webhook returned invalid response.patchType of "${patchType}"`);
    let decoded: JsonValue;
    try {
      decoded = JSON.parse(Buffer.from(rawPatch, 'base64').toString('utf8')) as JsonValue;
    } catch (error) {
      throw new Error(`received undecodable patch in webhook response: ${(error as Error).message}`);
    }
    if (!Array.isArray(decoded)) {
      throw new Error(
        'received undecodable patch in webhook response: json: cannot unmarshal object into Go value of type jsonpatch.Patch',
      );
    }
    patch = decoded;
  } else if (!mutating && (rawPatch !== '' || patchType !== '')) {
    throw new Error('validating webhook may not return response.patch or response.patchType');
  }
  return {
    allowed: response.allowed === true,
    ...(isObject(response.status) ? { status: response.status } : {}),
    ...(patch ? { patch } : {}),
    warnings: Array.isArray(response.warnings)
      ? response.warnings.filter((w): w is string => typeof w === 'string')
      : [],
  };
}

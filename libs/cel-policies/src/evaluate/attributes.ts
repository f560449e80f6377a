import { isObject, type JsonObject, type KubeObject } from '@edict/foundation';
import { celRequestOf, type AdmissionAttributes, type MatchedAs } from '@edict/native-policies';
import type { CelPolicyInput } from './input';

/**
 * kube-apiserver's admission attributes of the request: from the AdmissionRequest when there is one
 * (admission), else from the resource (background scans, the CLI), as Kyverno builds them.
 */
export function admissionAttributesOf(input: CelPolicyInput): AdmissionAttributes {
  const { request } = input;
  const admission = request.admissionRequest;
  const object = request.operation === 'DELETE' ? null : (request.resource ?? null);
  const oldObject = request.oldResource ?? null;
  const subject = object ?? oldObject;
  const kind = requestKind(input, subject);
  const attributes: AdmissionAttributes = {
    operation: request.operation,
    kind,
    resource: { ...input.resource },
    subresource: request.subresource ?? text(admission?.subResource),
    name: text(admission?.name) || subject?.metadata?.name || '',
    namespace: admission ? text(admission.namespace) : kubeNamespaceOf(subject),
    object: object as JsonObject | null,
    oldObject: oldObject as JsonObject | null,
    dryRun: request.dryRun ?? admission?.dryRun === true,
  };
  const userInfo = request.user?.userInfo ?? (isObject(admission?.userInfo) ? admission.userInfo : undefined);
  if (userInfo) attributes.userInfo = userInfo as AdmissionAttributes['userInfo'];
  if (admission && isObject(admission.options)) attributes.options = admission.options;
  if (admission && typeof admission.uid === 'string') attributes.uid = admission.uid;
  return attributes;
}

/** The namespace a request is evaluated in: none for cluster-scoped objects and for Namespaces. */
export function namespaceOf(object: KubeObject | null | undefined): string {
  if (!object) return '';
  if (object.kind === 'Namespace' && (object.apiVersion === 'v1' || object.apiVersion === '')) return '';
  return object.metadata?.namespace ?? '';
}

/** kube-apiserver's attributes name a Namespace request with the Namespace's own name. */
function kubeNamespaceOf(object: KubeObject | null): string {
  if (object?.kind === 'Namespace' && (object.apiVersion === 'v1' || object.apiVersion === '')) {
    return object.metadata?.name ?? '';
  }
  return namespaceOf(object);
}

function requestKind(input: CelPolicyInput, subject: KubeObject | null): AdmissionAttributes['kind'] {
  const known = input.request.requestKind;
  if (known) return { group: known.group ?? '', version: known.version ?? '', kind: known.kind ?? '' };
  const admissionKind = input.request.admissionRequest?.kind;
  if (isObject(admissionKind)) {
    return { group: text(admissionKind.group), version: text(admissionKind.version), kind: text(admissionKind.kind) };
  }
  const apiVersion = subject?.apiVersion ?? '';
  const slash = apiVersion.indexOf('/');
  return {
    group: slash < 0 ? '' : apiVersion.slice(0, slash),
    version: slash < 0 ? apiVersion : apiVersion.slice(slash + 1),
    kind: subject?.kind ?? '',
  };
}

function text(value: unknown): string {
  return typeof value === 'string' ? value : '';
}

/**
 * Kyverno's CEL `request`. Kube's admission policies leave `object` and `oldObject` out of it
 * (celRequestOf); Kyverno's policies see the whole AdmissionRequest, both objects as the request
 * carried them, before any mutation. A side the request lacks is null, except for MutatingPolicies,
 * where Kyverno gives an empty object (`absentSide: 'empty'`).
 */
export function kyvernoRequestOf(
  attributes: AdmissionAttributes,
  matched?: MatchedAs,
  absentSide: 'null' | 'empty' = 'null',
): JsonObject {
  const absent = absentSide === 'empty' ? {} : null;
  return {
    ...celRequestOf(attributes, matched),
    object: attributes.object ?? absent,
    oldObject: attributes.oldObject ?? absent,
  };
}

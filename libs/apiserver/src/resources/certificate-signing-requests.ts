/**
 * CertificateSigningRequests as kube-apiserver's CSR strategies treat them: the requester's identity
 * is written into the spec on create (and status starts empty, so nobody creates a pre-approved
 * request); afterwards the spec never changes, `/status` may not touch the Approved/Denied
 * conditions and `/approval` changes nothing but the conditions.
 */
import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { UserInfo } from '../admission/types';
import { groupResourceKey, type ResourceType } from '../registry/resource-type';
import { invalid, type StatusCause } from '../status';

const CSR_RESOURCE = groupResourceKey('certificates.k8s.io', 'certificatesigningrequests');
/** Conditions only the `/approval` subresource may add or remove. */
const APPROVAL_CONDITIONS = ['Approved', 'Denied'];
const MIN_EXPIRATION_SECONDS = 600;

export function isCsrType(type: ResourceType): boolean {
  return groupResourceKey(type.group, type.plural) === CSR_RESOURCE;
}

/** The object to store for a new request: the requester's identity in the spec, an empty status. */
export function prepareCsrCreate(object: JsonObject, user: UserInfo): JsonObject {
  const { username: _u, uid: _i, groups: _g, extra: _e, ...spec } = isObject(object.spec) ? object.spec : {};
  const identity: JsonObject = { username: user.username };
  if (user.uid) identity.uid = user.uid;
  if (user.groups && user.groups.length > 0) identity.groups = [...user.groups];
  if (user.extra && Object.keys(user.extra).length > 0) {
    identity.extra = Object.fromEntries(Object.entries(user.extra).map(([key, values]) => [key, [...values]]));
  }
  const prepared = { ...object, spec: { ...spec, ...identity }, status: {} };
  const causes = specProblems(prepared.spec);
  if (causes.length > 0) throw invalid(target(prepared), causes);
  return prepared;
}

/**
 * An update of the main resource or a subresource: the spec stays; `status` keeps the approval
 * conditions as they were; `approval` takes the conditions only.
 */
export function prepareCsrUpdate(
  old: JsonObject,
  updated: JsonObject,
  subresource: 'status' | 'approval' | undefined,
  now: string,
): JsonObject {
  const oldStatus = isObject(old.status) ? old.status : {};
  if (subresource === undefined) return { ...updated, spec: old.spec ?? {}, status: oldStatus };
  const newStatus = isObject(updated.status) ? updated.status : {};
  const oldConditions = conditionsOf(oldStatus);
  let conditions = conditionsOf(newStatus);
  if (subresource === 'status') {
    checkApprovalUnchanged(updated, oldConditions, conditions);
  } else {
    checkApprovalChange(updated, oldConditions, conditions);
  }
  conditions = conditions.map((condition) => withTimestamps(condition, oldConditions, now));
  const status: JsonObject = subresource === 'status' ? { ...newStatus } : { ...oldStatus };
  if (conditions.length > 0) status.conditions = conditions;
  else delete status.conditions;
  return { ...updated, spec: old.spec ?? {}, status };
}

function specProblems(spec: JsonObject): StatusCause[] {
  const causes: StatusCause[] = [];
  if (typeof spec.request !== 'string' || spec.request === '') {
    causes.push(required('spec.request'));
  } else if (!isCertificateRequestPem(spec.request)) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.request',
      message: 'Invalid value: "<request>": PEM block type must be CERTIFICATE REQUEST',
    });
  }
  if (typeof spec.signerName !== 'string' || spec.signerName === '') causes.push(required('spec.signerName'));
  if (!Array.isArray(spec.usages) || spec.usages.length === 0) causes.push(required('spec.usages'));
  const seconds = spec.expirationSeconds;
  if (typeof seconds === 'number' && seconds < MIN_EXPIRATION_SECONDS) {
    causes.push({
      reason: 'FieldValueInvalid',
      field: 'spec.expirationSeconds',
      message: `Invalid value: ${seconds}: may not specify a duration less than 600 seconds (10 minutes)`,
    });
  }
  return causes;
}

/** `spec.request` is base64 of PEM bytes whose first block must be a certificate request. */
function isCertificateRequestPem(request: string): boolean {
  const pem = Buffer.from(request, 'base64').toString('latin1');
  const begin = /-----BEGIN ([A-Z0-9 ]+)-----/.exec(pem);
  return begin?.[1] === 'CERTIFICATE REQUEST' && pem.includes('-----END CERTIFICATE REQUEST-----');
}

function required(field: string): StatusCause {
  return { reason: 'FieldValueRequired', field, message: 'Required value' };
}

function conditionsOf(status: JsonObject): JsonObject[] {
  return Array.isArray(status.conditions) ? status.conditions.filter(isObject) : [];
}

function countOf(conditions: JsonObject[], type: string): number {
  return conditions.filter((condition) => condition.type === type).length;
}

function checkApprovalUnchanged(csr: JsonObject, before: JsonObject[], after: JsonObject[]): void {
  const causes: StatusCause[] = [];
  for (const type of APPROVAL_CONDITIONS) {
    const [was, is] = [countOf(before, type), countOf(after, type)];
    if (is > was) causes.push(forbidden(`updates may not add a condition of type ${JSON.stringify(type)}`));
    if (is < was) causes.push(forbidden(`updates may not remove a condition of type ${JSON.stringify(type)}`));
  }
  if (causes.length > 0) throw invalid(target(csr), causes);
}

function checkApprovalChange(csr: JsonObject, before: JsonObject[], after: JsonObject[]): void {
  const causes: StatusCause[] = [];
  for (const type of APPROVAL_CONDITIONS) {
    if (countOf(after, type) < countOf(before, type)) {
      causes.push(forbidden(`updates may not remove a condition of type ${JSON.stringify(type)}`));
    }
  }
  const approved = after.some((c) => c.type === 'Approved' && c.status !== 'False');
  const denied = after.some((c) => c.type === 'Denied' && c.status !== 'False');
  if (approved && denied) causes.push(invalidCondition('Approved and Denied conditions are mutually exclusive'));
  if (causes.length > 0) throw invalid(target(csr), causes);
}

/** Conditions get update and transition times when they come without (kept from a same-status predecessor). */
function withTimestamps(condition: JsonObject, before: JsonObject[], now: string): JsonObject {
  const result: JsonObject = { ...condition };
  if (result.status === undefined) result.status = 'True';
  if (result.lastUpdateTime === undefined) result.lastUpdateTime = now;
  if (result.lastTransitionTime === undefined) {
    const previous = before.find((c) => c.type === result.type && c.status === result.status);
    result.lastTransitionTime = (previous?.lastTransitionTime as JsonValue | undefined) ?? now;
  }
  return result;
}

function forbidden(message: string): StatusCause {
  return { reason: 'FieldValueForbidden', field: 'status.conditions', message: `Forbidden: ${message}` };
}

function invalidCondition(message: string): StatusCause {
  return {
    reason: 'FieldValueInvalid',
    field: 'status.conditions',
    message: `Invalid value: "<conditions>": ${message}`,
  };
}

function target(csr: JsonObject): { group: string; kind: string; name: string } {
  const metadata = isObject(csr.metadata) ? csr.metadata : {};
  return { group: 'certificates.k8s.io', kind: 'CertificateSigningRequest', name: String(metadata.name ?? '') };
}

import { isObject, type JsonValue } from '@edict/foundation';
import type { AdmissionRequest, AdmissionReview } from './types';

/** A review that cannot be answered: the HTTP status to reply with and why. Never thrown. */
export interface ReviewError {
  ok: false;
  /** 400: the body is not an admission.k8s.io/v1 AdmissionReview with a usable request. */
  status: 400;
  message: string;
}

export type ParsedReview = { ok: true; review: AdmissionReview & { request: AdmissionRequest } } | ReviewError;

const OPERATIONS = new Set(['CREATE', 'UPDATE', 'DELETE', 'CONNECT']);
/**
 * What the API server accepts as a kind (a DNS-1035 label, any case) and a namespace name (a
 * DNS-1123 label). Both become metric labels, so a caller other than the API server must not be
 * able to send arbitrary text there.
 */
const KIND = /^[A-Za-z]([-A-Za-z0-9]{0,61}[A-Za-z0-9])?$/;
const DNS_LABEL = /^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$/;

/**
 * Policies walk objects recursively; a body nested thousands of levels deep (a 10 MiB body can
 * hold millions) would exhaust the stack. Real Kubernetes objects stay far below this.
 */
export const MAX_DEPTH = 1000;

/**
 * Checks an AdmissionReview body (a JSON string, a Buffer or the already-parsed value) before any
 * policy sees it. Problems come back as a 400-style result naming the field, so a bad caller can
 * never crash the server.
 */
export function parseAdmissionReview(body: unknown): ParsedReview {
  let value: unknown = body;
  if (typeof body === 'string' || Buffer.isBuffer(body)) {
    const text = body.toString();
    if (text.trim() === '') return fail('empty body');
    try {
      value = JSON.parse(text) as JsonValue;
    } catch (error) {
      return fail(`body is not valid JSON: ${(error as Error).message}`);
    }
  }
  if (!isObject(value as JsonValue)) return fail('body must be a JSON object (an AdmissionReview)');
  const review = value as Record<string, unknown>;
  if (review['apiVersion'] !== 'admission.k8s.io/v1')
    return fail(`apiVersion must be admission.k8s.io/v1, got ${describe(review['apiVersion'])}`);
  if (review['kind'] !== 'AdmissionReview')
    return fail(`kind must be AdmissionReview, got ${describe(review['kind'])}`);
  const request = review['request'];
  if (!isObject(request as JsonValue)) return fail('request is missing or not an object');
  if (nestedDeeperThan(request, MAX_DEPTH))
    return fail(`request is nested deeper than ${MAX_DEPTH} levels of objects and lists`);
  const problem = requestProblem(request as Record<string, unknown>);
  if (problem) return fail(problem);
  return { ok: true, review: review as unknown as AdmissionReview & { request: AdmissionRequest } };
}

function requestProblem(request: Record<string, unknown>): string | undefined {
  if (typeof request['uid'] !== 'string' || request['uid'] === '') return 'request.uid must be a non-empty string';
  for (const field of ['kind', 'resource'] as const) {
    const gv = request[field];
    if (!isObject(gv as JsonValue)) return `request.${field} must be an object`;
    const entries = gv as Record<string, unknown>;
    const name = field === 'kind' ? 'kind' : 'resource';
    for (const key of ['group', 'version', name]) {
      if (entries[key] !== undefined && typeof entries[key] !== 'string')
        return `request.${field}.${key} must be a string`;
    }
    if (typeof entries[name] !== 'string' || entries[name] === '')
      return `request.${field}.${name} must be a non-empty string`;
  }
  const kind = (request['kind'] as Record<string, string>)['kind']!;
  if (!KIND.test(kind))
    return `request.kind.kind must be a Kubernetes kind (letters, digits, dashes; at most 63), got ${describe(kind)}`;
  const operation = request['operation'];
  if (typeof operation !== 'string' || !OPERATIONS.has(operation))
    return `request.operation must be one of CREATE, UPDATE, DELETE, CONNECT, got ${describe(operation)}`;
  for (const field of ['name', 'namespace', 'subResource'] as const) {
    if (request[field] !== undefined && typeof request[field] !== 'string') return `request.${field} must be a string`;
  }
  const namespace = request['namespace'];
  if (typeof namespace === 'string' && namespace !== '' && !DNS_LABEL.test(namespace))
    return `request.namespace must be a namespace name (a DNS label), got ${describe(namespace)}`;
  const userProblem = userInfoProblem(request['userInfo']);
  if (userProblem) return userProblem;
  for (const field of ['requestKind', 'requestResource'] as const) {
    const gv = request[field];
    if (gv === undefined || gv === null) continue;
    if (!isObject(gv as JsonValue)) return `request.${field} must be an object`;
    for (const [key, value] of Object.entries(gv as Record<string, unknown>))
      if (value !== undefined && typeof value !== 'string') return `request.${field}.${key} must be a string`;
  }
  if (request['requestSubResource'] !== undefined && typeof request['requestSubResource'] !== 'string')
    return 'request.requestSubResource must be a string';
  if (request['options'] !== undefined && request['options'] !== null && !isObject(request['options'] as JsonValue))
    return 'request.options must be an object or null';
  for (const field of ['object', 'oldObject'] as const) {
    const object = request[field];
    if (object !== undefined && object !== null && !isObject(object as JsonValue))
      return `request.${field} must be an object or null`;
  }
  if (operation === 'CREATE' && !isObject(request['object'] as JsonValue))
    return 'request.object is required for CREATE';
  if (operation === 'UPDATE' && !isObject(request['object'] as JsonValue))
    return 'request.object is required for UPDATE';
  if (
    operation === 'DELETE' &&
    !isObject(request['oldObject'] as JsonValue) &&
    !isObject(request['object'] as JsonValue)
  )
    return 'request.oldObject is required for DELETE';
  if (request['dryRun'] !== undefined && typeof request['dryRun'] !== 'boolean')
    return 'request.dryRun must be a boolean';
  return undefined;
}

/** authentication.k8s.io/v1 UserInfo: role bindings and policies read every field as typed. */
function userInfoProblem(userInfo: unknown): string | undefined {
  if (userInfo === undefined) return undefined;
  if (!isObject(userInfo as JsonValue)) return 'request.userInfo must be an object';
  const user = userInfo as Record<string, unknown>;
  for (const field of ['username', 'uid'] as const)
    if (user[field] !== undefined && typeof user[field] !== 'string')
      return `request.userInfo.${field} must be a string`;
  if (user['groups'] !== undefined && !isStringList(user['groups']))
    return 'request.userInfo.groups must be a list of strings';
  const extra = user['extra'];
  if (extra === undefined) return undefined;
  if (!isObject(extra as JsonValue)) return 'request.userInfo.extra must be an object';
  for (const [key, values] of Object.entries(extra as Record<string, unknown>))
    if (!isStringList(values)) return `request.userInfo.extra[${JSON.stringify(key)}] must be a list of strings`;
  return undefined;
}

/** Whether `value` nests more than `limit` objects/arrays, measured without recursion. */
function nestedDeeperThan(value: unknown, limit: number): boolean {
  const pending: Array<[unknown, number]> = [[value, 1]];
  while (pending.length > 0) {
    const [current, depth] = pending.pop()!;
    if (current === null || typeof current !== 'object') continue;
    if (depth > limit) return true;
    for (const child of Object.values(current))
      if (child !== null && typeof child === 'object') pending.push([child, depth + 1]);
  }
  return false;
}

function isStringList(value: unknown): boolean {
  return Array.isArray(value) && value.every((item) => typeof item === 'string');
}

function describe(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value);
}

function fail(message: string): ReviewError {
  return { ok: false, status: 400, message };
}

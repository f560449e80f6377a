/** The admission attributes of a write: operation, user, dry run, and the request's options object. */
import type { JsonObject } from '@edict/foundation';
import type { AdmissionAttributes, AdmissionRequestContext } from '../admission/types';
import type { ResourceType } from '../registry/resource-type';
import { NAMESPACES } from '../lifecycle/namespace-lifecycle';
import { nameOf } from './request-bodies';
import { storeKey } from './stored-objects';
import type { DeleteOptions, PatchOptions, WriteOptions } from './write-options';

export function writeAttributes(
  type: ResourceType,
  operation: AdmissionAttributes['operation'],
  subresource: string,
  options: WriteOptions,
  context: AdmissionRequestContext,
  requestOptions: JsonObject,
): Omit<AdmissionAttributes, 'name' | 'namespace'> {
  return {
    operation,
    type,
    subresource,
    dryRun: options.dryRun === true,
    userInfo: context.userInfo,
    options: requestOptions,
  };
}

/** kube puts a Namespace's own name in the request's namespace field. */
export function attributeNamespace(type: ResourceType, namespace: string | undefined, object: JsonObject): string {
  if (storeKey(type) === NAMESPACES) return nameOf(object);
  return type.namespaced ? (namespace ?? '') : '';
}

function dryRunField(options: WriteOptions): JsonObject {
  return options.dryRun ? { dryRun: ['All'] } : {};
}

export function createOptions(options: PatchOptions): JsonObject {
  return {
    kind: 'CreateOptions',
    apiVersion: 'meta.k8s.io/v1',
    ...dryRunField(options),
    ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}),
  };
}

export function updateOptions(options: PatchOptions): JsonObject {
  return {
    kind: 'UpdateOptions',
    apiVersion: 'meta.k8s.io/v1',
    ...dryRunField(options),
    ...(options.fieldManager ? { fieldManager: options.fieldManager } : {}),
  };
}

export function deleteOptionsObject(options: DeleteOptions): JsonObject {
  return {
    kind: 'DeleteOptions',
    apiVersion: 'meta.k8s.io/v1',
    ...dryRunField(options),
    ...(options.propagationPolicy ? { propagationPolicy: options.propagationPolicy } : {}),
    ...(options.preconditions ? { preconditions: { ...options.preconditions } } : {}),
  };
}

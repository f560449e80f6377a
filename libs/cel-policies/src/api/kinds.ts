import { POLICIES_KYVERNO_IO } from './types';

const VALIDATING_KINDS = new Set(['ValidatingPolicy', 'NamespacedValidatingPolicy']);

/** The group of an apiVersion (`policies.kyverno.io/v1` -> `policies.kyverno.io`). */
function groupOf(apiVersion: string | undefined): string {
  const slash = (apiVersion ?? '').indexOf('/');
  return slash < 0 ? '' : (apiVersion ?? '').slice(0, slash);
}

/** A policies.kyverno.io ValidatingPolicy or NamespacedValidatingPolicy (any served version). */
export function isValidatingPolicy(object: { apiVersion?: string; kind?: string }): boolean {
  return groupOf(object.apiVersion) === POLICIES_KYVERNO_IO && VALIDATING_KINDS.has(object.kind ?? '');
}

/** A policies.kyverno.io PolicyException (the CEL one; kyverno.io's classic exception is another kind). */
export function isCelPolicyException(object: { apiVersion?: string; kind?: string }): boolean {
  return groupOf(object.apiVersion) === POLICIES_KYVERNO_IO && object.kind === 'PolicyException';
}

const IMAGE_VALIDATING_KINDS = new Set(['ImageValidatingPolicy', 'NamespacedImageValidatingPolicy']);

/** A policies.kyverno.io ImageValidatingPolicy or NamespacedImageValidatingPolicy (any served version). */
export function isImageValidatingPolicy(object: { apiVersion?: string; kind?: string }): boolean {
  return groupOf(object.apiVersion) === POLICIES_KYVERNO_IO && IMAGE_VALIDATING_KINDS.has(object.kind ?? '');
}

const MUTATING_KINDS = new Set(['MutatingPolicy', 'NamespacedMutatingPolicy']);
const GENERATING_KINDS = new Set(['GeneratingPolicy', 'NamespacedGeneratingPolicy']);
const DELETING_KINDS = new Set(['DeletingPolicy', 'NamespacedDeletingPolicy']);

/** A policies.kyverno.io MutatingPolicy or NamespacedMutatingPolicy (any served version). */
export function isMutatingPolicy(object: { apiVersion?: string; kind?: string }): boolean {
  return groupOf(object.apiVersion) === POLICIES_KYVERNO_IO && MUTATING_KINDS.has(object.kind ?? '');
}

/** A policies.kyverno.io GeneratingPolicy or NamespacedGeneratingPolicy (any served version). */
export function isGeneratingPolicy(object: { apiVersion?: string; kind?: string }): boolean {
  return groupOf(object.apiVersion) === POLICIES_KYVERNO_IO && GENERATING_KINDS.has(object.kind ?? '');
}

/** A policies.kyverno.io DeletingPolicy or NamespacedDeletingPolicy (any served version). */
export function isDeletingPolicy(object: { apiVersion?: string; kind?: string }): boolean {
  return groupOf(object.apiVersion) === POLICIES_KYVERNO_IO && DELETING_KINDS.has(object.kind ?? '');
}

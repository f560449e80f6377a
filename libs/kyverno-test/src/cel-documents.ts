import { isObject, type JsonValue, type KubeObject } from '@edict/foundation';

/**
 * The policies of Kyverno's CEL family (policies.kyverno.io) and Kubernetes' own admission policies
 * (admissionregistration.k8s.io) a test names, as read: the classic loader leaves them out, the
 * test runner evaluates them with their own engines.
 */
export interface CelDocuments {
  /** ValidatingPolicy and NamespacedValidatingPolicy (v1alpha1, v1beta1, v1). */
  validatingPolicies: KubeObject[];
  /** ImageValidatingPolicy and NamespacedImageValidatingPolicy. */
  imageValidatingPolicies: KubeObject[];
  /** MutatingPolicy and NamespacedMutatingPolicy. */
  mutatingPolicies: KubeObject[];
  /** GeneratingPolicy and NamespacedGeneratingPolicy. */
  generatingPolicies: KubeObject[];
  /** DeletingPolicy and NamespacedDeletingPolicy. */
  deletingPolicies: KubeObject[];
  /** policies.kyverno.io PolicyExceptions. */
  exceptions: KubeObject[];
  validatingAdmissionPolicies: KubeObject[];
  validatingAdmissionPolicyBindings: KubeObject[];
  mutatingAdmissionPolicies: KubeObject[];
  mutatingAdmissionPolicyBindings: KubeObject[];
  /** Kinds of these families Edict does not evaluate yet. */
  unsupported: KubeObject[];
}

export const emptyCelDocuments = (): CelDocuments => ({
  validatingPolicies: [],
  imageValidatingPolicies: [],
  mutatingPolicies: [],
  generatingPolicies: [],
  deletingPolicies: [],
  exceptions: [],
  validatingAdmissionPolicies: [],
  validatingAdmissionPolicyBindings: [],
  mutatingAdmissionPolicies: [],
  mutatingAdmissionPolicyBindings: [],
  unsupported: [],
});

const KYVERNO_CEL_GROUP = 'policies.kyverno.io';
const ADMISSION_GROUP = 'admissionregistration.k8s.io';

/** The list of each kind, the Namespaced forms with their cluster-wide ones. */
const KYVERNO_CEL_LISTS: Record<string, keyof CelDocuments> = {
  ValidatingPolicy: 'validatingPolicies',
  NamespacedValidatingPolicy: 'validatingPolicies',
  ImageValidatingPolicy: 'imageValidatingPolicies',
  NamespacedImageValidatingPolicy: 'imageValidatingPolicies',
  MutatingPolicy: 'mutatingPolicies',
  NamespacedMutatingPolicy: 'mutatingPolicies',
  GeneratingPolicy: 'generatingPolicies',
  NamespacedGeneratingPolicy: 'generatingPolicies',
  DeletingPolicy: 'deletingPolicies',
  NamespacedDeletingPolicy: 'deletingPolicies',
  PolicyException: 'exceptions',
};
const ADMISSION_LISTS: Record<string, keyof CelDocuments> = {
  ValidatingAdmissionPolicy: 'validatingAdmissionPolicies',
  ValidatingAdmissionPolicyBinding: 'validatingAdmissionPolicyBindings',
  MutatingAdmissionPolicy: 'mutatingAdmissionPolicies',
  MutatingAdmissionPolicyBinding: 'mutatingAdmissionPolicyBindings',
};

function groupOf(apiVersion: unknown): string {
  if (typeof apiVersion !== 'string') return '';
  const slash = apiVersion.indexOf('/');
  return slash < 0 ? '' : apiVersion.slice(0, slash);
}

/** Which list of `CelDocuments` a document belongs to, or undefined when it is none of these kinds. */
export function celDocumentList(document: JsonValue): keyof CelDocuments | undefined {
  if (!isObject(document) || typeof document.kind !== 'string') return undefined;
  const { kind } = document;
  const group = groupOf(document.apiVersion);
  if (group === KYVERNO_CEL_GROUP) return Object.hasOwn(KYVERNO_CEL_LISTS, kind) ? KYVERNO_CEL_LISTS[kind] : undefined;
  if (group === ADMISSION_GROUP) return Object.hasOwn(ADMISSION_LISTS, kind) ? ADMISSION_LISTS[kind] : undefined;
  return undefined;
}

/** Adds the document to its list; false when it is not one of these kinds. */
export function addCelDocument(documents: CelDocuments, document: JsonValue): boolean {
  const list = celDocumentList(document);
  if (!list) return false;
  const object = document as KubeObject;
  documents[list].push({ ...object, metadata: isObject(object.metadata) ? object.metadata : {} });
  return true;
}

export function mergeCelDocuments(...all: CelDocuments[]): CelDocuments {
  const out = emptyCelDocuments();
  for (const documents of all)
    for (const key of Object.keys(out) as (keyof CelDocuments)[]) out[key].push(...documents[key]);
  return out;
}

/** The kind and name of every policy among the documents (not exceptions or bindings). */
export function celPolicyNames(documents: CelDocuments): Set<string> {
  const names = new Set<string>();
  for (const policy of [
    ...documents.validatingPolicies,
    ...documents.imageValidatingPolicies,
    ...documents.mutatingPolicies,
    ...documents.generatingPolicies,
    ...documents.deletingPolicies,
    ...documents.validatingAdmissionPolicies,
    ...documents.mutatingAdmissionPolicies,
    ...documents.unsupported,
  ]) {
    const { name, namespace } = policy.metadata;
    if (name) names.add(name);
    if (name && namespace) names.add(`${namespace}/${name}`);
  }
  return names;
}

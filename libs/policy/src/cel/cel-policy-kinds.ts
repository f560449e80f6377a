/**
 * The CEL policy kinds the cluster's CEL cache holds, by family: validating, image validating,
 * mutating and generating (each with its Namespaced form). DeletingPolicies are the cleanup
 * controller's and are not held here.
 */
export type ValidatingPolicyKind = 'ValidatingPolicy' | 'NamespacedValidatingPolicy';
export type ImagePolicyKind = 'ImageValidatingPolicy' | 'NamespacedImageValidatingPolicy';
export type MutatingPolicyKind = 'MutatingPolicy' | 'NamespacedMutatingPolicy';
export type GeneratingPolicyKind = 'GeneratingPolicy' | 'NamespacedGeneratingPolicy';

export type CelPolicyKind = ValidatingPolicyKind | ImagePolicyKind | MutatingPolicyKind | GeneratingPolicyKind;

export const CEL_POLICY_KINDS: readonly CelPolicyKind[] = [
  'ValidatingPolicy',
  'NamespacedValidatingPolicy',
  'ImageValidatingPolicy',
  'NamespacedImageValidatingPolicy',
  'MutatingPolicy',
  'NamespacedMutatingPolicy',
  'GeneratingPolicy',
  'NamespacedGeneratingPolicy',
];

export function isValidatingPolicyKind(kind: string): kind is ValidatingPolicyKind {
  return kind === 'ValidatingPolicy' || kind === 'NamespacedValidatingPolicy';
}

export function isImagePolicyKind(kind: string): kind is ImagePolicyKind {
  return kind === 'ImageValidatingPolicy' || kind === 'NamespacedImageValidatingPolicy';
}

export function isMutatingPolicyKind(kind: string): kind is MutatingPolicyKind {
  return kind === 'MutatingPolicy' || kind === 'NamespacedMutatingPolicy';
}

export function isGeneratingPolicyKind(kind: string): kind is GeneratingPolicyKind {
  return kind === 'GeneratingPolicy' || kind === 'NamespacedGeneratingPolicy';
}

/** Whether policies of the kind live in a namespace (and apply only there). */
export function isNamespacedCelPolicyKind(kind: CelPolicyKind): boolean {
  return kind.startsWith('Namespaced');
}

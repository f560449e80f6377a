/** The CEL policy kinds the cluster's CEL cache holds. */
export type CelPolicyKind =
  'ValidatingPolicy' | 'NamespacedValidatingPolicy' | 'ImageValidatingPolicy' | 'NamespacedImageValidatingPolicy';

export type ImagePolicyKind = 'ImageValidatingPolicy' | 'NamespacedImageValidatingPolicy';

export function isImagePolicyKind(kind: string): kind is ImagePolicyKind {
  return kind === 'ImageValidatingPolicy' || kind === 'NamespacedImageValidatingPolicy';
}

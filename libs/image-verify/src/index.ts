// @edict/image-verify: Cosign, Sigstore bundle and Notary verification of container images, shared by
// classic verifyImages rules and ImageValidatingPolicies. Pure: registries are reached through OciReader.
export type { OciDescriptor, OciManifest, OciReader } from './ports';
export {
  parseImageRef,
  type AttestationVerification,
  type CosignVerifier,
  type ImageRef,
  type KeylessIdentity,
  type NotaryVerifier,
  type SignatureVerification,
  type TrustedRootSource,
  type VerifiedSignature,
  type VerifierSpec,
  type VerifyOptions,
} from './model';
export { ImageVerificationError } from './errors';
export { VerificationCache } from './cache/verification-cache';
export { verifyImageAttestations, verifyImageSignatures } from './verify';
export { NOTARY_SIGNATURE_ARTIFACT_TYPE } from './notary';
export { SIGSTORE_BUNDLE_ARTIFACT_TYPE_PREFIX } from './sigstore-bundle';
export { parseTrustedRoot } from './tuf';

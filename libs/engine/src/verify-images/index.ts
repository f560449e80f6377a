// verifyImages area: Kyverno's classic image verification rules (Cosign, Sigstore bundles, Notary
// through @edict/image-verify), their digest and annotation patches and the validate-side checks.
export {
  hasVerifyImages,
  hasVerifyImageChecks,
  verifyImagesFailureAction,
  verifyImagesRule,
  verifications,
  type ImageRuleDependencies,
  type ImageRuleOutcome,
} from './verify-rule';
export { validateImages } from './validate-images';
export {
  IMAGE_VERIFY_ANNOTATION,
  VerifiedImages,
  readVerifiedImages,
  verifiedAnnotationChanged,
  type ImageVerificationStatus,
} from './annotation';
export { readImageVerification, requiredCount, type ImageVerification, type AttestorSet, type Attestor } from './spec';
export { UnsupportedAttestorError, rootedVerifier, type TrustedRootLoader } from './verifier-spec';
export { imageVerificationProblems } from './policy-checks';
export { applyImagePatches, type ImagePatchOutcome } from './apply-patches';

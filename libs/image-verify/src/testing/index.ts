// @edict/image-verify/testing: keys, signers and trust material for specs and the local signing tool.
export type { OciWriter } from './oci-writer';
export { generateKeyPair, type TestKeyKind } from './keys';
export { InMemoryOci } from './in-memory-oci';
export { pushImage } from './push-image';
export {
  createTestCa,
  EKU_CODE_SIGNING,
  EKU_SERVER_AUTH,
  EKU_TIME_STAMPING,
  type CaOptions,
  type IssueOptions,
  type TestCa,
  type TestCertificate,
  type TestCertKeyKind,
} from './x509-ca';
export { notationAttest, notationSign, type NotationSignOptions } from './notation';
export {
  createSigstoreTestTrust,
  rfc3161Timestamp,
  sigstoreBundleSign,
  SIGSTORE_BUNDLE_V03,
  type SigstoreBundleSignOptions,
  type SigstoreTestTrust,
} from './sigstore-bundle';
export { cosignAttest, cosignSign, type CosignAttestOptions, type CosignSignOptions } from './cosign-sign';
export {
  createTestTrustMaterial,
  derToPem,
  testTrustMaterial,
  type TestClocks,
  type TestTrustMaterial,
} from './trust-material';

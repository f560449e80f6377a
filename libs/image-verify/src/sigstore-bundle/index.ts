export { verifyBundleAttestations, verifyBundleSignatures } from './verify-bundles';
export { SIGSTORE_BUNDLE_ARTIFACT_TYPE_PREFIX } from './fetch-bundles';

export { verifyNotaryAttestations, verifyNotarySignatures } from './verify-notary';
export { NOTARY_SIGNATURE_ARTIFACT_TYPE } from './constants';

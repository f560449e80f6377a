export { verifyCosignAttestations } from './verify-attestations';
export { verifyCosignSignatures } from './verify-signatures';

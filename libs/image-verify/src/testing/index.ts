// @edict/image-verify/testing: keys, signers and trust material for specs and the local signing tool.
export type { OciWriter } from './oci-writer';
export { generateKeyPair, type TestKeyKind } from './keys';
export { InMemoryOci } from './in-memory-oci';
export { pushImage } from './push-image';

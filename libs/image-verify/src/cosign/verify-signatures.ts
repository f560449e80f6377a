import { ImageVerificationError } from '../errors';
import type { CosignVerifier, SignatureVerification, VerifyOptions } from '../model';
import type { OciReader } from '../ports';

export async function verifyCosignSignatures(
  _oci: OciReader,
  _image: string,
  _verifier: CosignVerifier,
  _options: VerifyOptions,
): Promise<SignatureVerification> {
  throw new ImageVerificationError('Cosign signature verification is not built yet');
}

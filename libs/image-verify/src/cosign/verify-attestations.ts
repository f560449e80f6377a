import { ImageVerificationError } from '../errors';
import type { AttestationVerification, CosignVerifier, VerifyOptions } from '../model';
import type { OciReader } from '../ports';

export async function verifyCosignAttestations(
  _oci: OciReader,
  _image: string,
  _predicateType: string,
  _verifier: CosignVerifier,
  _options: VerifyOptions,
): Promise<AttestationVerification> {
  throw new ImageVerificationError('Cosign attestation verification is not built yet');
}

/**
 * The RFC 3161 countersignature of a `notary.x509` signature, checked against the policy's TSA
 * certificates (Kyverno's `tsaCerts`): the token's message imprint is the hash of the envelope's
 * signature, its signer chains to a trusted TSA root, and the time it states is returned.
 * Parsing and the CMS signature check are @sigstore/core's RFC3161Timestamp.
 */
import { ASN1Obj, RFC3161Timestamp } from '@sigstore/core';
import {
  CertificateChainError,
  isSelfSigned,
  parseCertificate,
  publicKeyOf,
  sameCertificate,
  validAt,
  validateTimestampingChain,
  type ParsedCertificate,
} from './cert-chain';
import { withSigningTime } from '../rfc3161-time';

const MAX_CHAIN = 10;

/** Returns the authentic signing time; throws CertificateChainError when the token does not verify. */
export function verifyTimestampToken(token: Uint8Array, signature: Uint8Array, trusted: ParsedCertificate[]): Date {
  let timestamp: RFC3161Timestamp;
  let embedded: ParsedCertificate[];
  try {
    // notation stores the TimeStampToken; RFC3161Timestamp reads a TimeStampResp around it (status 0).
    const response = derSequence(Buffer.concat([Buffer.from([0x30, 0x03, 0x02, 0x01, 0x00]), Buffer.from(token)]));
    timestamp = withSigningTime(RFC3161Timestamp.parse(response as Buffer<ArrayBuffer>));
    embedded = embeddedCertificates(token);
  } catch (error) {
    throw new CertificateChainError(`timestamp countersignature is not an RFC 3161 token: ${(error as Error).message}`);
  }
  const candidates = [...embedded, ...trusted];
  const signer = candidates.find(
    (cert) =>
      Buffer.compare(
        stripSign(Buffer.from(cert.asn.tbsCertificate.serialNumber)),
        stripSign(timestamp.signerSerialNumber),
      ) === 0,
  );
  if (!signer)
    throw new CertificateChainError(
      'timestamp countersignature: the signing TSA certificate is not in the token or the TSA trust store',
    );
  try {
    timestamp.verify(Buffer.from(signature), publicKeyOf(signer));
  } catch (error) {
    throw new CertificateChainError(`timestamp countersignature does not verify: ${(error as Error).message}`);
  }
  const time = timestamp.signingTime;
  const chain = buildChain(signer, candidates);
  if (!chain.some((cert) => trusted.some((t) => sameCertificate(t, cert)))) {
    throw new CertificateChainError(
      'timestamp countersignature: the TSA certificate chain does not lead to a certificate of tsaCerts',
    );
  }
  validateTimestampingChain(chain);
  for (const cert of chain) {
    if (!validAt(cert, time))
      throw new CertificateChainError(
        `TSA certificate with subject "${cert.subject}" was not valid at the timestamp ${time.toISOString()}`,
      );
  }
  return time;
}

function buildChain(leaf: ParsedCertificate, candidates: ParsedCertificate[]): ParsedCertificate[] {
  const chain = [leaf];
  while (!isSelfSigned(chain[chain.length - 1]) && chain.length < MAX_CHAIN) {
    const child = chain[chain.length - 1];
    const parent = candidates.find(
      (c) => c.x509.subject === child.x509.issuer && !chain.includes(c) && child.x509.verify(c.x509.publicKey),
    );
    if (!parent) break;
    chain.push(parent);
  }
  return chain;
}

/** SignedData.certificates ([0] IMPLICIT) of a TimeStampToken. */
function embeddedCertificates(token: Uint8Array): ParsedCertificate[] {
  const contentInfo = ASN1Obj.parseBuffer(Buffer.from(token));
  const signedData = contentInfo.subs[1]?.subs[0];
  const certificates = signedData?.subs.find((sub) => sub.tag.isContextSpecific(0x00));
  return (certificates?.subs ?? []).map((cert, i) =>
    parseCertificate(new Uint8Array(cert.toDER()), `timestamp certificate ${i + 1}`),
  );
}

function derSequence(content: Buffer): Buffer {
  const length = content.length;
  const header =
    length < 0x80
      ? Buffer.from([0x30, length])
      : length < 0x100
        ? Buffer.from([0x30, 0x81, length])
        : length < 0x10000
          ? Buffer.from([0x30, 0x82, length >> 8, length & 0xff])
          : Buffer.from([0x30, 0x83, length >> 16, (length >> 8) & 0xff, length & 0xff]);
  return Buffer.concat([header, content]);
}

function stripSign(serial: Buffer): Buffer {
  let start = 0;
  while (start < serial.length - 1 && serial[start] === 0) start++;
  return serial.subarray(start);
}

export { CertificateChainError };

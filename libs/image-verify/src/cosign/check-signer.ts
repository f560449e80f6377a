/**
 * One cosign signature against the policy's trust, through @sigstore/verify's Verifier: the key or
 * certificate (chain to the roots at the signing time, SCT), the Rekor inclusion promise and its
 * body, RFC 3161 timestamps, the signature itself; then keyless identities and extensions.
 */
import type { TransparencyLogEntry } from '@sigstore/bundle';
import type { X509Certificate } from '@sigstore/core';
import { Verifier, type SignedEntity, type TrustMaterial } from '@sigstore/verify';
import { errorMessage } from '@edict/foundation';
import type { CosignVerifier } from '../model';
import type { Evidence } from './evidence';
import { SctIgnored } from './sct-ignored';
import { certificateIssuer, certificateSubjects, matchExtensions, matchIdentities } from './identity';
import type { CosignTrust } from './trust';

type SignatureContent = SignedEntity['signature'];
type Timestamp = SignedEntity['timestamps'][number];

export interface CheckedSigner {
  verifier: string;
  subject?: string;
  issuer?: string;
}

/** Throws Error with the reason the signature does not verify. */
export function checkSigner(
  content: SignatureContent,
  evidence: Evidence,
  trust: CosignTrust,
  spec: CosignVerifier,
  now: number,
): CheckedSigner {
  const tlogEntries: TransparencyLogEntry[] = [];
  const timestamps: Timestamp[] = [];
  if (!trust.ignoreTlog) {
    if (!evidence.tlogEntry)
      throw new Error('signature has no Rekor bundle to verify offline (rekor.ignoreTlog skips the transparency log)');
    tlogEntries.push(evidence.tlogEntry);
    timestamps.push({ $case: 'transparency-log', tlogEntry: evidence.tlogEntry });
  }
  if (trust.useTimestamps && evidence.timestamp)
    timestamps.push({ $case: 'timestamp-authority', timestamp: evidence.timestamp });

  const mode = trust.mode;
  let certificate: X509Certificate | undefined;
  let material: TrustMaterial = trust.material;
  if (mode.kind === 'keyless') {
    certificate = evidence.certificate;
    if (!certificate) throw new Error('signature has no certificate (keyless)');
    material = withChainIntermediates(material, evidence.chain, mode.roots);
  } else if (mode.kind === 'certificate') {
    certificate = mode.certificate;
  }
  if (certificate && trust.ignoreSCT) certificate = new SctIgnored(certificate.root);
  // Without a transparency log or timestamp time, a certificate must be valid now (as cosign).
  if (certificate && timestamps.length === 0) timestamps.push(nowTimestamp(now));

  const verifier = new Verifier(material, {
    tlogThreshold: trust.ignoreTlog ? 0 : 1,
    ctlogThreshold: certificate && !trust.ignoreSCT ? 1 : 0,
    timestampThreshold: 0,
  });
  const attempts: Array<{ label: string; key: SignedEntity['key'] }> = certificate
    ? [{ label: mode.kind === 'keyless' ? 'keyless' : 'certificate', key: { $case: 'certificate', certificate } }]
    : mode.kind === 'keys'
      ? mode.keys.map((_, i) => ({ label: `publicKeys[${i}]`, key: { $case: 'public-key', hint: String(i) } }))
      : [{ label: 'certificate', key: { $case: 'public-key', hint: '0' } }];

  let lastError = 'no key to verify with';
  for (const attempt of attempts) {
    try {
      verifier.verify({ signature: content, key: attempt.key, tlogEntries, timestamps });
    } catch (error) {
      lastError = describe(error);
      continue;
    }
    const identityCert = certificate ?? (mode.kind === 'certificate-key' ? mode.certificate : undefined);
    if (mode.kind === 'keyless' && certificate) {
      const mismatch =
        matchIdentities(certificate, spec.keyless?.identities ?? [], spec.keyless?.wildcards === true) ??
        matchExtensions(certificate, spec.keyless?.extensions ?? {});
      if (mismatch) throw new Error(mismatch);
    }
    const signer: CheckedSigner = { verifier: attempt.label };
    if (identityCert) {
      const subject = certificateSubjects(identityCert)[0];
      const issuer = certificateIssuer(identityCert);
      if (subject !== undefined) signer.subject = subject;
      if (issuer !== undefined) signer.issuer = issuer;
    }
    return signer;
  }
  throw new Error(lastError);
}

/** A verification time that is not evidence: read only as the date certificates must be valid at. */
function nowTimestamp(now: number): Timestamp {
  const seconds = String(Math.floor(now / 1000));
  return {
    $case: 'transparency-log',
    tlogEntry: {
      logIndex: '0',
      logId: { keyId: Buffer.from('verification-time') },
      kindVersion: { kind: '', version: '' },
      integratedTime: seconds,
      // Only entries with a promise count as times; this one is never among the entries verified.
      inclusionPromise: { signedEntryTimestamp: Buffer.alloc(0) },
      inclusionProof: undefined,
      canonicalizedBody: Buffer.alloc(0),
    },
  };
}

/**
 * The chain annotation's intermediates join the roots only when each is signed by the next and the
 * last by a policy root: an unlinked certificate there must never become trusted.
 */
function withChainIntermediates(
  material: TrustMaterial,
  chain: X509Certificate[],
  roots: X509Certificate[],
): TrustMaterial {
  const intermediates = chain.filter((cert) => !roots.some((root) => root.equals(cert)));
  if (intermediates.length === 0) return material;
  for (let i = 0; i < intermediates.length - 1; i++)
    if (!safeVerify(intermediates[i], intermediates[i + 1])) return material;
  const root = roots.find((candidate) => safeVerify(intermediates[intermediates.length - 1], candidate));
  if (!root) return material;
  return {
    ...material,
    certificateAuthorities: [
      ...material.certificateAuthorities,
      { certChain: [...intermediates, root], validFor: { start: new Date(0), end: new Date(8_640_000_000_000_000) } },
    ],
  };
}

function safeVerify(cert: X509Certificate, issuer: X509Certificate): boolean {
  try {
    return cert.verify(issuer);
  } catch {
    return false;
  }
}

function describe(error: unknown): string {
  const message = errorMessage(error);
  const cause = error instanceof Error && error.cause !== undefined ? errorMessage(error.cause) : '';
  return cause && !message.includes(cause) ? `${message}: ${cause}` : message;
}

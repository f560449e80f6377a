/**
 * What a cosign signature layer carries besides the signature, read from its annotations: the
 * signing certificate and chain, the Rekor bundle (an inclusion promise, as sigstore-go reads old
 * cosign signatures) and the RFC 3161 timestamp.
 */
import type { TransparencyLogEntry } from '@sigstore/bundle';
import { RFC3161Timestamp, type X509Certificate } from '@sigstore/core';
import {
  ANNOTATION_BUNDLE,
  ANNOTATION_CERTIFICATE,
  ANNOTATION_CHAIN,
  ANNOTATION_TIMESTAMP,
  MAX_PAYLOAD_BYTES,
} from './constants';
import { withSigningTime } from '../rfc3161-time';
import { certificatesFromAnnotation } from './pem';

export interface Evidence {
  certificate?: X509Certificate;
  /** Intermediates (and root) from the chain annotation: untrusted until linked to a policy root. */
  chain: X509Certificate[];
  tlogEntry?: TransparencyLogEntry;
  timestamp?: RFC3161Timestamp;
}

/** Reads the annotations; throws Error with a short reason for a malformed one. */
export function evidenceFromAnnotations(annotations: Record<string, string>): Evidence {
  const evidence: Evidence = { chain: [] };
  const cert = annotations[ANNOTATION_CERTIFICATE];
  if (cert) {
    const certificates = certificatesFromAnnotation(cert);
    if (!certificates) throw new Error('the certificate annotation does not hold a PEM certificate');
    evidence.certificate = certificates[0];
  }
  const chain = annotations[ANNOTATION_CHAIN];
  if (chain) {
    const certificates = certificatesFromAnnotation(chain);
    if (!certificates) throw new Error('the chain annotation does not hold PEM certificates');
    evidence.chain = certificates;
  }
  const bundle = annotations[ANNOTATION_BUNDLE];
  if (bundle) evidence.tlogEntry = tlogEntryFromBundle(bundle);
  const timestamp = annotations[ANNOTATION_TIMESTAMP];
  if (timestamp) evidence.timestamp = timestampFromAnnotation(timestamp);
  return evidence;
}

function parseJson(text: string, what: string): Record<string, unknown> {
  if (text.length > MAX_PAYLOAD_BYTES) throw new Error(`the ${what} annotation is too large`);
  try {
    const value: unknown = JSON.parse(text);
    if (value && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // reported below
  }
  throw new Error(`the ${what} annotation is not a JSON object`);
}

/** cosign's `{"SignedEntryTimestamp", "Payload": {body, integratedTime, logIndex, logID}}`. */
function tlogEntryFromBundle(text: string): TransparencyLogEntry {
  const bundle = parseJson(text, 'bundle');
  const payload = bundle.Payload as Record<string, unknown> | undefined;
  const set = bundle.SignedEntryTimestamp;
  if (
    typeof set !== 'string' ||
    !payload ||
    typeof payload.body !== 'string' ||
    typeof payload.integratedTime !== 'number' ||
    typeof payload.logIndex !== 'number' ||
    typeof payload.logID !== 'string' ||
    !/^[0-9a-f]+$/i.test(payload.logID)
  )
    throw new Error(
      'the bundle annotation is not a Rekor bundle (SignedEntryTimestamp, Payload.body/integratedTime/logIndex/logID)',
    );
  const body = Buffer.from(payload.body, 'base64');
  let kind: unknown;
  let version: unknown;
  try {
    ({ kind, apiVersion: version } = JSON.parse(body.toString('utf8')) as Record<string, unknown>);
  } catch {
    throw new Error('the Rekor bundle body is not JSON');
  }
  if (typeof kind !== 'string' || typeof version !== 'string')
    throw new Error('the Rekor bundle body has no kind/apiVersion');
  return {
    logIndex: String(payload.logIndex),
    logId: { keyId: Buffer.from(payload.logID, 'hex') },
    kindVersion: { kind, version },
    integratedTime: String(payload.integratedTime),
    inclusionPromise: { signedEntryTimestamp: Buffer.from(set, 'base64') },
    inclusionProof: undefined,
    canonicalizedBody: body,
  };
}

/** cosign's `{"SignedRFC3161Timestamp": base64 TimeStampResp}`. */
function timestampFromAnnotation(text: string): RFC3161Timestamp {
  const value = parseJson(text, 'RFC 3161 timestamp').SignedRFC3161Timestamp;
  if (typeof value !== 'string') throw new Error('the RFC 3161 timestamp annotation has no SignedRFC3161Timestamp');
  try {
    return withSigningTime(RFC3161Timestamp.parse(Buffer.from(value, 'base64')));
  } catch {
    throw new Error('the RFC 3161 timestamp does not parse');
  }
}

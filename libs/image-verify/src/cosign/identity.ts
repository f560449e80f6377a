/**
 * Keyless identities and Fulcio extensions (cosign's CheckCertificatePolicy and Kyverno's
 * additional extensions): who signed, by which OIDC issuer, from which workflow.
 */
import type { X509Certificate } from '@sigstore/core';
import { compileGoRegexp, errorMessage, wildcardMatch } from '@edict/foundation';
import { ImageVerificationError } from '../errors';
import type { KeylessIdentity } from '../model';
import { MAX_REGEXP_LENGTH } from './constants';

const FULCIO = '1.3.6.1.4.1.57264.1';
/** Fulcio's extensions by name; `.1` to `.6` hold raw text, `.8` onwards a DER UTF8String. */
export const FULCIO_EXTENSIONS: Readonly<Record<string, string>> = {
  oidcIssuer: `${FULCIO}.1`,
  githubWorkflowTrigger: `${FULCIO}.2`,
  githubWorkflowSha: `${FULCIO}.3`,
  githubWorkflowName: `${FULCIO}.4`,
  githubWorkflowRepository: `${FULCIO}.5`,
  githubWorkflowRef: `${FULCIO}.6`,
  issuer: `${FULCIO}.8`,
  buildSignerURI: `${FULCIO}.9`,
  buildSignerDigest: `${FULCIO}.10`,
  runnerEnvironment: `${FULCIO}.11`,
  sourceRepositoryURI: `${FULCIO}.12`,
  sourceRepositoryDigest: `${FULCIO}.13`,
  sourceRepositoryRef: `${FULCIO}.14`,
  sourceRepositoryIdentifier: `${FULCIO}.15`,
  sourceRepositoryOwnerURI: `${FULCIO}.16`,
  sourceRepositoryOwnerIdentifier: `${FULCIO}.17`,
  buildConfigURI: `${FULCIO}.18`,
  buildConfigDigest: `${FULCIO}.19`,
  buildTrigger: `${FULCIO}.20`,
  runInvocationURI: `${FULCIO}.21`,
  sourceRepositoryVisibilityAtSigning: `${FULCIO}.22`,
};
const LEGACY_TEXT = new Set(['1', '2', '3', '4', '5', '6'].map((n) => `${FULCIO}.${n}`));

/** Checks the policy's identity patterns once, before any registry call. */
export function checkIdentities(identities: readonly KeylessIdentity[]): void {
  identities.forEach((identity, i) => {
    for (const key of ['subjectRegExp', 'issuerRegExp'] as const) {
      const pattern = identity[key];
      if (!pattern) continue;
      const field = `keyless.identities[${i}].${key}`;
      if (pattern.length > MAX_REGEXP_LENGTH)
        throw new ImageVerificationError(`is longer than ${MAX_REGEXP_LENGTH} characters`, { field });
      try {
        compileGoRegexp(pattern);
      } catch (error) {
        throw new ImageVerificationError(errorMessage(error), { field });
      }
    }
  });
}

/** The certificate's subject alternative names (email, URI, other names as cosign lists them). */
export function certificateSubjects(certificate: X509Certificate): string[] {
  const san = certificate.extSubjectAltName;
  if (!san) return [];
  const names: string[] = [];
  try {
    for (const name of san.valueObj.subs[0]?.subs ?? []) {
      // rfc822Name (1), DNS (2), URI (6) are text; otherName (0) holds e.g. Fulcio's username.
      if (name.tag.isContextSpecific(1) || name.tag.isContextSpecific(2) || name.tag.isContextSpecific(6))
        names.push(name.value.toString('utf8'));
      else if (name.tag.isContextSpecific(0)) {
        const value = name.subs[1]?.subs[0]?.value;
        if (value) names.push(value.toString('utf8'));
      }
    }
  } catch {
    // an unreadable SAN names nobody
  }
  return names;
}

/** An extension's value as text, or undefined when absent. */
export function extensionValue(certificate: X509Certificate, oid: string): string | undefined {
  const extension = certificate.extension(oid);
  if (!extension) return undefined;
  const value = extension.value;
  if (LEGACY_TEXT.has(oid) || value[0] !== 0x0c) return value.toString('utf8');
  // DER UTF8String: tag, length (short or long form), bytes.
  let offset = 2;
  let length = value[1];
  if (length & 0x80) {
    const count = length & 0x7f;
    length = 0;
    for (let i = 0; i < count; i++) length = length * 256 + value[2 + i];
    offset = 2 + count;
  }
  return value.subarray(offset, offset + length).toString('utf8');
}

/** The OIDC issuer: the v2 extension (DER) when present, else the legacy one. */
export function certificateIssuer(certificate: X509Certificate): string | undefined {
  return (
    extensionValue(certificate, FULCIO_EXTENSIONS.issuer) ?? extensionValue(certificate, FULCIO_EXTENSIONS.oidcIssuer)
  );
}

/** cosign's identity rule: any identity whose issuer and subject (exact, else RE2 unanchored) match. */
export function matchIdentities(
  certificate: X509Certificate,
  identities: readonly KeylessIdentity[],
  wildcards = false,
): string | undefined {
  if (identities.length === 0) return undefined;
  const subjects = certificateSubjects(certificate);
  const issuer = certificateIssuer(certificate) ?? '';
  // Kyverno's classic keyless entries match subject and issuer as wildcards; cosign compares exactly.
  const same = wildcards
    ? (expected: string, actual: string) => wildcardMatch(expected, actual)
    : (expected: string, actual: string) => expected === actual;
  for (const identity of identities) {
    const issuerMatches = identity.issuer
      ? same(identity.issuer, issuer)
      : identity.issuerRegExp
        ? compileGoRegexp(identity.issuerRegExp).test(issuer)
        : true;
    const subjectMatches = identity.subject
      ? subjects.some((subject) => same(identity.subject as string, subject))
      : identity.subjectRegExp
        ? subjects.some((subject) => compileGoRegexp(identity.subjectRegExp as string).test(subject))
        : true;
    if (issuerMatches && subjectMatches) return undefined;
  }
  return `none of the expected identities matched what was in the certificate, got subjects [${subjects.join(', ')}] with issuer ${issuer}`;
}

/** Kyverno's additional extensions: each (by name or OID) present, and matching its wildcard when not empty. */
export function matchExtensions(
  certificate: X509Certificate,
  required: Readonly<Record<string, string>>,
): string | undefined {
  for (const [key, expected] of Object.entries(required)) {
    const oid = Object.hasOwn(FULCIO_EXTENSIONS, key) ? FULCIO_EXTENSIONS[key] : key;
    const actual = extensionValue(certificate, oid);
    if (actual === undefined) return `extension ${key} not present`;
    if (expected !== '' && !wildcardMatch(expected, actual))
      return `extension mismatch: expected ${expected} for key ${key}, got ${actual}`;
  }
  return undefined;
}

import { isObject, type JsonValue } from '@edict/foundation';
import type { Policy, Rule } from '../policy/types';
import { readAttestorSet, readImageVerification, type Attestor, type AttestorSet } from './spec';

export interface ImageVerificationProblem {
  /** Below the rule: `['verifyImages', i, ...]`. */
  readonly path: readonly (string | number)[];
  readonly message: string;
}

const SIGNATURE_ALGORITHMS = new Set(['', 'sha224', 'sha256', 'sha384', 'sha512']);

/**
 * Kyverno's ImageVerification.Validate as its policy webhook runs it, per verifyImages entry:
 * `mutateDigest` refused under Audit, an image reference required, attestor sets with entries and a
 * count within them, each entry exactly one of keys/certificates/keyless/attestor (nested sets
 * checked alike), key, certificate and keyless settings complete, Notary without keys or keyless.
 */
export function imageVerificationProblems(policy: Policy, rule: Rule): ImageVerificationProblem[] {
  const problems: ImageVerificationProblem[] = [];
  const policyAudit = isAudit(policy.spec?.validationFailureAction ?? 'Audit');
  (rule.verifyImages ?? []).forEach((raw, index) => {
    const at = ['verifyImages', index];
    const entry = isObject(raw) ? raw : {};
    const action = entry['failureAction'];
    const audit = typeof action === 'string' ? isAudit(action) : policyAudit;
    const verification = readImageVerification(raw);
    if (audit && verification.mutateDigest) {
      problems.push({
        path: [...at, 'mutateDigest'],
        message: 'mutateDigest must be set to false for ‘Audit’ failure action',
      });
    }
    if (verification.imageReferences.length === 0)
      problems.push({ path: at, message: 'An image reference is required' });
    verification.attestations.forEach((attestation, i) => {
      attestation.attestors.forEach((set, j) =>
        checkAttestorSet(set, [...at, 'attestations', i, 'attestors', j], problems),
      );
    });
    verification.attestors.forEach((set, i) => checkAttestorSet(set, [...at, 'attestors', i], problems));
    if (verification.type === 'Notary') {
      for (const set of verification.attestors) {
        for (const attestor of set.entries) {
          if (attestor.keyless)
            problems.push({ path: [...at, 'attestors'], message: 'Keyless field is not allowed for type notary' });
          if (attestor.keys)
            problems.push({ path: [...at, 'attestors'], message: 'Keys field is not allowed for type notary' });
        }
      }
    }
  });
  return problems;
}

function checkAttestorSet(set: AttestorSet, path: (string | number)[], problems: ImageVerificationProblem[]): void {
  if (set.count !== undefined && set.count > set.entries.length) {
    problems.push({ path, message: 'Count cannot exceed length of entries' });
  }
  if (set.entries.length === 0) problems.push({ path, message: 'An entry is required' });
  set.entries.forEach((entry, i) => checkAttestor(entry, [...path, 'entries', i], problems));
}

function checkAttestor(attestor: Attestor, path: (string | number)[], problems: ImageVerificationProblem[]): void {
  const kinds = [attestor.keys, attestor.certificates, attestor.keyless, attestor.attestor].filter(
    (value) => value !== undefined,
  ).length;
  if (kinds !== 1) problems.push({ path, message: 'keys, certificates, keyless, or a nested attestor is required' });
  const keys = attestor.keys;
  if (keys) {
    if (!keys.publicKeys && !keys.kms && !keys.secret) {
      problems.push({ path: [...path, 'keys'], message: 'A public key, kms key or secret is required' });
    }
    if (keys.publicKeys && !SIGNATURE_ALGORITHMS.has(keys.signatureAlgorithm ?? '')) {
      problems.push({ path: [...path, 'keys'], message: 'Invalid signature algorithm provided' });
    }
  }
  if (attestor.certificates && !attestor.certificates.cert && !attestor.certificates.certChain) {
    problems.push({ path: [...path, 'certificates'], message: 'cert or certChain required' });
  }
  const keyless = attestor.keyless;
  if (keyless) {
    if (!keyless.rekor && !keyless.roots) {
      problems.push({ path: [...path, 'keyless'], message: 'Either Rekor URL or roots are required' });
    }
    if (keyless.rekor && !keyless.rekor.url)
      problems.push({ path: [...path, 'keyless'], message: 'An URL is required' });
  }
  if (attestor.attestor !== undefined) {
    const nested = attestor.attestor as JsonValue;
    if (!isObject(nested)) {
      problems.push({ path: [...path, 'attestor'], message: 'failed to unmarshal attestor set: not an object' });
    } else {
      checkAttestorSet(readAttestorSet(nested), [...path, 'attestor'], problems);
    }
  }
}

function isAudit(action: string): boolean {
  return action.toLowerCase() === 'audit';
}

/**
 * What Edict does not run yet, found at install time so the policy is refused rather than
 * published unenforced: KMS keys and cloud credential helpers (`imageRegistryCredentials.providers`).
 */
export function unsupportedImageVerification(rule: Rule): ImageVerificationProblem[] {
  const problems: ImageVerificationProblem[] = [];
  (rule.verifyImages ?? []).forEach((raw, index) => {
    const verification = readImageVerification(raw);
    const at = ['verifyImages', index];
    if ((verification.imageRegistryCredentials?.providers ?? []).length > 0) {
      problems.push({
        path: [...at, 'imageRegistryCredentials', 'providers'],
        message: 'cloud credential providers are not supported by Edict (use imageRegistryCredentials.secrets)',
      });
    }
    const visit = (set: AttestorSet, path: (string | number)[]): void =>
      set.entries.forEach((entry, i) => {
        if (entry.keys?.kms && !entry.keys.publicKeys) {
          problems.push({
            path: [...path, 'entries', i, 'keys', 'kms'],
            message: 'KMS keys are not supported by Edict',
          });
        }
        if (isObject(entry.attestor as JsonValue))
          visit(readAttestorSet(entry.attestor as JsonValue), [...path, 'entries', i, 'attestor']);
      });
    verification.attestors.forEach((set, i) => visit(set, [...at, 'attestors', i]));
    verification.attestations.forEach((a, i) =>
      a.attestors.forEach((set, j) => visit(set, [...at, 'attestations', i, 'attestors', j])),
    );
  });
  return problems;
}

import { isObject, type KubeObject } from '@edict/foundation';
import { errorKind } from './errors';
import { formatDiff } from './diff';
import type { IgnoreFieldBinding } from './ignore-fields';
import type { KeySource } from './signature';
import { parseAttestorSet, type Attestor, type AttestorSet } from './spec';
import { verifyResource } from './verify-resource';

/** What every entry of a rule shares. `bundleRef` is shared state: an entry's `repository` stays set for the next entries, as in Kyverno. */
export interface AttestorContext {
  domain: string;
  bindings: readonly IgnoreFieldBinding[];
  shared: { bundleRef: string };
}

export interface AttestorOutcome {
  verified: boolean;
  reason: string;
}

const PEM_PUBLIC_KEY = '-----BEGIN PUBLIC KEY-----';
const PEM_PGP_KEY = '-----BEGIN PGP PUBLIC KEY BLOCK-----';
const PEM_END = '-----END PUBLIC KEY-----';

/**
 * Kyverno's attestor-set check: entries are tried in order until `count` of them verified (all of
 * them when `count` is absent or 0). Returns a fail when too few verified and none errored; throws
 * when too few verified and some entry errored (the rule then answers `error`).
 */
export function verifyAttestorSet(
  object: KubeObject,
  set: AttestorSet,
  context: AttestorContext,
  path: string,
): AttestorOutcome {
  const expanded = expandStaticKeys(set);
  const required = expanded.count ? expanded.count : expanded.entries.length;
  const errors: string[] = [];
  const verifiedReasons: string[] = [];
  const failedReasons: string[] = [];
  for (const [i, entry] of expanded.entries.entries()) {
    const entryPath = `${path}.entries[${i}]`;
    try {
      const outcome = verifyEntry(object, entry, context, entryPath);
      (outcome.verified ? verifiedReasons : failedReasons).push(outcome.reason);
    } catch (error) {
      errors.push((error as Error).message);
    }
    if (verifiedReasons.length >= required) {
      return {
        verified: true,
        reason: `manifest verification succeeded; verifiedCount ${verifiedReasons.length}; requiredCount ${required}; message ${verifiedReasons.join(',')}`,
      };
    }
  }
  if (errors.length > 0) throw new Error(errors.join('; '));
  return {
    verified: false,
    reason: `manifest verification failed; verifiedCount ${verifiedReasons.length}; requiredCount ${required}; message ${failedReasons.join(',')}`,
  };
}

function verifyEntry(object: KubeObject, entry: Attestor, context: AttestorContext, path: string): AttestorOutcome {
  if (entry.attestor !== undefined) {
    let nested: AttestorSet;
    try {
      nested = parseAttestorSet(entry.attestor, `${path}.attestor`);
    } catch (error) {
      throw new Error(`failed to unmarshal nested attestor ${path}: ${(error as Error).message}`);
    }
    const nestedPath = `${path}.attestor`;
    try {
      return verifyAttestorSet(object, nested, context, nestedPath);
    } catch (error) {
      throw new Error(`failed to verify signature; ${nestedPath}: ${(error as Error).message}`);
    }
  }
  if (entry.annotations) checkAnnotations(object, entry.annotations);
  const { subPath, key } = keyOf(entry);
  if (entry.repository) context.shared.bundleRef = entry.repository;
  const where = `${path}${subPath}`;
  let result;
  try {
    result = verifyResource(object, {
      domain: context.domain,
      bindings: context.bindings,
      bundleRef: context.shared.bundleRef,
      key,
    });
  } catch (error) {
    // An unsigned resource fails the entry; anything else is an error of the rule.
    const kind = errorKind(error);
    const text = `${where}: ${(error as Error).message}`;
    if (kind === 'message-not-found' || kind === 'signature-not-found') return { verified: false, reason: text };
    throw new Error(text);
  }
  if (result.verified) return { verified: true, reason: `singed by a valid signer: ${result.signer}` };
  if (result.diff && result.diff.length > 0) {
    return { verified: false, reason: `${where}: failed to verify signature. diff found; ${formatDiff(result.diff)}` };
  }
  if (result.signer !== '')
    return { verified: false, reason: `${where}: no signer matches with this resource. signed by ${result.signer}` };
  return { verified: false, reason: `${where}: failed to verify signature.` };
}

/**
 * Where the entry's key comes from. Kyverno hands `publicKeys` to cosign inline only when the text
 * starts with a PEM header; anything else is loaded as a key reference (file, secret, KMS), and an
 * empty value means keyless verification.
 */
function keyOf(entry: Attestor): { subPath: string; key: KeySource } {
  if (entry.keys) {
    const text = entry.keys.publicKeys;
    if (text.startsWith(PEM_PUBLIC_KEY)) return { subPath: '.keys', key: { kind: 'pem', pem: text } };
    if (text.startsWith(PEM_PGP_KEY)) return { subPath: '.keys', key: { kind: 'pgp' } };
    if (text.trim() === '') return { subPath: '.keys', key: { kind: 'keyless' } };
    return { subPath: '.keys', key: { kind: 'reference', reference: text } };
  }
  if (entry.certificates) return { subPath: '.certificates', key: { kind: 'certificate' } };
  return { subPath: entry.keyless ? '.keyless' : '', key: { kind: 'keyless' } };
}

function checkAnnotations(object: KubeObject, expected: Readonly<Record<string, string>>): void {
  const metadata = isObject(object.metadata) ? object.metadata : {};
  const actual = isObject(metadata.annotations) ? metadata.annotations : {};
  for (const [key, value] of Object.entries(expected)) {
    const found = typeof actual[key] === 'string' ? (actual[key] as string) : '';
    if (found !== value)
      throw new Error(`annotations mismatch: ${found} does not match expected value ${value} for key ${key}`);
  }
}

/**
 * Several PEM keys in one `publicKeys` string become one entry each (same other settings), so that
 * `count` counts keys. Pieces keep the text between keys (a leading newline), as Kyverno's split does.
 */
export function expandStaticKeys(set: AttestorSet): AttestorSet {
  const entries = set.entries.flatMap((entry) => {
    if (!entry.keys) return [entry];
    const keys = splitPem(entry.keys.publicKeys);
    if (keys.length <= 1) return [entry];
    return keys.map((publicKeys) => ({ ...entry, keys: { ...entry.keys, publicKeys } }));
  });
  return { ...set, entries };
}

function splitPem(text: string): string[] {
  const pieces: string[] = [];
  let start = 0;
  for (let end = text.indexOf(PEM_END); end >= 0; end = text.indexOf(PEM_END, start)) {
    pieces.push(text.slice(start, end + PEM_END.length));
    start = end + PEM_END.length;
  }
  return pieces;
}

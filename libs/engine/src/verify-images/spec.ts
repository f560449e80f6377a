import { isObject, type JsonObject, type JsonValue } from '@edict/foundation';
import type { Conditions, ImageRegistryCredentials } from '../policy/types';

/**
 * Kyverno's `verifyImages[]` entry (api/kyverno/v1 ImageVerification) read from the policy's JSON,
 * with the CRD's defaults applied (`mutateDigest`, `verifyDigest`, `required`, `useCache` are true
 * unless written false) and the deprecated top-level fields (`image`, `key`, `roots`, `subject`,
 * `issuer`, `additionalExtensions`) converted to attestors, as Kyverno's `Convert` does.
 */
export interface ImageVerification {
  readonly type: 'Cosign' | 'SigstoreBundle' | 'Notary';
  readonly imageReferences: readonly string[];
  readonly skipImageReferences: readonly string[];
  readonly attestors: readonly AttestorSet[];
  readonly attestations: readonly Attestation[];
  readonly repository?: string;
  /** Cosign signatures are looked for as OCI 1.1 referrers first (then in the `.sig` tag). */
  readonly cosignOCI11: boolean;
  readonly annotations?: Readonly<Record<string, string>>;
  readonly roots?: string;
  readonly mutateDigest: boolean;
  readonly verifyDigest: boolean;
  readonly required: boolean;
  readonly useCache: boolean;
  readonly imageRegistryCredentials?: ImageRegistryCredentials;
  readonly validate?: { readonly deny?: { readonly conditions?: Conditions }; readonly message?: string };
}

export interface AttestorSet {
  /** Entries that must verify; undefined (or 0) means all of them. */
  readonly count?: number;
  readonly entries: readonly Attestor[];
}

export interface TransparencyLog {
  readonly url?: string;
  readonly pubkey?: string;
  readonly ignoreTlog?: boolean;
}

export interface CertificateLog {
  readonly ignoreSCT?: boolean;
  readonly pubkey?: string;
  readonly tsaCertChain?: string;
}

export interface Attestor {
  readonly keys?: {
    readonly publicKeys?: string;
    readonly secret?: { readonly name: string; readonly namespace: string };
    readonly kms?: string;
    readonly signatureAlgorithm?: string;
    readonly rekor?: TransparencyLog;
    readonly ctlog?: CertificateLog;
  };
  readonly certificates?: {
    readonly cert?: string;
    readonly certChain?: string;
    readonly rekor?: TransparencyLog;
    readonly ctlog?: CertificateLog;
  };
  readonly keyless?: {
    readonly subject?: string;
    readonly subjectRegExp?: string;
    readonly issuer?: string;
    readonly issuerRegExp?: string;
    readonly roots?: string;
    readonly additionalExtensions?: Readonly<Record<string, string>>;
    readonly rekor?: TransparencyLog;
    readonly ctlog?: CertificateLog;
  };
  /** A nested attestor set, kept as JSON as Kyverno keeps it (decoded when verified). */
  readonly attestor?: JsonValue;
  readonly repository?: string;
  readonly annotations?: Readonly<Record<string, string>>;
}

export interface Attestation {
  /** The in-toto predicate type (`type`, or the deprecated `predicateType`). */
  readonly type: string;
  readonly name?: string;
  readonly attestors: readonly AttestorSet[];
  readonly conditions?: readonly Conditions[];
}

const TYPES = new Set(['Cosign', 'SigstoreBundle', 'Notary']);

/** Reads one `verifyImages` entry; shapes that are not objects read as empty (policy validation reports them). */
export function readImageVerification(raw: JsonValue): ImageVerification {
  const entry = isObject(raw) ? raw : {};
  const type = typeof entry['type'] === 'string' && TYPES.has(entry['type']) ? entry['type'] : 'Cosign';
  const imageReferences = strings(entry['imageReferences']);
  const image = text(entry['image']);
  if (image && imageReferences.length === 0) imageReferences.push(image);
  const attestors = list(entry['attestors']).map(readAttestorSet);
  const attestations = list(entry['attestations']).map(readAttestation);
  // Kyverno's Convert: the deprecated key/issuer fields (and top-level annotations with them) become
  // one attestor set, added to each attestation when there are attestations, else to the attestors.
  const key = text(entry['key']);
  const issuer = text(entry['issuer']);
  const roots = text(entry['roots']);
  const annotations = stringMap(entry['annotations']);
  const converting = Boolean(image || key || issuer);
  if (converting && ((annotations && Object.keys(annotations).length > 0) || key || issuer)) {
    const attestor: Attestor = {
      annotations,
      keys: key ? { publicKeys: key } : undefined,
      keyless: !key && issuer ? { issuer, subject: text(entry['subject']), roots } : undefined,
    };
    const set: AttestorSet = { entries: [attestor] };
    if (attestations.length > 0) {
      for (let i = 0; i < attestations.length; i++) {
        attestations[i] = { ...attestations[i]!, attestors: [...attestations[i]!.attestors, set] };
      }
    } else attestors.push(set);
  }
  const validate = isObject(entry['validate']) ? entry['validate'] : undefined;
  const deny = validate && isObject(validate['deny']) ? validate['deny'] : undefined;
  return {
    type: type as ImageVerification['type'],
    imageReferences,
    skipImageReferences: strings(entry['skipImageReferences']),
    attestors,
    attestations,
    repository: text(entry['repository']),
    cosignOCI11: entry['cosignOCI11'] === true,
    annotations,
    roots: converting ? undefined : roots,
    mutateDigest: entry['mutateDigest'] !== false,
    verifyDigest: entry['verifyDigest'] !== false,
    required: entry['required'] !== false,
    useCache: entry['useCache'] !== false,
    imageRegistryCredentials: isObject(entry['imageRegistryCredentials'])
      ? (entry['imageRegistryCredentials'] as ImageRegistryCredentials)
      : undefined,
    validate: validate
      ? {
          deny: deny ? { conditions: deny['conditions'] as Conditions | undefined } : undefined,
          message: text(validate['message']),
        }
      : undefined,
  };
}

export function readAttestorSet(raw: JsonValue): AttestorSet {
  const set = isObject(raw) ? raw : {};
  const count = typeof set['count'] === 'number' ? set['count'] : undefined;
  return { count, entries: list(set['entries']).map(readAttestor) };
}

/** Kyverno's RequiredCount: every entry unless a positive count is given. */
export function requiredCount(set: AttestorSet): number {
  return set.count === undefined || set.count === 0 ? set.entries.length : set.count;
}

function readAttestor(raw: JsonValue): Attestor {
  const entry = isObject(raw) ? raw : {};
  const keys = isObject(entry['keys']) ? entry['keys'] : undefined;
  const certificates = isObject(entry['certificates']) ? entry['certificates'] : undefined;
  const keyless = isObject(entry['keyless']) ? entry['keyless'] : undefined;
  const secret = keys && isObject(keys['secret']) ? keys['secret'] : undefined;
  return {
    keys: keys && {
      publicKeys: text(keys['publicKeys']),
      secret: secret && { name: text(secret['name']) ?? '', namespace: text(secret['namespace']) ?? '' },
      kms: text(keys['kms']),
      signatureAlgorithm: text(keys['signatureAlgorithm']),
      rekor: readRekor(keys['rekor']),
      ctlog: readCtlog(keys['ctlog']),
    },
    certificates: certificates && {
      cert: text(certificates['cert']),
      certChain: text(certificates['certChain']),
      rekor: readRekor(certificates['rekor']),
      ctlog: readCtlog(certificates['ctlog']),
    },
    keyless: keyless && {
      subject: text(keyless['subject']),
      subjectRegExp: text(keyless['subjectRegExp']),
      issuer: text(keyless['issuer']),
      issuerRegExp: text(keyless['issuerRegExp']),
      roots: text(keyless['roots']),
      additionalExtensions: stringMap(keyless['additionalExtensions']),
      rekor: readRekor(keyless['rekor']),
      ctlog: readCtlog(keyless['ctlog']),
    },
    attestor: entry['attestor'] ?? undefined,
    repository: text(entry['repository']),
    annotations: stringMap(entry['annotations']),
  };
}

function readAttestation(raw: JsonValue): Attestation {
  const entry = isObject(raw) ? raw : {};
  return {
    type: text(entry['type']) ?? text(entry['predicateType']) ?? '',
    name: text(entry['name']),
    attestors: list(entry['attestors']).map(readAttestorSet),
    conditions: Array.isArray(entry['conditions']) ? (entry['conditions'] as Conditions[]) : undefined,
  };
}

function readRekor(raw: JsonValue | undefined): TransparencyLog | undefined {
  if (!isObject(raw)) return undefined;
  return { url: text(raw['url']), pubkey: text(raw['pubkey']), ignoreTlog: raw['ignoreTlog'] === true };
}

function readCtlog(raw: JsonValue | undefined): CertificateLog | undefined {
  if (!isObject(raw)) return undefined;
  return { ignoreSCT: raw['ignoreSCT'] === true, pubkey: text(raw['pubkey']), tsaCertChain: text(raw['tsaCertChain']) };
}

function text(value: JsonValue | undefined): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined;
}

function list(value: JsonValue | undefined): JsonValue[] {
  return Array.isArray(value) ? value : [];
}

function strings(value: JsonValue | undefined): string[] {
  return list(value).filter((item): item is string => typeof item === 'string');
}

function stringMap(value: JsonValue | undefined): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const out: Record<string, string> = {};
  for (const [key, item] of Object.entries(value as JsonObject)) if (typeof item === 'string') out[key] = item;
  return out;
}

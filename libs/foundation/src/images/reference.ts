/**
 * Image references the way Kyverno reads them for the `images` variable: the default registry is
 * prefixed when the first segment is not a host, the result is parsed with the OCI distribution
 * grammar (without Docker Hub's `library/` normalisation), and the tag defaults to `latest` when
 * neither tag nor digest is given.
 */
import { BoundedCache } from '../cache/bounded-cache';

/** Keys appear in the order Kyverno serialises them; empty registry/tag/digest are omitted. */
export interface ImageInfo {
  registry?: string;
  /** Last path segment, e.g. `nginx`. */
  name: string;
  /** Repository path without the registry, e.g. `nginx` or `team/app`. */
  path: string;
  tag?: string;
  digest?: string;
  /** `registry/path@digest` when there is a digest, else `registry/path:tag`. */
  reference: string;
  /** `registry/path:tag`, even for digest-only references (which then end in `:`). */
  referenceWithTag: string;
}

export interface ImageReferenceOptions {
  /** Registry prefixed to references without one (Kyverno's `defaultRegistry`, default `docker.io`). */
  defaultRegistry?: string;
  /** When false, a registry that was only defaulted is left out of the result (Kyverno's `enableDefaultRegistryMutation`, default true). */
  enableDefaultRegistryMutation?: boolean;
}

export class ImageReferenceError extends Error {
  constructor(
    readonly image: string,
    message: string,
  ) {
    super(message);
    this.name = 'ImageReferenceError';
  }
}

// The distribution/reference grammar.
const ALNUM = '[a-z0-9]+';
const SEPARATOR = '(?:[._]|__|[-]+)';
const PATH_COMPONENT = `${ALNUM}(?:${SEPARATOR}${ALNUM})*`;
const DOMAIN_COMPONENT = '(?:[a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]*[a-zA-Z0-9])';
const HOST = `(?:${DOMAIN_COMPONENT}(?:\\.${DOMAIN_COMPONENT})*|\\[(?:[a-fA-F0-9:]+)\\])`;
/** A registry host with optional port (distribution/reference `domainAndPort`). */
export const DOMAIN_AND_PORT = `${HOST}(?::[0-9]+)?`;
const TAG = '[\\w][\\w.-]{0,127}';
const DIGEST = '[A-Za-z][A-Za-z0-9]*(?:[-_+.][A-Za-z][A-Za-z0-9]*)*[:][0-9a-fA-F]{32,}';
const REMOTE_NAME = `${PATH_COMPONENT}(?:/${PATH_COMPONENT})*`;
/** distribution/reference `ReferenceRegexp`: groups are name, tag, digest. */
export const REFERENCE = new RegExp(`^((?:${DOMAIN_AND_PORT}/)?${REMOTE_NAME})(?::(${TAG}))?(?:@(${DIGEST}))?$`);
const ANCHORED_NAME = new RegExp(`^(?:(${DOMAIN_AND_PORT})/)?(${REMOTE_NAME})$`);
const NAME_TOTAL_LENGTH_MAX = 255;

/** Digest algorithms Kyverno can verify, with their hex lengths. */
const DIGEST_HEX_LENGTH = new Map([
  ['sha256', 64],
  ['sha384', 96],
  ['sha512', 128],
]);
const DIGEST_ANCHORED = new RegExp(`^${DIGEST}$`);

const cache = new BoundedCache<ImageInfo | ImageReferenceError>(2_000);

/** Parses an image reference into Kyverno's image info. Throws ImageReferenceError for invalid references. */
export function parseImageReference(
  image: string,
  defaultRegistry = 'docker.io',
  options: Omit<ImageReferenceOptions, 'defaultRegistry'> = {},
): ImageInfo {
  const mutation = options.enableDefaultRegistryMutation ?? true;
  const key = `${mutation ? 1 : 0}\u0000${defaultRegistry}\u0000${image}`;
  const result = cache.getOrCreate(key, () => parseUncached(image, defaultRegistry, mutation));
  if (result instanceof ImageReferenceError) throw result;
  // Callers put the info into evaluation contexts; hand out a copy so the cached one stays intact.
  return { ...result };
}

function parseUncached(image: string, defaultRegistry: string, mutation: boolean): ImageInfo | ImageReferenceError {
  if (typeof image !== 'string') return new ImageReferenceError(String(image), 'image reference must be a string');
  const fullName = withDefaultRegistry(image, defaultRegistry);
  const parsed = parseReference(fullName);
  if (typeof parsed === 'string') {
    return new ImageReferenceError(
      image,
      `bad image: ${fullName}, defaultRegistry: ${defaultRegistry}, enableDefaultRegistryMutation: ${mutation}: ${parsed}`,
    );
  }
  let { domain: registry } = parsed;
  const { path, digest } = parsed;
  const tag = parsed.tag === '' && digest === '' ? 'latest' : parsed.tag;
  if (fullName !== image && !mutation) registry = '';

  const location = registry === '' ? path : `${registry}/${path}`;
  const info = {} as ImageInfo;
  if (registry !== '') info.registry = registry;
  info.name = path.slice(path.lastIndexOf('/') + 1);
  info.path = path;
  if (tag !== '') info.tag = tag;
  if (digest !== '') info.digest = digest;
  info.reference = digest !== '' ? `${location}@${digest}` : `${location}:${tag}`;
  info.referenceWithTag = `${location}:${tag}`;
  return info;
}

/**
 * Kyverno prefixes the default registry unless the first segment looks like a host: it contains a
 * `.` or `:`, is `localhost`, or has upper-case letters (which a repository path cannot).
 */
export function withDefaultRegistry(image: string, defaultRegistry: string): string {
  const slash = image.indexOf('/');
  if (slash === -1) return `${defaultRegistry}/${image}`;
  const first = image.slice(0, slash);
  if (!/[.:]/.test(first) && first !== 'localhost' && first.toLowerCase() === first)
    return `${defaultRegistry}/${image}`;
  return image;
}

interface ParsedReference {
  domain: string;
  path: string;
  tag: string;
  digest: string;
}

/** distribution/reference `Parse` (no normalisation); returns the error text on failure. */
function parseReference(text: string): ParsedReference | string {
  // The grammar has no nested ambiguous repetition, so matching stays linear even on huge inputs.
  const match = REFERENCE.exec(text);
  if (!match) {
    if (text === '') return 'repository name must have at least one component';
    const lower = text.toLowerCase();
    if (lower !== text && REFERENCE.test(lower)) return 'repository name must be lowercase';
    return 'invalid reference format';
  }
  const [, name, tag = '', digest = ''] = match;
  if (name.length > NAME_TOTAL_LENGTH_MAX)
    return `repository name must not be more than ${NAME_TOTAL_LENGTH_MAX} characters`;
  if (digest !== '') {
    const digestError = validateDigest(digest);
    if (digestError) return digestError;
  }
  const nameMatch = ANCHORED_NAME.exec(name);
  return { domain: nameMatch?.[1] ?? '', path: nameMatch?.[2] ?? name, tag, digest };
}

/** go-digest validation: known algorithm, exact hex length, lower-case hex. */
function validateDigest(digest: string): string | undefined {
  const colon = digest.indexOf(':');
  if (colon <= 0 || colon + 1 === digest.length) return 'invalid checksum digest format';
  const algorithm = digest.slice(0, colon);
  const encoded = digest.slice(colon + 1);
  const length = DIGEST_HEX_LENGTH.get(algorithm);
  if (length === undefined) {
    return DIGEST_ANCHORED.test(digest) ? 'unsupported digest algorithm' : 'invalid checksum digest format';
  }
  if (encoded.length !== length) return 'invalid checksum digest length';
  return /^[a-f0-9]+$/.test(encoded) ? undefined : 'invalid checksum digest format';
}

/**
 * Image references as go-containerregistry's `name.ParseReference` reads them (what Kyverno's
 * `image()` and `parseImageReference()` use), not strict: the registry is the first path segment
 * when it holds a `.` or `:`, else Docker Hub (`index.docker.io`, with `library/` for single-name
 * repositories); the tag defaults to `latest`; a digest is `sha256:` and 64 hex digits, and a tag
 * before it is accepted and kept only in the reference's text.
 */
export interface ImageReference {
  /** The text parsed. */
  readonly original: string;
  readonly registry: string;
  readonly repository: string;
  /** The tag (given or `latest`) for a tag reference; for a digest reference the tag written before `@`, or ''. */
  readonly tag: string;
  /** `sha256:...` for a digest reference, else ''. */
  readonly digest: string;
}

export class ImageReferenceError extends Error {
  override readonly name = 'ImageReferenceError';
}

const DEFAULT_REGISTRY = 'index.docker.io';
const TAG_CHARS = /^[A-Za-z0-9_.-]{1,128}$/;
const REPOSITORY_CHARS = /^[a-z0-9_\-./]{2,255}$/;
const DIGEST = /^sha256:[0-9a-f]{64}$/;

export function parseReference(text: string): ImageReference {
  try {
    return parseTag(text);
  } catch (tagError) {
    try {
      return parseDigest(text);
    } catch {
      throw new ImageReferenceError(`could not parse reference: ${text}`, { cause: tagError });
    }
  }
}

function parseTag(text: string): ImageReference {
  const parts = text.split(':');
  let base = text;
  let tag = '';
  if (parts.length > 1 && !parts[parts.length - 1]!.includes('/')) {
    base = parts.slice(0, -1).join(':');
    tag = parts[parts.length - 1]!;
    if (tag === '') throw new ImageReferenceError(`${text} must specify a tag name after the colon`);
  }
  if (tag !== '' && !TAG_CHARS.test(tag)) throw new ImageReferenceError(`tag ${tag} is not valid`);
  return { original: text, ...repository(base), tag: tag || 'latest', digest: '' };
}

function parseDigest(text: string): ImageReference {
  const parts = text.split('@');
  if (parts.length !== 2)
    throw new ImageReferenceError(
      `a digest must contain exactly one '@' separator (e.g. registry/repository@digest): ${text}`,
    );
  const [base, digest] = parts as [string, string];
  if (!DIGEST.test(digest)) throw new ImageReferenceError(`digest ${digest} is not valid`);
  let name = base;
  let tag = '';
  // A `:` after the last `/` is a tag (before it, a registry port); the reference drops the tag.
  const colon = base.lastIndexOf(':');
  if (colon > base.lastIndexOf('/') && TAG_CHARS.test(base.slice(colon + 1))) {
    name = base.slice(0, colon);
    tag = base.slice(colon + 1);
  }
  return { original: text, ...repository(name), tag, digest };
}

function repository(name: string): { registry: string; repository: string } {
  if (name.length === 0) throw new ImageReferenceError('a repository name must be specified');
  let registry = '';
  let repo = name;
  const slash = name.indexOf('/');
  if (slash >= 0) {
    const first = name.slice(0, slash);
    if (first.includes('.') || first.includes(':')) {
      registry = first;
      repo = name.slice(slash + 1);
    }
  }
  if (!REPOSITORY_CHARS.test(repo)) {
    throw new ImageReferenceError(
      `repository can only contain the characters \`abcdefghijklmnopqrstuvwxyz0123456789_-./\` and must be between 2 and 255 characters: ${repo}`,
    );
  }
  if (registry === '' || registry === 'docker.io') registry = DEFAULT_REGISTRY;
  else if (!validAuthority(registry)) {
    throw new ImageReferenceError(`registries must be valid RFC 3986 URI authorities: ${registry}`);
  }
  // Docker Hub's official images live under library/.
  if (registry === DEFAULT_REGISTRY && !repo.includes('/')) repo = `library/${repo}`;
  return { registry, repository: repo };
}

/** What Go's url.Parse("//" + name).Host gives back unchanged: a host (or [v6]) and an optional port. */
function validAuthority(name: string): boolean {
  return /^(?:\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9\-._~!$&'()*+,;=%]+)(?::[0-9]*)?$/.test(name) && !/[/?#@]/.test(name);
}

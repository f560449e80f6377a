/**
 * The OCI client of one set of credentials: manifests, blobs and referrers read (digests verified,
 * answers capped), and pushes. Every call goes through the RegistryClient's sessions, so the egress
 * guard, the auth handshake, the plain-HTTP fallback rules and the caps are the same as for image data.
 *
 * Referrers follow OCI distribution 1.1: the referrers API first; a registry without it (404, 400,
 * 406, or an answer that is not an image index, as go-containerregistry decides) is read through the
 * fallback tag `<alg>-<hex>` whose image index lists the referrers. Pushing a referrer updates that
 * tag unless the registry says it indexed the subject itself (`OCI-Subject`).
 */
import { createHash } from 'node:crypto';
import type { JsonObject, JsonValue } from '@edict/foundation';
import type { EgressResponse } from '@edict/egress';
import { findRegistryAuth, type MatchedAuth } from '../auth/docker-config';
import { digestOf, digestProblem, isObject, MANIFEST_ACCEPT, MEDIA_TYPES } from '../client/manifest';
import { registryErrorText, type RegistrySession } from '../client/registry-session';
import { parseRegistryReference, type RegistryReference } from '../reference/registry-reference';
import { ImageNotFoundError, RegistryError } from '../registry-errors';
import type { ResolvedRegistryOptions } from '../registry.options';
import type { OciAccess, OciClient, OciDescriptor, OciManifest, OciPlatform } from './oci-types';

/**
 * The session of a repository (the RegistryClient's: egress and plain-HTTP memory shared, and a
 * session, with its token, reused for the same repository and credentials).
 */
export type OciSessionFactory = (
  reference: RegistryReference,
  credentials: MatchedAuth | undefined,
  allowInsecure: boolean,
) => RegistrySession;

const TAG = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,127}$/;
const MEDIA_TYPE = /^[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}\/[A-Za-z0-9][A-Za-z0-9!#$&^_.+-]{0,126}$/;
const MAX_REFERRER_PAGES = 100;
/** Upload starts and other small answers. */
const SMALL_ANSWER_BYTES = 64 * 1024;
/** Media types whose answer is not a manifest kind of its own (then the body's `mediaType` decides). */
const GENERIC_TYPES = new Set(['', 'application/json', 'application/octet-stream', 'text/plain']);

export class OciRegistryClient implements OciClient {
  /** Referrer pushes to one subject, one after the other: the fallback index is read-modify-write. */
  private readonly referrerLocks = new Map<string, Promise<unknown>>();

  constructor(
    private readonly options: ResolvedRegistryOptions,
    private readonly newSession: OciSessionFactory,
    private readonly access: OciAccess = {},
  ) {}

  async getManifest(
    repo: string,
    reference: string,
    accept: readonly string[] = DEFAULT_ACCEPT,
  ): Promise<OciManifest | undefined> {
    const target = this.target(repo, reference);
    const response = await target.session.request('GET', manifestPath(target.reference, reference), {
      limit: this.options.maxManifestBytes,
      accept: acceptHeader(accept, target.name),
    });
    if (response.status === 404) return undefined;
    expectStatus(response, [200], target.name);
    const digest = verifiedManifestDigest(response, reference, target.name);
    const json = parseJsonObject(response.body, target.name, `the manifest ${reference}`);
    return {
      digest,
      mediaType: manifestMediaType(response.headers['content-type'], json),
      bytes: response.body,
      json,
    };
  }

  async resolve(repo: string, reference: string): Promise<OciDescriptor | undefined> {
    const target = this.target(repo, reference);
    const response = await target.session.request('HEAD', manifestPath(target.reference, reference), {
      limit: this.options.maxManifestBytes,
      accept: DEFAULT_ACCEPT.join(', '),
    });
    if (response.status === 404) return undefined;
    const announced = response.headers['docker-content-digest'];
    const size = Number(response.headers['content-length']);
    const mediaType = mediaTypeOf(response.headers['content-type']);
    if (
      response.status === 200 &&
      typeof announced === 'string' &&
      digestProblem(announced) === undefined &&
      Number.isSafeInteger(size) &&
      !GENERIC_TYPES.has(mediaType)
    ) {
      if (isDigest(reference) && announced !== reference) {
        throw new RegistryError(
          target.name,
          `digest mismatch: asked for ${reference}, the registry answered ${announced}`,
        );
      }
      return { mediaType, digest: announced, size };
    }
    // Registries that answer HEAD without a digest (or refuse HEAD) are asked with GET, as go-containerregistry does.
    const manifest = await this.getManifest(repo, reference);
    if (!manifest) return undefined;
    return descriptorOf(manifest.mediaType, manifest.digest, manifest.bytes.length, manifest.json);
  }

  async getBlob(repo: string, digest: string, maxBytes?: number): Promise<Uint8Array> {
    const target = this.target(repo, digest);
    if (!isDigest(digest)) throw new RegistryError(target.name, `a blob is read by digest, got ${quote(digest)}`);
    const limit = maxBytes ?? this.options.maxBlobBytes;
    if (!Number.isSafeInteger(limit) || limit <= 0) {
      throw new RegistryError(target.name, `maxBytes must be a positive integer, got ${String(maxBytes)}`);
    }
    const response = await target.session.request('GET', `/v2/${target.reference.repository}/blobs/${digest}`, {
      limit,
    });
    if (response.status === 404) {
      throw new ImageNotFoundError(
        target.name,
        `blob ${digest} not found in ${repo}${registryErrorText(response.body)}`,
      );
    }
    expectStatus(response, [200], target.name);
    const actual = digestOf(response.body, digest);
    if (actual !== digest)
      throw new RegistryError(target.name, `digest mismatch: the blob ${digest} has digest ${actual}`);
    return response.body;
  }

  async listReferrers(repo: string, digest: string, artifactType?: string): Promise<OciDescriptor[]> {
    const target = this.target(repo, digest);
    if (!isDigest(digest))
      throw new RegistryError(target.name, `referrers are listed for a digest, got ${quote(digest)}`);
    if (artifactType !== undefined && (typeof artifactType !== 'string' || !MEDIA_TYPE.test(artifactType))) {
      throw new RegistryError(target.name, `invalid artifactType ${quote(artifactType)}`);
    }
    const entries =
      (await this.referrersFromApi(target, digest, artifactType)) ?? (await this.referrersFromTag(repo, digest));
    return entries.filter((entry) => artifactType === undefined || entry.artifactType === artifactType);
  }

  async pushBlob(repo: string, bytes: Uint8Array): Promise<OciDescriptor> {
    if (!(bytes instanceof Uint8Array)) throw new RegistryError(repo, 'a blob must be a Uint8Array');
    const digest = sha256(bytes);
    const target = this.target(repo, digest);
    if (bytes.length > this.options.maxBlobBytes) {
      throw new RegistryError(
        target.name,
        `the blob (${bytes.length} bytes) exceeds maxBlobBytes ${this.options.maxBlobBytes}`,
      );
    }
    const descriptor = { mediaType: 'application/octet-stream', digest, size: bytes.length };
    const blobPath = `/v2/${target.reference.repository}/blobs/${digest}`;
    const existing = await target.session.request('HEAD', blobPath, { limit: this.options.maxBlobBytes });
    if (existing.status === 200) return descriptor;
    // The two-step monolithic upload every registry supports: open a session, then PUT the whole blob.
    const started = await target.session.request('POST', `/v2/${target.reference.repository}/blobs/uploads/`, {
      limit: SMALL_ANSWER_BYTES,
      body: '',
    });
    expectStatus(started, [202], target.name);
    const location = uploadLocation(started, target);
    const separator = location.includes('?') ? '&' : '?';
    const finished = await target.session.request(
      'PUT',
      `${location}${separator}digest=${encodeURIComponent(digest)}`,
      {
        limit: SMALL_ANSWER_BYTES,
        contentType: 'application/octet-stream',
        body: bytes,
      },
    );
    expectStatus(finished, [201], target.name);
    const announced = finished.headers['docker-content-digest'];
    if (typeof announced === 'string' && announced !== digest) {
      throw new RegistryError(target.name, `digest mismatch: pushed blob ${digest}, the registry stored ${announced}`);
    }
    return descriptor;
  }

  async pushManifest(
    repo: string,
    reference: string,
    manifest: JsonObject | Uint8Array,
    mediaType: string,
  ): Promise<OciDescriptor> {
    return (await this.putManifest(repo, reference, manifest, mediaType)).descriptor;
  }

  async pushReferrer(
    repo: string,
    subjectDigest: string,
    manifest: JsonObject,
    mediaType: string,
  ): Promise<OciDescriptor> {
    const target = this.target(repo, subjectDigest);
    if (!isDigest(subjectDigest))
      throw new RegistryError(target.name, `a subject is a digest, got ${quote(subjectDigest)}`);
    if (!isObject(manifest)) throw new RegistryError(target.name, 'a referrer manifest must be a JSON object');
    const withSubject = await this.withSubject(repo, subjectDigest, manifest);
    const key = `${target.reference.host}/${target.reference.repository}@${subjectDigest}`;
    const previous = this.referrerLocks.get(key) ?? Promise.resolve();
    const next = previous
      .catch(() => undefined)
      .then(() => this.pushReferrerNow(repo, subjectDigest, withSubject, mediaType));
    this.referrerLocks.set(key, next);
    try {
      return await next;
    } finally {
      if (this.referrerLocks.get(key) === next) this.referrerLocks.delete(key);
    }
  }

  private async pushReferrerNow(
    repo: string,
    subjectDigest: string,
    manifest: JsonObject,
    mediaType: string,
  ): Promise<OciDescriptor> {
    const bytes = Buffer.from(JSON.stringify(manifest));
    const pushed = await this.putManifest(repo, sha256(bytes), bytes, mediaType);
    // A registry with the referrers API indexes the subject itself and says so.
    if (pushed.subject === subjectDigest) return pushed.descriptor;
    const tag = fallbackTag(subjectDigest);
    const current = await this.getManifest(repo, tag, [MEDIA_TYPES.ociIndex]);
    const index: JsonObject = current ? { ...current.json } : { schemaVersion: 2, mediaType: MEDIA_TYPES.ociIndex };
    const entries = current ? referrerEntries(current.json, repo, this.options.maxReferrers) : [];
    if (entries.some((entry) => entry.digest === pushed.descriptor.digest)) return pushed.descriptor;
    if (entries.length >= this.options.maxReferrers) {
      throw new RegistryError(
        repo,
        `the referrers of ${subjectDigest} already hold ${entries.length} entries (maxReferrers ${this.options.maxReferrers})`,
      );
    }
    const existing = Array.isArray(current?.json.manifests) ? (current.json.manifests as JsonValue[]) : [];
    index.manifests = [...existing, pushed.descriptor as unknown as JsonObject];
    index.mediaType = MEDIA_TYPES.ociIndex;
    await this.putManifest(repo, tag, index, MEDIA_TYPES.ociIndex);
    return pushed.descriptor;
  }

  /** The manifest with `subject` filled in from the registry, or checked when it is there. */
  private async withSubject(repo: string, subjectDigest: string, manifest: JsonObject): Promise<JsonObject> {
    const subject = manifest.subject;
    if (subject !== undefined) {
      if (!isObject(subject) || subject.digest !== subjectDigest) {
        throw new RegistryError(repo, `the referrer's subject does not point at ${subjectDigest}`);
      }
      return manifest;
    }
    const found = await this.resolve(repo, subjectDigest);
    if (!found) throw new ImageNotFoundError(repo, `the subject ${subjectDigest} is not in ${repo}`);
    return { ...manifest, subject: { mediaType: found.mediaType, digest: found.digest, size: found.size } };
  }

  private async putManifest(
    repo: string,
    reference: string,
    manifest: JsonObject | Uint8Array,
    mediaType: string,
  ): Promise<{ descriptor: OciDescriptor; subject?: string }> {
    const target = this.target(repo, reference);
    if (typeof mediaType !== 'string' || !MEDIA_TYPE.test(mediaType)) {
      throw new RegistryError(target.name, `invalid manifest media type ${quote(mediaType)}`);
    }
    const bytes = manifest instanceof Uint8Array ? Buffer.from(manifest) : Buffer.from(JSON.stringify(manifest));
    if (bytes.length > this.options.maxManifestBytes) {
      throw new RegistryError(
        target.name,
        `the manifest (${bytes.length} bytes) exceeds maxManifestBytes ${this.options.maxManifestBytes}`,
      );
    }
    const digest = digestOf(bytes, isDigest(reference) ? reference : undefined);
    if (isDigest(reference) && digest !== reference) {
      throw new RegistryError(
        target.name,
        `digest mismatch: pushing to ${reference} content whose digest is ${digest}`,
      );
    }
    const response = await target.session.request('PUT', manifestPath(target.reference, reference), {
      limit: SMALL_ANSWER_BYTES,
      contentType: mediaType,
      body: bytes,
    });
    expectStatus(response, [200, 201, 202], target.name);
    const announced = response.headers['docker-content-digest'];
    if (
      typeof announced === 'string' &&
      digestProblem(announced) === undefined &&
      digestOf(bytes, announced) !== announced
    ) {
      throw new RegistryError(
        target.name,
        `digest mismatch: pushed manifest ${digest}, the registry stored ${announced}`,
      );
    }
    const json = manifest instanceof Uint8Array ? parseOptionalJson(bytes) : manifest;
    const subject = response.headers['oci-subject'];
    return {
      descriptor: descriptorOf(mediaType, digest, bytes.length, json),
      ...(typeof subject === 'string' ? { subject } : {}),
    };
  }

  /** The referrers API's answer, or undefined when the registry has no such API. */
  private async referrersFromApi(
    target: Target,
    digest: string,
    artifactType: string | undefined,
  ): Promise<OciDescriptor[] | undefined> {
    const query = artifactType === undefined ? '' : `?artifactType=${encodeURIComponent(artifactType)}`;
    let path: string | undefined = `/v2/${target.reference.repository}/referrers/${digest}${query}`;
    const entries: OciDescriptor[] = [];
    for (let page = 0; path !== undefined; page++) {
      if (page >= MAX_REFERRER_PAGES) {
        throw new RegistryError(target.name, `the referrers of ${digest} span more than ${MAX_REFERRER_PAGES} pages`);
      }
      const response = await target.session.request('GET', path, {
        limit: this.options.maxManifestBytes,
        accept: MEDIA_TYPES.ociIndex,
      });
      const isIndex = mediaTypeOf(response.headers['content-type']) === MEDIA_TYPES.ociIndex;
      if (page === 0 && ([404, 400, 406].includes(response.status) || (response.status === 200 && !isIndex))) {
        return undefined;
      }
      expectStatus(response, [200], target.name);
      const index = parseJsonObject(response.body, target.name, `the referrers of ${digest}`);
      entries.push(...referrerEntries(index, target.name, this.options.maxReferrers - entries.length));
      path = nextPage(response, target);
    }
    return entries;
  }

  private async referrersFromTag(repo: string, digest: string): Promise<OciDescriptor[]> {
    const index = await this.getManifest(repo, fallbackTag(digest), [MEDIA_TYPES.ociIndex]);
    return index ? referrerEntries(index.json, repo, this.options.maxReferrers) : [];
  }

  /** The repository's session (tokens are scoped to a repository) and names for messages. */
  private target(repo: string, reference: string): Target {
    const parsed = parseRepo(repo);
    if (!TAG.test(reference) && !isDigest(reference)) {
      throw new RegistryError(repo, `invalid tag or digest ${quote(reference)}`);
    }
    const name = `${repo}${isDigest(reference) ? '@' : ':'}${reference}`;
    const credentials = findRegistryAuth(this.access.dockerConfigs ?? [], parsed.registry, parsed.repository);
    const session = this.newSession(parsed, credentials, this.access.allowInsecure === true);
    return { reference: parsed, session, name };
  }
}

interface Target {
  readonly reference: RegistryReference;
  readonly session: RegistrySession;
  /** `repo:tag` or `repo@digest`, for messages. */
  readonly name: string;
}

const DEFAULT_ACCEPT: readonly string[] = MANIFEST_ACCEPT.split(', ');

/** The fallback tag of OCI distribution 1.1: `<alg>-<hex>`, the algorithm cut to 32 and the hex to 64 characters. */
export function fallbackTag(digest: string): string {
  const [algorithm, hex] = digest.split(':');
  return `${algorithm.slice(0, 32)}-${hex.slice(0, 64)}`;
}

/** `registry/repository` (no tag, no digest) as a session reference. */
function parseRepo(repo: string): RegistryReference {
  if (typeof repo !== 'string' || repo.length === 0 || repo.length > 512) {
    throw new RegistryError(String(repo).slice(0, 200), 'a repository is a non-empty string of at most 512 characters');
  }
  const path = repo.includes('/') ? repo.slice(repo.indexOf('/') + 1) : repo;
  if (repo.includes('@') || path.includes(':')) {
    throw new RegistryError(repo, 'expected registry/repository, without a tag or digest');
  }
  return { ...parseRegistryReference(repo), image: repo };
}

function manifestPath(reference: RegistryReference, tagOrDigest: string): string {
  return `/v2/${reference.repository}/manifests/${tagOrDigest}`;
}

function isDigest(reference: string): boolean {
  return digestProblem(reference) === undefined;
}

function sha256(bytes: Uint8Array): string {
  return `sha256:${createHash('sha256').update(bytes).digest('hex')}`;
}

function quote(value: unknown): string {
  return JSON.stringify(String(value).slice(0, 140));
}

function acceptHeader(accept: readonly string[], name: string): string {
  if (
    !Array.isArray(accept) ||
    accept.length === 0 ||
    accept.some((type) => typeof type !== 'string' || !MEDIA_TYPE.test(type))
  ) {
    throw new RegistryError(name, 'accept must be a non-empty list of media types');
  }
  return accept.join(', ');
}

function mediaTypeOf(contentType: string | string[] | undefined): string {
  return (typeof contentType === 'string' ? contentType : '').split(';')[0].trim().toLowerCase();
}

/** The Content-Type when it names a manifest kind, else the body's `mediaType` field. */
function manifestMediaType(contentType: string | undefined, json: JsonObject): string {
  const declared = mediaTypeOf(contentType);
  if (!GENERIC_TYPES.has(declared)) return declared;
  return typeof json.mediaType === 'string' ? json.mediaType : declared;
}

function expectStatus(response: EgressResponse, expected: readonly number[], name: string): void {
  if (expected.includes(response.status)) return;
  throw new RegistryError(name, `${response.url} answered ${response.status}${registryErrorText(response.body)}`);
}

/** The manifest's digest: the one asked for (checked), else the registry's (checked), else computed. */
function verifiedManifestDigest(response: EgressResponse, reference: string, name: string): string {
  if (isDigest(reference)) {
    const actual = digestOf(response.body, reference);
    if (actual !== reference)
      throw new RegistryError(name, `digest mismatch: asked for ${reference}, the manifest's is ${actual}`);
    return reference;
  }
  const announced = response.headers['docker-content-digest'];
  if (typeof announced === 'string' && digestProblem(announced) === undefined) {
    const actual = digestOf(response.body, announced);
    if (actual !== announced) {
      throw new RegistryError(
        name,
        `the manifest's digest ${actual} does not match its Docker-Content-Digest ${announced}`,
      );
    }
    return announced;
  }
  return digestOf(response.body);
}

function parseJsonObject(body: Buffer, name: string, what: string): JsonObject {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (error) {
    throw new RegistryError(name, `${what} is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) throw new RegistryError(name, `${what} is not a JSON object`);
  return parsed;
}

function parseOptionalJson(bytes: Buffer): JsonObject | undefined {
  try {
    const parsed: unknown = JSON.parse(bytes.toString('utf8'));
    return isObject(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}

/** A manifest's descriptor as the referrers API lists it: its artifactType (else its config's type) and annotations. */
function descriptorOf(mediaType: string, digest: string, size: number, json: JsonObject | undefined): OciDescriptor {
  const config = json && isObject(json.config) ? json.config : undefined;
  const artifactType =
    typeof json?.artifactType === 'string'
      ? json.artifactType
      : typeof config?.mediaType === 'string'
        ? config.mediaType
        : undefined;
  const annotations = json ? stringMap(json.annotations) : undefined;
  return {
    mediaType,
    digest,
    size,
    ...(artifactType !== undefined ? { artifactType } : {}),
    ...(annotations ? { annotations } : {}),
  };
}

/** The descriptors of a referrers index, each checked; more than `room` is an error (fail closed, never cut short). */
function referrerEntries(index: JsonObject, name: string, room: number): OciDescriptor[] {
  const manifests = index.manifests ?? [];
  if (!Array.isArray(manifests)) throw new RegistryError(name, 'the referrers index has no manifests list');
  if (manifests.length > room) {
    throw new RegistryError(name, `the referrers index lists more entries than the limit (maxReferrers)`);
  }
  return manifests.map((entry, i) => {
    const where = `the referrers index entry ${i}`;
    if (!isObject(entry)) throw new RegistryError(name, `${where} is not an object`);
    const problem = digestProblem(entry.digest);
    if (problem) throw new RegistryError(name, `${where} has an ${problem}`);
    if (typeof entry.mediaType !== 'string') throw new RegistryError(name, `${where} has no mediaType`);
    if (typeof entry.size !== 'number' || !Number.isSafeInteger(entry.size) || entry.size < 0) {
      throw new RegistryError(name, `${where} has no valid size`);
    }
    const annotations = stringMap(entry.annotations);
    const platform = isObject(entry.platform) ? (entry.platform as unknown as OciPlatform) : undefined;
    return {
      mediaType: entry.mediaType,
      digest: entry.digest as string,
      size: entry.size,
      ...(typeof entry.artifactType === 'string' ? { artifactType: entry.artifactType } : {}),
      ...(annotations ? { annotations } : {}),
      ...(platform ? { platform } : {}),
    };
  });
}

function stringMap(value: JsonValue | undefined): Record<string, string> | undefined {
  if (!isObject(value)) return undefined;
  const entries = Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === 'string');
  return entries.length > 0 ? Object.fromEntries(entries) : undefined;
}

/** The upload URL a POST answered, as a path on the registry (other hosts are refused). */
function uploadLocation(response: EgressResponse, target: Target): string {
  const location = response.headers.location;
  if (typeof location !== 'string' || location === '') {
    throw new RegistryError(target.name, 'the registry started an upload without a Location');
  }
  return sameHostPath(location, target, 'upload location');
}

/** The `next` page of a paginated answer (RFC 8288 Link), as a path on the registry. */
function nextPage(response: EgressResponse, target: Target): string | undefined {
  const link = response.headers.link;
  const text = Array.isArray(link) ? link.join(', ') : link;
  const match = typeof text === 'string' ? /<([^>]*)>\s*;\s*rel="?next"?/i.exec(text) : null;
  return match ? sameHostPath(match[1], target, 'next page link') : undefined;
}

function sameHostPath(location: string, target: Target, what: string): string {
  let url: URL;
  try {
    url = new URL(location, `https://${target.reference.host}`);
  } catch {
    throw new RegistryError(target.name, `invalid ${what} ${quote(location)}`);
  }
  if (url.host !== target.reference.host || !url.pathname.startsWith('/v2/')) {
    throw new RegistryError(
      target.name,
      `the ${what} ${quote(location)} is not an API path on ${target.reference.host}`,
    );
  }
  return `${url.pathname}${url.search}`;
}

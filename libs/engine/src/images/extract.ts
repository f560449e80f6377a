import {
  isObject,
  setOwn,
  type JsonObject,
  type JsonValue,
  type KubeObject,
  ImageReferenceError,
  parseImageReference,
  type ImageInfo,
  type ImageReferenceOptions,
  errorMessage,
} from '@edict/foundation';

/** One image in the `images` variable: the parsed reference plus where it sits and which pull secrets apply. */
export interface ContainerImageInfo extends ImageInfo {
  /** JSON pointer to the image field, e.g. `/spec/containers/0/image`. */
  jsonPointer: string;
  /** Names from every `imagePullSecrets` met on the way to the container (the pod spec's, normally). */
  imagePullSecrets: string[];
}

/** `{ containers: { <name>: info }, initContainers: {...}, ephemeralContainers: {...} }`; groups without images are absent. */
export type ImageInfos = Record<string, Record<string, ContainerImageInfo>>;

/** A rule's `imageExtractors` entry (per kind), as in Kyverno's ImageExtractorConfig. */
export interface ImageExtractorConfig {
  /** Slash-separated path to the objects holding the image; `*` walks every list item / map entry. */
  path: string;
  /** Field holding the image; defaults to the path's last segment. */
  value?: string;
  /** Group name in the result; defaults to `custom`. */
  name?: string;
  /** Field whose value keys the entry; defaults to the JSON pointer of the image. */
  key?: string;
  /** JMESPath applied to the image string before parsing. */
  jmesPath?: string;
}

export interface ExtractImagesOptions extends ImageReferenceOptions {
  /** Custom extractors by kind (a rule's `imageExtractors`); a kind listed here replaces the built-in extractors. */
  extractors?: Record<string, ImageExtractorConfig[]>;
  /** Evaluates an extractor's `jmesPath` on the image string; needed only when extractors use one. */
  applyJmesPath?: (expression: string, value: string) => JsonValue;
}

/** Extraction failures; Kyverno aborts building the whole context on these. */
export class ImageExtractionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ImageExtractionError';
  }
}

interface Extractor {
  fields: readonly string[];
  key: string;
  value: string;
  name: string;
  jmesPath?: string;
}

function standardExtractors(...prefix: string[]): Extractor[] {
  return ['initContainers', 'containers', 'ephemeralContainers'].map((group) => ({
    fields: [...prefix, group, '*'],
    key: 'name',
    value: 'image',
    name: group,
  }));
}

const podControllers = standardExtractors('spec', 'template', 'spec');
const builtInExtractors: Record<string, Extractor[]> = {
  Pod: standardExtractors('spec'),
  DaemonSet: podControllers,
  Deployment: podControllers,
  ReplicaSet: podControllers,
  ReplicationController: podControllers,
  StatefulSet: podControllers,
  Job: podControllers,
  CronJob: standardExtractors('spec', 'jobTemplate', 'spec', 'template', 'spec'),
};

/**
 * The `images` variable for a resource: images of Pods and pod controllers (by kind alone), or of
 * whatever custom extractors select. Returns `{}` for other kinds; Kyverno then adds no `images`
 * entry to the context at all. Throws ImageExtractionError for malformed containers or images.
 */
export function extractImages(resource: KubeObject, options: ExtractImagesOptions = {}): ImageInfos {
  const kind = typeof resource?.kind === 'string' ? resource.kind : '';
  const extractors = lookupExtractors(kind, options.extractors);
  const infos: ImageInfos = {};
  for (const extractor of extractors) {
    const found: Record<string, ContainerImageInfo> = {};
    walk(resource, [], extractor, 0, [], found, options);
    if (Object.keys(found).length > 0) setOwn(infos, extractor.name, found);
  }
  return infos;
}

function lookupExtractors(kind: string, configs: ExtractImagesOptions['extractors']): Extractor[] {
  const custom = configs && Object.prototype.hasOwnProperty.call(configs, kind) ? configs[kind] : undefined;
  if (!custom) return builtInExtractors[kind] ?? [];
  if (custom.length === 0) throw new ImageExtractionError(`no extractors found for ${kind}`);
  return custom.map((config) => {
    const fields = String(config.path ?? '')
      .split('/')
      .map((segment) => segment.trim())
      .filter((segment) => segment !== '');
    const value = config.value || fields.pop() || '';
    return { fields, value, key: config.key ?? '', name: config.name || 'custom', jmesPath: config.jmesPath };
  });
}

/**
 * Follows the extractor's fields from `node`. `path` is a stack of the segments walked so far
 * (pushed and popped in place, so the walk allocates per image found, not per step).
 */
function walk(
  node: JsonValue | undefined,
  path: string[],
  extractor: Extractor,
  depth: number,
  pullSecrets: string[],
  found: Record<string, ContainerImageInfo>,
  options: ExtractImagesOptions,
): void {
  if (node === undefined || node === null) return;
  const field = extractor.fields[depth];
  if (field === '*') {
    if (Array.isArray(node)) {
      for (let i = 0; i < node.length; i++)
        walkInto(node[i], String(i), path, extractor, depth, pullSecrets, found, options);
    } else if (isObject(node)) {
      for (const name of Object.keys(node))
        walkInto(node[name], name, path, extractor, depth, pullSecrets, found, options);
    } else {
      throw new ImageExtractionError('invalid type');
    }
    return;
  }
  if (!isObject(node)) throw new ImageExtractionError('invalid image config');

  let secrets = pullSecrets;
  if (Array.isArray(node.imagePullSecrets)) {
    for (const secret of node.imagePullSecrets) {
      if (!isObject(secret) || typeof secret.name !== 'string') continue;
      if (secrets === pullSecrets) secrets = pullSecrets.slice();
      secrets.push(secret.name);
    }
  }

  if (field !== undefined) {
    walkInto(node[field], field, path, extractor, depth, secrets, found, options);
    return;
  }

  // Reached an object holding an image.
  const pointer = `/${path.join('/')}/${extractor.value}`;
  let key = pointer;
  if (extractor.key !== '') {
    const keyValue = node[extractor.key];
    if (typeof keyValue !== 'string') throw new ImageExtractionError('invalid key');
    key = keyValue;
  }
  const raw = node[extractor.value];
  if (typeof raw !== 'string' || raw.trim() === '') return; // no image given: nothing to record
  const image = extractor.jmesPath ? applyJmesPath(extractor.jmesPath, raw, options) : raw;
  let info: ImageInfo;
  try {
    info = parseImageReference(image, options.defaultRegistry, options);
  } catch (error) {
    if (error instanceof ImageReferenceError)
      throw new ImageExtractionError(`invalid image '${image}' (${error.message})`);
    throw error;
  }
  setOwn(found, key, containerImageInfo(info, pointer, secrets.slice()));
}

/**
 * The info with where it sits, keys in Kyverno's order. Written out rather than spread: a spread
 * followed by more keys takes V8's slow generic path, which made this the dearest line of the walk.
 */
function containerImageInfo(info: ImageInfo, jsonPointer: string, imagePullSecrets: string[]): ContainerImageInfo {
  const entry = {} as ContainerImageInfo;
  if (info.registry !== undefined) entry.registry = info.registry;
  entry.name = info.name;
  entry.path = info.path;
  if (info.tag !== undefined) entry.tag = info.tag;
  if (info.digest !== undefined) entry.digest = info.digest;
  entry.reference = info.reference;
  entry.referenceWithTag = info.referenceWithTag;
  entry.jsonPointer = jsonPointer;
  entry.imagePullSecrets = imagePullSecrets;
  return entry;
}

/** `walk` one level down, under the path segment `segment`. */
function walkInto(
  child: JsonValue | undefined,
  segment: string,
  path: string[],
  extractor: Extractor,
  depth: number,
  pullSecrets: string[],
  found: Record<string, ContainerImageInfo>,
  options: ExtractImagesOptions,
): void {
  path.push(segment);
  try {
    walk(child, path, extractor, depth + 1, pullSecrets, found, options);
  } finally {
    path.pop();
  }
}

function applyJmesPath(expression: string, value: string, options: ExtractImagesOptions): string {
  if (!options.applyJmesPath)
    throw new ImageExtractionError(`invalid jmespath ${expression}: no JMESPath evaluator configured`);
  let result: JsonValue;
  try {
    result = options.applyJmesPath(expression, value);
  } catch (error) {
    throw new ImageExtractionError(`failed to apply jmespath ${expression}: ${errorMessage(error)}`);
  }
  if (typeof result !== 'string') {
    throw new ImageExtractionError(
      `jmespath ${expression} must produce a string, but produced ${JSON.stringify(result)}`,
    );
  }
  return result;
}

/**
 * The infos typed as JSON, for putting under `images` in an evaluation context. Every field is a
 * string or a list of strings, and absent fields are left out rather than set to undefined.
 */
export function imagesAsJson(infos: ImageInfos): JsonObject {
  return infos as unknown as JsonObject;
}

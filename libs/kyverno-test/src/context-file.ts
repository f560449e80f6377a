import type { JsonObject, KubeObject } from '@edict/foundation';
import { Fields } from './io/fields';
import { readYamlFile } from './io/files';
import { LoadError } from './io/load-error';
import { toObjects } from './resources';

/** What a test's `cli.kyverno.io/v1alpha1` Context file gives CEL policies in place of a cluster and registries. */
export interface CliContext {
  /** Objects the CEL `resource` library reads (get, list). */
  resources: KubeObject[];
  /** Image data the CEL `image`/`imagedata` libraries read, by image reference. */
  images: ImageDataMock[];
}

/** One `spec.images[]` entry: an image's resolved reference and its registry data. */
export interface ImageDataMock {
  image: string;
  resolvedImage: string;
  registry: string;
  repository: string;
  tag?: string;
  digest?: string;
  imageIndex?: JsonObject;
  manifest?: JsonObject;
  config?: JsonObject;
}

export const EMPTY_CONTEXT: CliContext = { resources: [], images: [] };

const IMAGE_FIELDS = [
  'image',
  'resolvedImage',
  'registry',
  'repository',
  'tag',
  'digest',
  'imageIndex',
  'manifest',
  'config',
];

/** Reads a Context file; every problem is a LoadError naming the file and the field. */
export function loadContextFile(file: string): CliContext {
  const documents = readYamlFile(file);
  if (documents.length !== 1)
    throw new LoadError(file, undefined, `expected one Context document, found ${documents.length}`);
  const context = Fields.of(documents[0].value, file);
  context.rejectUnknown(['apiVersion', 'kind', 'metadata', 'spec']);
  const kind = context.string('kind');
  if (kind !== undefined && kind !== 'Context')
    throw context.error('kind', `expected Context, got ${JSON.stringify(kind)}`);
  const spec = context.object('spec');
  if (!spec) return EMPTY_CONTEXT;
  spec.rejectUnknown(['resources', 'images']);
  const rawResources = spec.raw('resources');
  if (rawResources !== undefined && rawResources !== null && !Array.isArray(rawResources))
    throw spec.error('resources', 'expected a list of Kubernetes objects');
  const resources = (Array.isArray(rawResources) ? rawResources : []).flatMap((object, index) =>
    toObjects(object, file, `spec.resources[${index}]`),
  );
  const images = spec.objectList('images').map((image): ImageDataMock => {
    image.rejectUnknown(IMAGE_FIELDS);
    const optional = (name: 'imageIndex' | 'manifest' | 'config') => image.map(name);
    return {
      image: image.requiredString('image'),
      resolvedImage: image.string('resolvedImage') ?? '',
      registry: image.string('registry') ?? '',
      repository: image.string('repository') ?? '',
      ...(image.string('tag') ? { tag: image.string('tag') } : {}),
      ...(image.string('digest') ? { digest: image.string('digest') } : {}),
      ...(optional('imageIndex') ? { imageIndex: optional('imageIndex') } : {}),
      ...(optional('manifest') ? { manifest: optional('manifest') } : {}),
      ...(optional('config') ? { config: optional('config') } : {}),
    };
  });
  return { resources, images };
}

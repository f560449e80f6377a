import { resolve } from 'node:path';
import { isObject, type JsonValue, type KubeObject } from '@edict/foundation';
import { describe } from './io/fields';
import { readYamlFile } from './io/files';
import { expandPath } from './io/input-paths';
import { LoadError } from './io/load-error';
import { isClusterScoped } from './resource-scope';

/**
 * Every Kubernetes object in the given files and folders: `List`s expanded, namespaced objects
 * defaulted to `default`. Hidden files of a folder are read, as Kyverno reads a resource folder's
 * YAML files whatever their name; hidden folders are not entered.
 */
export function loadResources(paths: readonly string[], baseDir: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const path of paths) {
    for (const file of expandPath(resolve(baseDir, path), 'read')) {
      for (const { value, where } of readYamlFile(file)) objects.push(...toObjects(value, file, where));
    }
  }
  return objects;
}

export function toObjects(document: JsonValue, file: string, where: string): KubeObject[] {
  if (!isObject(document)) throw new LoadError(file, where, `expected a Kubernetes object, got ${describe(document)}`);
  const kind = document.kind;
  if (typeof kind !== 'string' || kind === '') throw new LoadError(file, `${where}.kind`, 'is required');
  if (typeof document.apiVersion !== 'string') throw new LoadError(file, `${where}.apiVersion`, 'is required');
  if (kind.endsWith('List') && Array.isArray(document.items)) {
    return document.items.flatMap((item, index) => toObjects(item, file, `${where}.items[${index}]`));
  }
  const metadata = document.metadata ?? {};
  if (!isObject(metadata))
    throw new LoadError(file, `${where}.metadata`, `expected a mapping, got ${describe(metadata)}`);
  const object = { ...document, metadata: { ...metadata } } as KubeObject;
  if (!object.metadata.namespace && !isClusterScoped(kind)) object.metadata.namespace = 'default';
  return [object];
}

/** `namespace/kind/name` as Kyverno prints a resource path. */
export function resourcePath(resource: KubeObject): string {
  return `${resource.metadata.namespace ?? ''}/${resource.kind}/${resource.metadata.name ?? ''}`;
}

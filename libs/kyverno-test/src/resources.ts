import { readdirSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { isObject, type JsonValue, type KubeObject } from '@edict/engine';
import { describe } from './io/fields';
import { isDirectory, readYamlFile } from './io/files';
import { LoadError } from './io/load-error';
import { isClusterScoped } from './resource-scope';

const YAML_FILE = /\.(ya?ml|json)$/i;

/** Expands a path that may be a folder into the YAML/JSON files below it (sorted, for stable output). */
export function expandPath(path: string): string[] {
  if (!isDirectory(path)) return [path];
  const files: string[] = [];
  for (const entry of readdirSync(path, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
    const child = join(path, entry.name);
    if (entry.isDirectory()) files.push(...expandPath(child));
    else if (YAML_FILE.test(entry.name)) files.push(child);
  }
  return files;
}

/** Every Kubernetes object in the given files: `List`s expanded, namespaced objects defaulted to `default`. */
export function loadResources(paths: readonly string[], baseDir: string): KubeObject[] {
  const objects: KubeObject[] = [];
  for (const path of paths) {
    for (const file of expandPath(resolve(baseDir, path))) {
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

import { resolve } from 'node:path';
import { normalizeGeneratedLabels } from '@edict/engine';
import { deepEqual, isObject, type JsonValue, type KubeObject } from '@edict/foundation';
import { LoadError } from './io/load-error';
import { objectKey } from './resource-match';
import { loadResources } from './resources';

/** Drops nulls, empty strings, empty maps and empty lists, recursively, as Kyverno tidies objects before comparing. */
export function prune(value: JsonValue): JsonValue | undefined {
  if (value === null || value === '') return undefined;
  if (Array.isArray(value)) {
    if (value.length === 0) return undefined;
    return value.map((item) => prune(item) ?? null);
  }
  if (isObject(value)) {
    const out: Record<string, JsonValue> = {};
    for (const [key, item] of Object.entries(value)) {
      const pruned = prune(item);
      if (pruned !== undefined) out[key] = pruned;
    }
    return Object.keys(out).length === 0 ? undefined : out;
  }
  return value;
}

export function sameObject(expected: KubeObject, actual: KubeObject): boolean {
  return deepEqual(prune(expected) ?? null, prune(actual) ?? null);
}

/** Generated objects carry Kyverno's bookkeeping labels; like Kyverno's CLI, compare without them. */
export function sameGeneratedObject(expected: KubeObject, actual: KubeObject): boolean {
  return sameObject(normalizeGeneratedLabels(expected), normalizeGeneratedLabels(actual));
}

/** Reads an expected-resource file once per test (files are shared by many results[] entries). */
export class ExpectedFiles {
  private readonly cache = new Map<string, KubeObject[] | LoadError>();

  constructor(private readonly testDir: string) {}

  objects(path: string): KubeObject[] {
    const file = resolve(this.testDir, path);
    let entry = this.cache.get(file);
    if (!entry) {
      try {
        entry = loadResources([file], this.testDir);
      } catch (error) {
        entry = error instanceof LoadError ? error : new LoadError(file, undefined, String(error));
      }
      this.cache.set(file, entry);
    }
    if (entry instanceof LoadError) throw entry;
    return entry;
  }

  /** The object in `path` with the same kind, namespace and name as `actual`. */
  find(path: string, actual: KubeObject): KubeObject | undefined {
    const key = objectKey(actual);
    return this.objects(path).find((object) => objectKey(object) === key);
  }
}

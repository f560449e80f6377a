/**
 * The CRDs Edict needs (charts/edict/files/crds, which the Helm chart renders as templates), read for installing
 * into a cluster or the in-memory API server.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import type { JsonObject } from '@edict/foundation';

export const CRD_DIRECTORY = join('charts', 'edict', 'files', 'crds');

/** The CRD folder: found by walking up from `from` (default: the working directory, then this file). */
export function findCrdDirectory(from?: string): string {
  const starts = from ? [from] : [process.cwd(), __dirname];
  for (const start of starts) {
    let dir = resolve(start);
    for (;;) {
      const candidate = join(dir, CRD_DIRECTORY);
      if (existsSync(candidate)) return candidate;
      const parent = resolve(dir, '..');
      if (parent === dir) break;
      dir = parent;
    }
  }
  throw new Error(`cannot find ${CRD_DIRECTORY} above ${starts.join(' or ')}`);
}

/** Every CustomResourceDefinition in the folder's YAML files, in file-name order. */
export function readCrdManifests(directory: string = findCrdDirectory()): JsonObject[] {
  const files = readdirSync(directory)
    .filter((name) => /\.ya?ml$/.test(name))
    .sort();
  const crds: JsonObject[] = [];
  for (const file of files) {
    for (const document of parseAllDocuments(readFileSync(join(directory, file), 'utf8'))) {
      if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
      const value = document.toJS() as JsonObject | null;
      if (value?.kind === 'CustomResourceDefinition') crds.push(value);
    }
  }
  return crds;
}

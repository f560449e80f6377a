import { resolve } from 'node:path';
import type { Policy, PolicyException } from '@edict/engine';
import { loadPolicyDocuments } from '@edict/engine';
import { readText } from './io/files';
import { throwFirstError } from './io/yaml-documents';
import { expandPath } from './resources';

export interface PolicyFiles {
  policies: Policy[];
  exceptions: PolicyException[];
}

/**
 * Reads Kyverno policies and exceptions from files or folders with the engine's loader. Any invalid
 * policy or exception is an error naming file, document and field (Kyverno would skip the policy and
 * leave its results unexplained). Other kinds in these files are ignored.
 */
export function loadPolicyFiles(paths: readonly string[], baseDir: string): PolicyFiles {
  const loaded: PolicyFiles = { policies: [], exceptions: [] };
  for (const path of paths) {
    for (const file of expandPath(resolve(baseDir, path))) {
      const result = loadPolicyDocuments(readText(file), file);
      throwFirstError(file, result.errors);
      loaded.policies.push(...result.policies);
      loaded.exceptions.push(...result.exceptions);
    }
  }
  return loaded;
}

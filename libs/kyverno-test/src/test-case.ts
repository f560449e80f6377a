import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { formatDiagnostic } from '@edict/foundation';
import type { JsonValue } from '@edict/foundation';
import { mergeCelDocuments } from './cel-documents';
import { EMPTY_CONTEXT, loadContextFile } from './context-file';
import { readYamlFile } from './io/files';
import { LoadError } from './io/load-error';
import { loadClusterResources } from './cluster-resources';
import { type InvalidPolicy, loadPolicyFiles } from './policies';
import { loadResources } from './resources';
import type { LoadedTest, TestDefinition } from './types';
import { loadUserInfoFile } from './userinfo-file';
import { EMPTY_VALUES, loadValuesFile } from './values-file';

/** Reads every file a test refers to. Throws a LoadError naming the test field of a missing file. */
export function loadTestCase(definition: TestDefinition): LoadedTest {
  const { dir } = definition;
  const lists: [string, readonly string[]][] = [
    ['policies', definition.policies],
    ['resources', definition.resources],
    ['targetResources', definition.targetResources],
    ['exceptions', definition.exceptions],
    ['clusterResources', definition.clusterResources],
    ['jsonPayloads', definition.jsonPayloads],
    ['paramResources', definition.paramResources],
  ];
  for (const [field, paths] of lists)
    paths.forEach((path, index) => requireFile(definition, `${field}[${index}]`, path));
  if (definition.variables) requireFile(definition, 'variables', definition.variables);
  if (definition.userinfo) requireFile(definition, 'userinfo', definition.userinfo);
  if (definition.context) requireFile(definition, 'context', definition.context);
  definition.globalContextEntries.forEach((entry, index) =>
    entry.resourceFiles.forEach((path, file) =>
      requireFile(definition, `globalContextEntries[${index}].resourceFiles[${file}]`, path),
    ),
  );

  const policyFiles = loadPolicyFiles(definition.policies, dir);
  rejectInvalidPolicies(policyFiles.invalid);
  const exceptionFiles = loadPolicyFiles(definition.exceptions, dir);
  const cluster = loadClusterResources(definition.clusterResources, dir);
  return {
    definition,
    policies: policyFiles.policies,
    // Exceptions may also sit beside the policies, as Kyverno accepts them there too.
    exceptions: [...exceptionFiles.exceptions, ...policyFiles.exceptions],
    resources: loadResources(definition.resources, dir),
    targetResources: loadResources(definition.targetResources, dir),
    clusterResources: cluster.objects,
    cloneSources: loadResources(
      definition.results.flatMap((result) => (result.cloneSourceResource ? [result.cloneSourceResource] : [])),
      dir,
    ),
    crdPlurals: cluster.crdPlurals,
    values:
      definition.values ?? (definition.variables ? loadValuesFile(resolve(dir, definition.variables)) : EMPTY_VALUES),
    user: definition.userinfo ? loadUserInfoFile(resolve(dir, definition.userinfo)) : undefined,
    cel: mergeCelDocuments(policyFiles.cel, exceptionFiles.cel),
    jsonPayloads: definition.jsonPayloads.map((file) => ({ file, value: loadJsonPayload(resolve(dir, file)) })),
    params: loadResources(definition.paramResources, dir),
    context: definition.context ? loadContextFile(resolve(dir, definition.context)) : EMPTY_CONTEXT,
    globalContext: definition.globalContextEntries.map((entry) =>
      entry.resourceFiles.length === 0 ? entry : { ...entry, data: loadResources(entry.resourceFiles, dir) },
    ),
  };
}

/** One JSON (or YAML) document, whatever its shape. */
export function loadJsonPayload(file: string): JsonValue {
  const documents = readYamlFile(file);
  if (documents.length !== 1)
    throw new LoadError(file, undefined, `expected one JSON payload document, found ${documents.length}`);
  return documents[0].value;
}

function requireFile(definition: TestDefinition, field: string, path: string): void {
  if (!existsSync(resolve(definition.dir, path)))
    throw new LoadError(definition.file, field, `${path}: file not found`);
}

/**
 * Kyverno's `test` leaves a policy its validation rejects out without a word (its results then come
 * out as missing); Edict fails the test instead, naming the first problem and where it is.
 */
function rejectInvalidPolicies(invalid: readonly InvalidPolicy[]): void {
  const errors = invalid.flatMap((entry) => entry.errors);
  const first = errors[0];
  if (!first) return;
  const more = errors.length > 1 ? ` (and ${errors.length - 1} more)` : '';
  throw new LoadError(first.file, undefined, '', `invalid policy: ${formatDiagnostic(first)}${more}`);
}

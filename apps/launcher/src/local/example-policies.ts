/**
 * The example policies the local cluster starts with: every policy file named by a
 * `kyverno-test.yaml` below the examples folder, read as plain objects. They are not validated
 * here on purpose: they go through the API server, where the controller's policy validation
 * webhook accepts or rejects them as it would in a cluster.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';
import { loadTestFile } from '@edict/kyverno-test';

const TEST_FILE = /^kyverno-test\.ya?ml$/;
const YAML_FILE = /\.ya?ml$/;
const POLICY_KINDS = new Set(['ClusterPolicy', 'Policy']);

export interface ExamplePolicy {
  readonly object: Record<string, unknown> & { kind: string; metadata: { name: string; namespace?: string } };
  /** The file it came from, relative to the examples folder's parent (as a user would type it). */
  readonly source: string;
}

/** Every example policy once (a policy several tests share is listed once), in a stable order. */
export function readExamplePolicies(examplesDir: string): ExamplePolicy[] {
  const root = resolve(examplesDir);
  const base = dirname(root);
  const seen = new Map<string, ExamplePolicy>();
  for (const testFile of testFilesBelow(root)) {
    const test = loadTestFile(testFile);
    for (const entry of test.policies) {
      for (const file of yamlFilesAt(resolve(test.dir, entry))) {
        for (const object of policiesIn(file)) {
          const key = `${object.kind}/${object.metadata.namespace ?? ''}/${object.metadata.name}`;
          if (!seen.has(key)) seen.set(key, { object, source: relative(base, file) });
        }
      }
    }
  }
  return [...seen.values()];
}

function testFilesBelow(root: string): string[] {
  if (!statSync(root, { throwIfNoEntry: false })?.isDirectory()) {
    throw new Error(`examples folder not found: ${root}`);
  }
  return readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((path) => TEST_FILE.test(path.split(/[\\/]/).pop()!))
    .sort()
    .map((path) => join(root, path));
}

function yamlFilesAt(path: string): string[] {
  const stat = statSync(path, { throwIfNoEntry: false });
  if (!stat) throw new Error(`policy file not found: ${path}`);
  if (!stat.isDirectory()) return [path];
  return readdirSync(path, { recursive: true, encoding: 'utf8' })
    .filter((name) => YAML_FILE.test(name))
    .sort()
    .map((name) => join(path, name));
}

function policiesIn(file: string): ExamplePolicy['object'][] {
  const policies: ExamplePolicy['object'][] = [];
  parseAllDocuments(readFileSync(file, 'utf8')).forEach((document, index) => {
    if (document.errors.length > 0) {
      throw new Error(`${file} (document ${index + 1}): ${document.errors[0]!.message}`);
    }
    const value = document.toJS() as unknown;
    if (!isPolicy(value)) return;
    policies.push(value);
  });
  return policies;
}

function isPolicy(value: unknown): value is ExamplePolicy['object'] {
  if (typeof value !== 'object' || value === null) return false;
  const object = value as { apiVersion?: unknown; kind?: unknown; metadata?: { name?: unknown } };
  return (
    typeof object.apiVersion === 'string' &&
    object.apiVersion.startsWith('kyverno.io/') &&
    typeof object.kind === 'string' &&
    POLICY_KINDS.has(object.kind) &&
    typeof object.metadata?.name === 'string'
  );
}

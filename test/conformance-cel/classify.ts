import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { parseAllDocuments } from 'yaml';

/**
 * The policy kinds each floor of the CEL corpus is about, one group per issue that brought them: a
 * test counts under a group when all its policies are of that group's kinds.
 */
export const FLOORED_GROUPS = {
  validating: ['ValidatingPolicy', 'validate.cel', 'ValidatingAdmissionPolicy'],
  mutatingGeneratingDeleting: ['MutatingPolicy', 'GeneratingPolicy', 'DeletingPolicy', 'MutatingAdmissionPolicy'],
} as const;
export type FlooredGroup = keyof typeof FLOORED_GROUPS;
export type FlooredKind = (typeof FLOORED_GROUPS)[FlooredGroup][number];
export const FLOORED_KINDS: readonly FlooredKind[] = Object.values(FLOORED_GROUPS).flat();

/**
 * The kinds of the policies a test names, read from the files as written (independent of whether
 * Edict can load them, so a test that fails to load keeps its place in the figures): `ClusterPolicy`
 * and `Policy` (`validate.cel` when a rule validates with CEL), and every other kind as is.
 */
export function policyKindsOf(testFile: string): string[] {
  const test = firstDocument(testFile);
  const policies = Array.isArray(test?.policies) ? test.policies : [];
  const kinds = new Set<string>();
  for (const path of policies) {
    if (typeof path !== 'string') continue;
    for (const file of yamlFiles(resolve(dirname(testFile), path))) {
      for (const document of documents(file)) {
        if (!isRecord(document) || typeof document.kind !== 'string') continue;
        const { kind } = document;
        if (kind === 'PolicyException' || kind.endsWith('Binding')) continue;
        if (kind === 'ClusterPolicy' || kind === 'Policy') {
          const spec = isRecord(document.spec) ? document.spec : {};
          const rules = Array.isArray(spec.rules) ? spec.rules : [];
          const cel = rules.some(
            (rule) => isRecord(rule) && isRecord(rule.validate) && rule.validate.cel !== undefined,
          );
          kinds.add(cel ? 'validate.cel' : kind);
        } else kinds.add(kind.startsWith('Namespaced') ? kind.slice('Namespaced'.length) : kind);
      }
    }
  }
  return [...kinds].sort();
}

/** The floored group a test is counted under, or undefined when its policies are not all of one group. */
export function flooredGroupOf(kinds: readonly string[]): FlooredGroup | undefined {
  if (kinds.length === 0) return undefined;
  return (Object.keys(FLOORED_GROUPS) as FlooredGroup[]).find((group) =>
    kinds.every((kind) => (FLOORED_GROUPS[group] as readonly string[]).includes(kind)),
  );
}

/** The kind a test is listed under in the figures: the first of its group's kinds it uses. */
export function flooredKindOf(kinds: readonly string[]): FlooredKind | undefined {
  const group = flooredGroupOf(kinds);
  return group ? FLOORED_GROUPS[group].find((kind) => kinds.includes(kind)) : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function documents(file: string): unknown[] {
  try {
    return parseAllDocuments(readFileSync(file, 'utf8')).map((document) => document.toJS() as unknown);
  } catch {
    return [];
  }
}

function firstDocument(file: string): Record<string, unknown> | undefined {
  const first = documents(file)[0];
  return isRecord(first) ? first : undefined;
}

function yamlFiles(path: string): string[] {
  if (!existsSync(path)) return [];
  if (!statSync(path).isDirectory()) return [path];
  return readdirSync(path)
    .filter((name) => !name.startsWith('.'))
    .sort()
    .flatMap((name) => {
      const child = join(path, name);
      return statSync(child).isDirectory() ? yamlFiles(child) : /\.(ya?ml|json)$/i.test(name) ? [child] : [];
    });
}

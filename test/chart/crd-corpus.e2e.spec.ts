/**
 * Every Kyverno policy, exception, cleanup policy and global context entry of the two corpora
 * (../shared/conformance: Kyverno's CLI tests and policy library; ../shared/chainsaw: its e2e suite)
 * against the generated CRDs, as kube-apiserver would judge them with kubectl's strict field
 * validation: the generated openAPIV3Schema through the in-memory API server's validator, plus the
 * undeclared fields the DSL finds. None may be refused, except the few a chainsaw step expects to fail
 * at the API server (listed below with the reason), which must be.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseAllDocuments } from 'yaml';
import { validateBySchema } from '@edict/apiserver';
import { discoverTestFiles, loadTestFile, type Operation } from '@edict/chainsaw';
import { crdRefusal, crdVersionFor, rootSchema, CRD_DEFINITIONS } from '@edict/engine';
import { isObject, type JsonObject } from '@edict/foundation';

// The corpora beside the repository (../shared), or $EDICT_CONFORMANCE_DIR and $EDICT_CHAINSAW_DIR.
const CONFORMANCE = process.env['EDICT_CONFORMANCE_DIR'] ?? resolve(__dirname, '../../../shared/conformance');
const CHAINSAW = process.env['EDICT_CHAINSAW_DIR'] ?? resolve(__dirname, '../../../shared/chainsaw');

/** The corpus folder, or a failure naming where it was looked for and how to point elsewhere. */
function corpus(dir: string, variable: string): string {
  expect(existsSync(dir), `no corpus at ${dir}: put it beside the repository (../shared), or set ${variable}`).toBe(
    true,
  );
  return dir;
}
const KINDS = new Set([
  'ClusterPolicy',
  'Policy',
  'PolicyException',
  'ClusterCleanupPolicy',
  'CleanupPolicy',
  'GlobalContextEntry',
]);
/** The policies.kyverno.io kinds checked (Kyverno's CEL policies of issue 37). */
const CEL_KINDS = new Set([
  'MutatingPolicy',
  'NamespacedMutatingPolicy',
  'GeneratingPolicy',
  'NamespacedGeneratingPolicy',
  'DeletingPolicy',
  'NamespacedDeletingPolicy',
]);

/**
 * Chainsaw steps that apply a document they expect refused, which the generated CRD refuses, and why.
 * The others such steps apply are refused by the policy validation webhook (Kyverno's code checks).
 */
const EXPECTED_REFUSALS: Record<string, string> = {
  'globalcontext/validate-crd/multiple-resources.yaml': 'spec sets both kubernetesResource and apiCall (oneOf)',
  'globalcontext/validate-crd/no-resource.yaml': 'spec sets neither kubernetesResource nor apiCall (oneOf)',
  'globalcontext/validate-reference/clusterpolicy.yaml': 'a globalReference without its required name',
  // Kyverno's webhook refuses these ("the timeout value must be between 1 and 30 seconds"); the bounds
  // are in Edict's schema, so its CRD refuses them first, with kube's message.
  'policy-validation/cluster-policy/invalid-timeout-deprecated/policy-1.yaml': 'webhookTimeoutSeconds -1 (below 1)',
  'policy-validation/cluster-policy/invalid-timeout-deprecated/policy-2.yaml': 'webhookTimeoutSeconds 31 (above 30)',
  'policy-validation/policy/invalid-timeout/policy-1.yaml': 'webhookTimeoutSeconds -1 (below 1)',
  'policy-validation/policy/invalid-timeout/policy-2.yaml': 'webhookTimeoutSeconds 31 (above 30)',
};

function yamlFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return yamlFiles(path);
    return /\.ya?ml$/.test(name) ? [path] : [];
  });
}

function kyvernoDocuments(file: string): JsonObject[] {
  let docs;
  try {
    docs = parseAllDocuments(readFileSync(file, 'utf8'), { version: '1.1' });
  } catch {
    return [];
  }
  return docs
    .filter((d) => d.errors.length === 0)
    .map((d) => d.toJS({ maxAliasCount: -1 }) as unknown)
    .filter(
      (v): v is JsonObject =>
        isObject(v as JsonObject) &&
        typeof (v as JsonObject).apiVersion === 'string' &&
        ((((v as JsonObject).apiVersion as string).startsWith('kyverno.io/') &&
          KINDS.has((v as JsonObject).kind as string)) ||
          (((v as JsonObject).apiVersion as string).startsWith('policies.kyverno.io/') &&
            CEL_KINDS.has((v as JsonObject).kind as string))),
    );
}

/** The API server's answer (schema validation and, as kubectl asks for it, undeclared fields). */
function refusal(doc: JsonObject): string | undefined {
  const version = crdVersionFor(doc.apiVersion as string, doc.kind as string)!;
  const definition = CRD_DEFINITIONS.find((d) => d.versions.includes(version))!;
  const causes = validateBySchema(doc, rootSchema(definition, version));
  const strict = crdRefusal(doc);
  if (causes.length === 0 && !strict) return undefined;
  return [...causes.map((c) => `${c.field}: ${c.message}`), ...(strict ? [strict.message] : [])].join('; ');
}

interface Tally {
  checked: number;
  accepted: number;
  unserved: string[];
  refused: string[];
}

function judge(label: string, doc: JsonObject, tally: Tally): string | undefined {
  if (!crdVersionFor(doc.apiVersion as string, doc.kind as string)) {
    tally.unserved.push(`${label}: ${doc.apiVersion as string} ${doc.kind as string}`);
    return undefined;
  }
  tally.checked++;
  const why = refusal(doc);
  if (!why) tally.accepted++;
  return why;
}

/** Whether an operation's expectations say it fails (`($error != null)`, or `($error)` matched against text). */
function expectsError(operation: Operation): boolean {
  if (!('expect' in operation)) return false;
  return operation.expect.some((e) => {
    const check = isObject(e.check) ? e.check : {};
    return Object.entries(check).some(
      ([key, value]) =>
        (key === '($error != null)' && value === true) || (key === '($error)' && typeof value === 'string'),
    );
  });
}

/** A step template's `($file)`, from the bindings its `use` passed. */
function resolveBinding(file: string, bindings: ReadonlyArray<{ name: string; value: unknown }>): string | undefined {
  const name = /^\(\$(\w+)\)$/.exec(file)?.[1];
  if (!name) return file;
  const value = bindings.find((b) => b.name === name)?.value;
  return typeof value === 'string' ? value : undefined;
}

describe('the corpora against the generated CRDs', () => {
  it('accepts every Kyverno document of ../shared/conformance', () => {
    const root = corpus(CONFORMANCE, 'EDICT_CONFORMANCE_DIR');
    const tally: Tally = { checked: 0, accepted: 0, unserved: [], refused: [] };
    for (const file of yamlFiles(root)) {
      kyvernoDocuments(file).forEach((doc, i) => {
        const why = judge(`${relative(root, file)}#${i}`, doc, tally);
        if (why) tally.refused.push(`${relative(root, file)}#${i}: ${why}`);
      });
    }
    console.log(
      `conformance: ${tally.checked} documents checked, ${tally.accepted} accepted, ` +
        `${tally.unserved.length} of a version no CRD serves`,
    );
    expect(tally.refused, tally.refused.join('\n')).toEqual([]);
    expect(tally.checked).toBeGreaterThan(200);
  });

  it('accepts every Kyverno document a chainsaw step applies, and refuses those it expects refused', () => {
    const root = corpus(CHAINSAW, 'EDICT_CHAINSAW_DIR');
    const tally: Tally = { checked: 0, accepted: 0, unserved: [], refused: [] };
    const refusedAsExpected: string[] = [];
    const judged = new Set<string>();
    for (const testFile of discoverTestFiles([root])) {
      for (const test of loadTestFile(testFile)) {
        for (const step of test.steps) {
          for (const operation of [...step.try, ...step.catch, ...step.finally]) {
            if (!['apply', 'create', 'update'].includes(operation.type) || !('file' in operation) || !operation.file) {
              continue;
            }
            const file = resolveBinding(operation.file, [...operation.bindings, ...step.bindings, ...test.bindings]);
            if (!file) continue;
            const path = join(test.folder, file);
            if (!existsSync(path) || judged.has(`${path} ${expectsError(operation)}`)) continue;
            judged.add(`${path} ${expectsError(operation)}`);
            const label = relative(root, path);
            for (const doc of kyvernoDocuments(path)) {
              const why = judge(label, doc, tally);
              const expected = EXPECTED_REFUSALS[label];
              if (expected) {
                if (why) refusedAsExpected.push(label);
                else tally.refused.push(`${label}: accepted, but Kyverno's CRD refuses it (${expected})`);
              } else if (why) {
                const hint = expectsError(operation)
                  ? ' (the step expects an error: list it above with the reason)'
                  : '';
                tally.refused.push(`${label}: ${why}${hint}`);
              }
            }
          }
        }
      }
    }
    console.log(
      `chainsaw: ${tally.checked} documents checked, ${tally.accepted} accepted, ` +
        `${refusedAsExpected.length} refused as expected, ${tally.unserved.length} of a version no CRD serves`,
    );
    expect(tally.refused, tally.refused.join('\n')).toEqual([]);
    expect(refusedAsExpected.sort()).toEqual(Object.keys(EXPECTED_REFUSALS).sort());
    expect(tally.checked).toBeGreaterThan(300);
  });
});

import { type KubeObject, errorMessage } from '@edict/foundation';
import { checkSubject, type Check } from './check-types';
import { ExpectedFiles, sameGeneratedObject, sameObject } from './compare-resources';
import type { FoundRule, ResponseIndex } from './response-index';
import { celPolicyNames } from './cel-documents';
import { payloadObject } from './cel-resource';
import { namesRule, resolveNamedResources } from './resource-match';
import type { ExpectedResult, LoadedTest } from './types';

/**
 * The strict verdict: each results[] entry gives one check per resource it names. The resource must
 * exist; every response of the named rule (or its autogen copies) must report the expected result;
 * no response at all passes only for `skip`; patched and generated objects must be in the expected
 * file and equal the actual ones once nulls and empty values are dropped. For Kyverno's CEL policies
 * and ValidatingAdmissionPolicies every response of the policy counts, whatever the entry's rule,
 * and an entry naming no resource (JSON payloads) checks every trigger the policy answered for.
 */
export function strictChecks(test: LoadedTest, index: ResponseIndex, files: ExpectedFiles): Check[] {
  const candidates = [
    ...test.resources,
    ...test.targetResources,
    ...test.jsonPayloads.map((payload) => payloadObject(payload.value, payload.file)),
  ];
  const celPolicies = celPolicyNames(test.cel);
  return test.definition.results.flatMap((entry) =>
    namesOf(entry, celPolicies, index).map((name) => strictCheck(entry, name, candidates, index, files)),
  );
}

/** The resource names an entry checks: those it lists, or for a CEL policy listing none, every trigger it answered for. */
function namesOf(entry: ExpectedResult, celPolicies: ReadonlySet<string>, index: ResponseIndex): string[] {
  if (entry.resources.length > 0 || !celPolicies.has(entry.policy)) return entry.resources;
  const triggers = [...new Set(index.forEntry(entry).map((record) => record.resource.metadata.name ?? ''))];
  return triggers.length > 0 ? triggers : ['(any)'];
}

function strictCheck(
  entry: ExpectedResult,
  name: string,
  candidates: readonly KubeObject[],
  index: ResponseIndex,
  files: ExpectedFiles,
): Check {
  const base = checkSubject(entry, name);
  const fail = (got: string, reason: string, message: string): Check => ({
    ...base,
    got,
    passed: false,
    reason,
    message,
  });
  const objects = resolveNamedResources(entry, name, candidates);
  if (objects.length === 0)
    return fail('', 'Not found', `no resource named ${name}${entry.kind ? ` of kind ${entry.kind}` : ''} in the test`);

  const rules = objects
    .flatMap((object) => index.rulesFor(entry, object))
    // A CEL policy's responses answer for the policy as a whole: the entry's rule is not matched.
    .filter((found) => found.record.celKind !== undefined || namesRule(entry.rule, found.rule.name));
  if (rules.length === 0) {
    if (entry.result === 'skip') return { ...base, got: '', passed: true, reason: 'Ok', message: 'no rule applied' };
    return fail('', 'No result', `no response from rule ${entry.rule || '(any)'} of policy ${entry.policy}`);
  }
  const results = rules.map(({ record, rule }) => record.resultOf(rule));
  const got = [...new Set(results)].join(',');
  const message = [...new Set(rules.map(({ rule }) => rule.message).filter((m) => m))].join('; ');
  if (results.some((result) => result !== entry.result)) return fail(got, `Want ${entry.result}, got ${got}`, message);

  try {
    const patched = entry.patchedResources ? comparePatched(entry.patchedResources, rules, files) : undefined;
    if (patched) return fail(got, 'Resource diff', patched);
    const generated = entry.generatedResource ? compareGenerated(entry.generatedResource, rules, files) : undefined;
    if (generated) return fail(got, 'Resource diff', generated);
  } catch (error) {
    return fail(got, 'Resource error', errorMessage(error));
  }
  return { ...base, got, passed: true, reason: 'Ok', message };
}

/** Returns what differs, or undefined when the patched object matches the expected file. */
function comparePatched(path: string, rules: readonly FoundRule[], files: ExpectedFiles): string | undefined {
  const actuals = new Map<string, KubeObject>();
  for (const { record, patchedTarget } of rules) {
    const actual = patchedTarget ?? (record.stage === 'mutate' ? record.patchedResource : undefined);
    if (actual) actuals.set(JSON.stringify([actual.kind, actual.metadata.namespace, actual.metadata.name]), actual);
  }
  if (actuals.size === 0) return `no patched resource was produced to compare with ${path}`;
  for (const actual of actuals.values()) {
    const expected = files.find(path, actual);
    if (!expected)
      return `${path} holds no ${actual.kind} ${actual.metadata.namespace ?? ''}/${actual.metadata.name ?? ''}`;
    if (!sameObject(expected, actual))
      return `patched ${actual.kind} ${actual.metadata.name ?? ''} differs from ${path}`;
  }
  return undefined;
}

function compareGenerated(path: string, rules: readonly FoundRule[], files: ExpectedFiles): string | undefined {
  const generated = rules.flatMap(({ rule }) => rule.generatedResources ?? []);
  const expectedObjects = files.objects(path);
  if (expectedObjects.length === 0) return `${path} holds no object`;
  for (const expected of expectedObjects) {
    const actual = generated.find((object) => files.find(path, object) === expected);
    if (!actual)
      return `no rule generated ${expected.kind} ${expected.metadata.namespace ?? ''}/${expected.metadata.name ?? ''}`;
    if (!sameGeneratedObject(expected, actual))
      return `generated ${expected.kind} ${expected.metadata.name ?? ''} differs from ${path}`;
  }
  return undefined;
}

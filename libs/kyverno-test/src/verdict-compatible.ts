import type { RuleResponse } from '@edict/engine';
import { type KubeObject, errorMessage } from '@edict/foundation';
import { checkSubject, type Check, type CheckSubject } from './check-types';
import { ExpectedFiles, sameGeneratedObject, sameObject } from './compare-resources';
import type { EvaluatedResponse } from './evaluate';
import { reportResult } from './report-result';
import type { ResponseIndex } from './response-index';
import { namesResource, namesRule } from './resource-match';
import type { ExpectedResult, LoadedTest } from './types';

/*
 * The Kyverno-compatible verdict reproduces Kyverno's CLI, one check per table row:
 * - a policy response of the entry's kind whose resource carries the name gives one row per rule
 *   response of the named rule; a policy response without such a rule is a passing "Excluded" row;
 * - when the name matches no response, every response of that policy and kind is checked instead;
 * - no response at all is a failing "Not found" row;
 * - an expected patched/generated file that lacks the object is ignored (for a trigger's patched
 *   object, the row passes without looking at the result).
 */
export function compatibleChecks(test: LoadedTest, index: ResponseIndex, files: ExpectedFiles): Check[] {
  return test.definition.results.flatMap((entry) =>
    entry.resources.flatMap((name) => compatibleRows(entry, name, index, files)),
  );
}

function compatibleRows(entry: ExpectedResult, name: string, index: ResponseIndex, files: ExpectedFiles): Check[] {
  const base = checkSubject(entry, name);
  const ofKind = index.forEntry(entry).filter((record) => record.resource.kind === entry.kind);
  const named = ofKind.filter((record) => namesResource(name, record.resource, entry.namespace));
  const targets = targetRules(index.forEntry(entry), entry, name);
  // A name that matches nothing makes Kyverno check every response of the policy and kind.
  const records = named.length > 0 || targets.length > 0 ? named : ofKind;
  if (records.length === 0 && targets.length === 0) {
    return [{ ...base, got: '', passed: false, reason: 'Not found', message: 'Not found' }];
  }
  const rows: Check[] = [];
  for (const record of records) {
    const rules = record.response.rules.filter((rule) => namesRule(entry.rule, rule.name));
    if (rules.length === 0) rows.push({ ...base, got: '', passed: true, reason: 'Excluded', message: 'Excluded' });
    for (const rule of rules)
      rows.push(
        row(base, entry, record, rule, record.stage === 'generate' ? undefined : record.patchedResource, files),
      );
  }
  for (const { record, rule, target } of targets) rows.push(row(base, entry, record, rule, target, files, true));
  return rows;
}

function row(
  base: CheckSubject,
  entry: ExpectedResult,
  record: EvaluatedResponse,
  rule: RuleResponse,
  patched: KubeObject | undefined,
  files: ExpectedFiles,
  target = false,
): Check {
  const got = reportResult(record.policy, record.response, rule);
  try {
    if (entry.patchedResources && patched) {
      const expected = files.find(entry.patchedResources, patched);
      // Kyverno drops the row of a trigger whose object the expected file lacks, result unchecked.
      if (!expected && !target)
        return { ...base, got, passed: true, reason: 'Ignored', message: 'not found in the expected file' };
      if (expected && !sameObject(expected, patched)) {
        return {
          ...base,
          got,
          passed: false,
          reason: 'Resource diff',
          message: "Patched resource didn't match the patched resource in the test result",
        };
      }
    }
    if (entry.generatedResource) {
      for (const generated of rule.generatedResources ?? []) {
        const expected = files.find(entry.generatedResource, generated);
        if (expected && !sameGeneratedObject(expected, generated)) {
          return {
            ...base,
            got,
            passed: false,
            reason: 'Resource diff',
            message: "Generated resource didn't match the generated resource in the test result",
          };
        }
      }
    }
  } catch (error) {
    return { ...base, got, passed: false, reason: 'Resource error', message: errorMessage(error) };
  }
  const passed = got === entry.result;
  return { ...base, got, passed, reason: passed ? 'Ok' : `Want ${entry.result}, got ${got}`, message: rule.message };
}

/** Rule responses that patched a target carrying the name (mutate-existing results name their targets). */
function targetRules(records: readonly EvaluatedResponse[], entry: ExpectedResult, name: string) {
  const found: { record: EvaluatedResponse; rule: RuleResponse; target: KubeObject }[] = [];
  for (const record of records) {
    for (const rule of record.response.rules) {
      if (!namesRule(entry.rule, rule.name)) continue;
      for (const target of rule.patchedTargets ?? []) {
        if ((entry.kind === '' || target.kind === entry.kind) && namesResource(name, target, entry.namespace))
          found.push({ record, rule, target });
      }
    }
  }
  return found;
}

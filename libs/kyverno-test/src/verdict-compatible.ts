import type { RuleResponse } from '@edict/engine';
import { type KubeObject, errorMessage } from '@edict/foundation';
import { celPolicyNames } from './cel-documents';
import { checkSubject, type Check, type CheckSubject } from './check-types';
import { ExpectedFiles, sameGeneratedObject, sameObject } from './compare-resources';
import type { IndexedResponse, ResponseIndex } from './response-index';
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
  const celPolicies = celPolicyNames(test.cel);
  return test.definition.results.flatMap((entry) => {
    // An entry naming no resource checks every trigger (Kyverno's CLI does so for its CEL policies' JSON payloads).
    if (entry.resources.length === 0 && celPolicies.has(entry.policy)) {
      const records = index.forEntry(entry);
      if (records.length === 0) return compatibleRows(entry, '', index, files);
      return records.flatMap((record) =>
        rowsFor(entry, checkSubject(entry, record.resource.metadata.name ?? ''), [record], files),
      );
    }
    return entry.resources.flatMap((name) => compatibleRows(entry, name, index, files));
  });
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
  const rows = rowsFor(entry, base, records, files);
  for (const { record, rule, target } of targets) rows.push(row(base, entry, record, rule, target, files, true));
  return rows;
}

/** One row per rule response the entry checks; a response without one is a passing "Excluded" row. */
function rowsFor(
  entry: ExpectedResult,
  base: CheckSubject,
  records: readonly IndexedResponse[],
  files: ExpectedFiles,
): Check[] {
  // Kyverno's CLI checks rule names unless the entry flags a CEL kind of policy (isValidatingPolicy, ...).
  const namesRuleOf = (rule: RuleResponse) => entry.celKind !== undefined || namesRule(entry.rule, rule.name);
  const rows: Check[] = [];
  for (const record of records) {
    const rules = record.response.rules.filter(namesRuleOf);
    if (rules.length === 0) rows.push({ ...base, got: '', passed: true, reason: 'Excluded', message: 'Excluded' });
    for (const rule of rules)
      rows.push(
        row(base, entry, record, rule, record.stage === 'generate' ? undefined : record.patchedResource, files),
      );
  }
  return rows;
}

function row(
  base: CheckSubject,
  entry: ExpectedResult,
  record: IndexedResponse,
  rule: RuleResponse,
  patched: KubeObject | undefined,
  files: ExpectedFiles,
  target = false,
): Check {
  const got = record.resultOf(rule);
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
function targetRules(records: readonly IndexedResponse[], entry: ExpectedResult, name: string) {
  const found: { record: IndexedResponse; rule: RuleResponse; target: KubeObject }[] = [];
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

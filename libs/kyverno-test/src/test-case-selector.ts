/**
 * `kyverno test --test-case-selector "policy=<p>,rule=<r>,resource=<name>"`: which `results[]` entries
 * of a test are checked, as Kyverno's CLI filters them. Each value is a Kyverno wildcard; an entry
 * that names no policy, no rule or no resources passes that part; a test with no entry left is
 * skipped. Malformed parts are reported (Kyverno prints them and goes on with the valid parts).
 */
import { wildcardMatch } from '@edict/foundation';
import type { ExpectedResult } from './types';

export type TestCaseSelector = (result: ExpectedResult) => boolean;

/** Kyverno's default: every test case. */
export const DEFAULT_TEST_CASE_SELECTOR = 'policy=*,rule=*,resource=*';

/** Longest selector read: the flag is typed by hand. */
const MAX_SELECTOR_LENGTH = 4096;

export function parseTestCaseSelector(input: string): { selector: TestCaseSelector; errors: string[] } {
  const parts: TestCaseSelector[] = [];
  const errors: string[] = [];
  if (input.length > MAX_SELECTOR_LENGTH) {
    errors.push(`Invalid test-case-selector: longer than ${MAX_SELECTOR_LENGTH} characters.`);
    return { selector: () => true, errors };
  }
  for (const item of input === '' ? [] : input.split(',')) {
    const pair = item.split('=');
    if (pair.length !== 2) {
      errors.push(`Invalid test-case-selector argument (${item}). Parameter must be in the form \`<key>=<value>\`.`);
      continue;
    }
    const key = pair[0]!.trim();
    const value = pair[1]!.trim();
    if (key === 'policy') parts.push((r) => r.policy === '' || wildcardMatch(value, r.policy));
    else if (key === 'rule') parts.push((r) => r.rule === '' || wildcardMatch(value, r.rule));
    else if (key === 'resource')
      parts.push((r) => r.resources.length === 0 || r.resources.some((name) => wildcardMatch(value, name)));
    else errors.push(`Invalid test-case-selector (${item}). Parameter can only be policy, rule or resource.`);
  }
  return { selector: (result) => parts.every((part) => part(result)), errors };
}

import { deepEqual, isObject, setOwn, type JsonObject, type JsonValue } from '@edict/foundation';
import type { Policy, Rule } from '../policy';
import type { PolicyCheck } from './check-context';

const NO_SYNC = 'no synchronization will be performed to the old target resource upon policy updates: ';
const STALE_TARGETS = 'changes in the generate rule pattern could result in stale targets';

interface GenerateRuleParts {
  name: string;
  /** The rule without `generate`; without `match` too unless the old policy synchronizes. */
  immutable: JsonObject;
  /** What the rule generates: target and clone source (data, foreach and the flags may change). */
  pattern: JsonObject;
}

/**
 * Kyverno's check of an update to a policy with generate rules: the background controller tracks
 * downstream resources by rule, so changing what a rule generates (its target or clone source) is
 * admitted with a warning that old targets are no longer synchronized, and changing the rest of a
 * generate rule (name, match when it synchronizes, exclude, preconditions, context...) is refused.
 */
export function checkGenerateUpdate(c: PolicyCheck, previous: Policy): void {
  const oldRules = previous.spec?.rules;
  const newRules = c.policy.spec.rules;
  if (!Array.isArray(oldRules)) return;
  const synchronizing = oldRules.some((rule) => isObject(rule?.generate) && rule.generate.synchronize === true);
  const before = generateRules(oldRules, synchronizing);
  const after = generateRules(newRules, synchronizing);

  if (!before.every((old) => after.some((r) => deepEqual(r.pattern, old.pattern)))) {
    c.findings.warning(['spec', 'rules'], NO_SYNC + STALE_TARGETS);
    return;
  }
  const changed = before
    .filter((old) => !after.some((r) => deepEqual(r.immutable, old.immutable)))
    .map((old) => describeChange(old, after))
    .sort();
  if (changed.length === 0) return;
  // Kyverno adds its warning prefix (with nothing after it) to this refusal too.
  c.findings.warning(['spec', 'rules'], NO_SYNC);
  c.findings.error(
    [],
    `changes of immutable fields of a rule spec in a generate rule is disallowed: ${changed.join(', ')}; add a new rule instead of changing the existing one, or delete and recreate the policy`,
  );
}

function describeChange(old: GenerateRuleParts, after: readonly GenerateRuleParts[]): string {
  const renamed = after.find((r) => r.name === old.name);
  if (!renamed) return `rule ${JSON.stringify(old.name)} was removed or renamed`;
  const fields = new Set([...Object.keys(old.immutable), ...Object.keys(renamed.immutable)]);
  const differing = [...fields].filter((f) => !deepEqual(old.immutable[f], renamed.immutable[f])).sort();
  return `rule ${JSON.stringify(old.name)} changed fields [${differing.join(', ')}]`;
}

function generateRules(rules: readonly Rule[], synchronizing: boolean): GenerateRuleParts[] {
  return rules.flatMap((rule) => {
    if (!isObject(rule) || !isObject(rule.generate)) return [];
    const { generate, ...rest } = JSON.parse(JSON.stringify(rule)) as JsonObject;
    if (!synchronizing) delete rest.match;
    const g = generate as JsonObject;
    const pattern: JsonObject = {};
    for (const field of ['apiVersion', 'kind', 'name', 'namespace', 'uid', 'clone', 'cloneList']) {
      const value = withoutEmpty(g[field]);
      if (value !== undefined) pattern[field] = value;
    }
    return [{ name: typeof rule.name === 'string' ? rule.name : '', immutable: rest, pattern }];
  });
}

/** Drops empty strings, lists and objects, as Go's `omitempty` leaves them out of the compared JSON. */
function withoutEmpty(value: JsonValue | undefined): JsonValue | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (Array.isArray(value)) return value.length === 0 ? undefined : value;
  if (!isObject(value)) return value;
  const out: JsonObject = {};
  for (const [key, item] of Object.entries(value)) {
    const kept = withoutEmpty(item);
    if (kept !== undefined) setOwn(out, key, kept);
  }
  return Object.keys(out).length === 0 ? undefined : out;
}

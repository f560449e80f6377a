/**
 * Per-rule facts the index needs, computed once per compiled policy: the rule's types, the kinds its
 * `match` selects and the operations it is limited to. Exclude blocks only narrow a match, so they
 * never add candidates and are left to the engine.
 */
import { hasVerifyImages, type MatchResources, type ResourceDescription, type Rule } from '@edict/engine';
import type { PolicyRuleType } from './types';

export interface RuleFacts {
  readonly name: string;
  readonly types: readonly PolicyRuleType[];
  /** Every `kinds` entry of the rule's match (legacy `resources`, `any`, `all`). */
  readonly kinds: readonly string[];
  /** Operations the rule may match; undefined means any. */
  readonly operations?: ReadonlySet<string>;
}

export function ruleTypesOf(rule: Rule): PolicyRuleType[] {
  const types: PolicyRuleType[] = [];
  if (rule.validate) types.push('validate');
  if (rule.mutate) types.push(rule.mutate.targets && rule.mutate.targets.length > 0 ? 'mutate-existing' : 'mutate');
  if (rule.generate) types.push('generate');
  if (hasVerifyImages(rule)) types.push('verify-images');
  return types;
}

export function factsOf(rule: Rule): RuleFacts {
  const match: MatchResources = rule.match ?? {};
  const descriptions: ResourceDescription[] = [];
  if (match.resources) descriptions.push(match.resources);
  for (const filter of [...(match.any ?? []), ...(match.all ?? [])])
    if (filter?.resources) descriptions.push(filter.resources);
  const kinds = descriptions.flatMap((d) =>
    Array.isArray(d.kinds) ? d.kinds.filter((k) => typeof k === 'string') : [],
  );
  const operations = operationsOf(match);
  return { name: rule.name, types: ruleTypesOf(rule), kinds, ...(operations ? { operations } : {}) };
}

/**
 * The operations a match can select, conservatively (a superset): a filter without `operations`
 * allows every operation; `any` allows what one of its filters allows; `all` and the legacy block
 * allow only what every filter naming operations allows.
 */
function operationsOf(match: MatchResources): Set<string> | undefined {
  let allowed: Set<string> | undefined; // undefined = any operation
  const narrow = (ops: readonly string[] | undefined): void => {
    if (!Array.isArray(ops) || ops.length === 0) return;
    const next = new Set(ops);
    allowed = allowed ? new Set([...allowed].filter((op) => next.has(op))) : next;
  };
  narrow(match.resources?.operations);
  for (const filter of match.all ?? []) narrow(filter?.resources?.operations);
  const any = match.any ?? [];
  if (any.length > 0) {
    if (
      any.some((filter) => !Array.isArray(filter?.resources?.operations) || filter.resources!.operations!.length === 0)
    ) {
      return allowed;
    }
    narrow([...new Set(any.flatMap((filter) => filter.resources!.operations!))]);
  }
  return allowed;
}

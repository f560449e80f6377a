/**
 * An immutable view of the policies and exceptions at one moment. A request reads one snapshot from
 * start to end; changes build a new snapshot and swap it in, so readers never see half an update.
 *
 * Policies are indexed per rule type by the kind names their match selects; entries whose kind has a
 * wildcard (`*`, `Pod*`, `*\/scale`) sit in a per-type list checked on every query. Candidates are
 * then checked precisely with the engine's own kind matcher, the operation and the namespace, and
 * answered in key order (Kyverno's cache answers sorted by key, which fixes the mutation order).
 * Answers are memoised per snapshot, since requests repeat the same few shapes.
 */
import { type PolicyException } from '@edict/engine';
import { hasWildcard, kindMatches, parseKind } from '@edict/foundation';
import { factsOf, type RuleFacts } from './rule-facts';
import {
  POLICY_RULE_TYPES,
  type CachedException,
  type CachedPolicy,
  type InvalidPolicy,
  type PolicyQuery,
  type PolicyRuleType,
} from './types';

interface IndexEntry {
  readonly policy: CachedPolicy;
  /** The policy's rules of one type. */
  readonly rules: readonly RuleFacts[];
}

interface TypeIndex {
  readonly byKind: Map<string, IndexEntry[]>;
  readonly wildcard: IndexEntry[];
}

const MAX_MEMOISED = 2_000;

export class PolicySnapshot {
  private readonly index = new Map<PolicyRuleType, TypeIndex>();
  private readonly memo = new Map<string, readonly CachedPolicy[]>();
  /** Exceptions in force (namespace allowed), for the engine. */
  readonly exceptions: readonly PolicyException[];

  constructor(
    /** Valid policies, by key. */
    readonly policies: ReadonlyMap<string, CachedPolicy>,
    readonly invalid: ReadonlyMap<string, InvalidPolicy>,
    readonly allExceptions: ReadonlyMap<string, CachedException>,
    readonly generation: number,
  ) {
    this.exceptions = Object.freeze([...allExceptions.values()].filter((e) => e.used).map((e) => e.exception));
    for (const type of POLICY_RULE_TYPES) this.index.set(type, { byKind: new Map(), wildcard: [] });
    const sorted = [...policies.values()].sort((a, b) => compareKeys(a.key, b.key));
    for (const policy of sorted) this.add(policy);
  }

  static empty(): PolicySnapshot {
    return new PolicySnapshot(new Map(), new Map(), new Map(), 0);
  }

  /** The policies with rules of `query.type` that may apply to the request, in key order. */
  policiesFor(query: PolicyQuery): readonly CachedPolicy[] {
    const memoKey = [
      query.type,
      query.failurePolicy ?? '',
      query.group,
      query.version,
      query.kind,
      query.subresource ?? '',
      query.operation,
      query.namespace ?? '',
    ].join('\u0000');
    let answer = this.memo.get(memoKey);
    if (!answer) {
      answer = Object.freeze(this.lookup(query));
      if (this.memo.size >= MAX_MEMOISED) this.memo.clear();
      this.memo.set(memoKey, answer);
    }
    return answer;
  }

  private lookup(query: PolicyQuery): CachedPolicy[] {
    const typeIndex = this.index.get(query.type);
    if (!typeIndex) return [];
    const exact = typeIndex.byKind.get(query.kind) ?? [];
    const candidates = typeIndex.wildcard.length === 0 ? exact : mergeByKey(exact, typeIndex.wildcard);
    const gvk = { group: query.group, version: query.version, kind: query.kind };
    const subresource = query.subresource ?? '';
    const namespace = query.namespace ?? '';
    const found: CachedPolicy[] = [];
    for (const { policy, rules } of candidates) {
      if (!policy.admission) continue;
      if (query.failurePolicy && policy.failurePolicy !== query.failurePolicy) continue;
      if (policy.namespace !== undefined && policy.namespace !== namespace) continue;
      const applies = rules.some(
        (rule) =>
          (!rule.operations || rule.operations.has(query.operation)) && kindMatches(rule.kinds, gvk, subresource, true),
      );
      if (applies) found.push(policy);
    }
    return found;
  }

  /** Whether a policy's match names this kind literally (not through a wildcard), in any rule type. */
  namesKind(kind: string): boolean {
    for (const typeIndex of this.index.values()) if (typeIndex.byKind.has(kind)) return true;
    return false;
  }

  private add(policy: CachedPolicy): void {
    const facts = policy.compiled.policy.spec.rules.map(factsOf);
    for (const type of POLICY_RULE_TYPES) {
      const rules = facts.filter((rule) => rule.types.includes(type));
      if (rules.length === 0) continue;
      const entry: IndexEntry = { policy, rules };
      const typeIndex = this.index.get(type)!;
      const kinds = new Set<string>();
      let wildcard = false;
      for (const rule of rules) {
        for (const selector of rule.kinds) {
          const kind = parseKind(selector).kind;
          if (kind === '') continue; // selects nothing
          if (hasWildcard(kind)) wildcard = true;
          else kinds.add(kind);
        }
      }
      if (wildcard) typeIndex.wildcard.push(entry);
      else for (const kind of kinds) push(typeIndex.byKind, kind, entry);
    }
  }
}

/** Go's string order (bytes), as Kyverno sorts keys. */
export function compareKeys(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/** Merges two key-sorted lists (a policy is in at most one of them per type). */
function mergeByKey(a: readonly IndexEntry[], b: readonly IndexEntry[]): IndexEntry[] {
  const out: IndexEntry[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length && j < b.length) {
    out.push(compareKeys(a[i]!.policy.key, b[j]!.policy.key) <= 0 ? a[i++]! : b[j++]!);
  }
  while (i < a.length) out.push(a[i++]!);
  while (j < b.length) out.push(b[j++]!);
  return out;
}

import type { GroupVersionKind } from '@edict/foundation';
import type { KindGate } from '../match';
import type { Rule } from '../policy/types';

/** Kinds remembered per rule list; past this many, the oldest is dropped (kinds come from requests). */
const MAX_KINDS = 16;

interface KindRules {
  readonly group: string;
  readonly version: string;
  readonly kind: string;
  readonly subresource: string;
  readonly rules: readonly Rule[];
}

/**
 * A policy's rule lists narrowed to the rules whose match can hold for a request's kind, worked out
 * once per kind: a Pod request does not check, rule by rule, the kinds of the autogen rules
 * written for Deployments and CronJobs. Rules without a kind gate (matched by the interpreter)
 * are always kept; the rules kept are then matched in full, in their order.
 */
export class RulesByKind {
  private readonly lists = new WeakMap<readonly Rule[], KindRules[]>();

  constructor(private readonly gates: ReadonlyMap<Rule, KindGate>) {}

  select(rules: readonly Rule[], gvk: GroupVersionKind, subresource: string): readonly Rule[] {
    if (this.gates.size === 0) return rules;
    let known = this.lists.get(rules);
    if (!known) {
      known = [];
      this.lists.set(rules, known);
    }
    for (const entry of known) {
      if (
        entry.kind === gvk.kind &&
        entry.group === gvk.group &&
        entry.version === gvk.version &&
        entry.subresource === subresource
      )
        return entry.rules;
    }
    const selected = rules.filter((rule) => {
      const gate = this.gates.get(rule);
      return !gate || gate(gvk, subresource);
    });
    if (known.length >= MAX_KINDS) known.shift();
    known.push({ group: gvk.group, version: gvk.version, kind: gvk.kind, subresource, rules: selected });
    return selected;
  }
}

/**
 * How Kyverno walks one pattern map: which keys are anchors, and in which order keys are checked.
 * The order decides which failure is reported (and whether a skip wins over a failure), so it
 * follows Kyverno exactly:
 *   1. condition, existence, equality and negation anchors, sorted by key;
 *   2. then the remaining keys: global anchors and keys whose subtree holds an anchor come first
 *      (in reverse sorted order, as Kyverno pushes each to the front), then the others, sorted.
 * Plans are cached per pattern object (patterns are immutable once substituted).
 */
import type { JsonObject, JsonValue } from '../json';
import { isObject } from '../json';
import { isLeadingAnchor, isOrderingAnchor, parseAnchor, type Anchor } from './anchor';

export interface PatternEntry {
  /** The key as written in the pattern, e.g. `=(securityContext)`. */
  readonly rawKey: string;
  readonly anchor: Anchor | undefined;
  readonly value: JsonValue;
}

export interface MapPlan {
  readonly leadingAnchors: readonly PatternEntry[];
  readonly others: readonly PatternEntry[];
  /** Condition and existence anchors: Kyverno notes whether their key was ever seen in the resource. */
  readonly tracked: readonly PatternEntry[];
  /** Whether this map itself has an anchor key (any kind but `+`). */
  readonly hasAnchor: boolean;
}

const plans = new WeakMap<JsonObject, MapPlan>();
const anchoredSubtrees = new WeakMap<object, boolean>();

function byKey(a: PatternEntry, b: PatternEntry): number {
  return a.rawKey < b.rawKey ? -1 : a.rawKey > b.rawKey ? 1 : 0;
}

export function planFor(pattern: JsonObject): MapPlan {
  let plan = plans.get(pattern);
  if (!plan) {
    plan = buildPlan(pattern);
    plans.set(pattern, plan);
  }
  return plan;
}

function buildPlan(pattern: JsonObject): MapPlan {
  const leadingAnchors: PatternEntry[] = [];
  const rest: PatternEntry[] = [];
  const tracked: PatternEntry[] = [];
  let hasAnchor = false;
  for (const rawKey of Object.keys(pattern)) {
    const anchor = parseAnchor(rawKey);
    const entry: PatternEntry = { rawKey, anchor, value: pattern[rawKey]! };
    if (isOrderingAnchor(anchor)) hasAnchor = true;
    if (anchor && (anchor.modifier === '' || anchor.modifier === '^')) tracked.push(entry);
    (isLeadingAnchor(anchor) ? leadingAnchors : rest).push(entry);
  }
  leadingAnchors.sort(byKey);
  rest.sort(byKey);
  const front: PatternEntry[] = [];
  const back: PatternEntry[] = [];
  for (const entry of rest) {
    if (entry.anchor?.modifier === '<' || holdsAnchor(entry.value)) front.unshift(entry);
    else back.push(entry);
  }
  return { leadingAnchors, others: front.concat(back), tracked, hasAnchor };
}

/** Whether a pattern subtree contains an anchor key anywhere. */
export function holdsAnchor(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object') return false;
  let known = anchoredSubtrees.get(value);
  if (known === undefined) {
    known = isObject(value)
      ? planFor(value).hasAnchor || Object.values(value).some(holdsAnchor)
      : value.some(holdsAnchor);
    anchoredSubtrees.set(value, known);
  }
  return known;
}

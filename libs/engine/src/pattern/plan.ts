/**
 * How Kyverno walks one pattern map: which keys are anchors, and in which order keys are checked.
 * The order decides which failure is reported (and whether a skip wins over a failure), so it
 * follows Kyverno exactly:
 *   1. condition, existence, equality and negation anchors, sorted by key;
 *   2. then the remaining keys: global anchors and keys whose subtree holds an anchor come first
 *      (in reverse sorted order, as Kyverno pushes each to the front), then the others, sorted.
 * Plans also carry what the walk would otherwise recompute per request (compiled string leaves,
 * where `metadata`/`labels`/`annotations` sit). A plan is cached on its pattern object under a
 * private symbol (invisible to JSON, `Object.keys` and equality checks), so a pattern must not be
 * mutated once matched. A WeakMap would do, but its entries make garbage collection expensive
 * for patterns rebuilt per request (variable substitution), which is the hot path.
 */
import { isObject, type JsonObject, type JsonValue, hasWildcard } from '@edict/foundation';
import { isLeadingAnchor, isOrderingAnchor, parseAnchor, type Anchor } from './anchor';
import { compileStringPattern, type StringPattern } from './leaf';

export interface PatternEntry {
  /** The key as written in the pattern, e.g. `=(securityContext)`. */
  readonly rawKey: string;
  readonly anchor: Anchor | undefined;
  readonly value: JsonValue;
  /** What the entry appends to the path: the resource key and a slash. */
  readonly pathSegment: string;
  /** The compiled form of a string value. */
  readonly leaf: StringPattern | undefined;
  /** The plan of a map value, so the walk does not look it up at every step. */
  readonly plan: MapPlan | undefined;
}

export interface MapPlan {
  /** Every entry, in evaluation order. */
  readonly entries: readonly PatternEntry[];
  /** Condition and existence anchors: Kyverno notes whether their key was ever seen in the resource. */
  readonly tracked: readonly PatternEntry[];
  /** Whether this map or anything below it has an anchor key (any kind but `+`). */
  readonly holdsAnchor: boolean;
  /** The keys Kyverno finds for these tags (plain or behind an anchor), for metadata wildcard expansion. */
  readonly metadataKey: string | undefined;
  readonly labelsKey: string | undefined;
  readonly annotationsKey: string | undefined;
  /** As a labels/annotations pattern: would expansion change it (wildcard keys or non-string values)? */
  readonly expandable: boolean;
  /**
   * This map's metadata wildcard expansions built so far, by the keys they chose (filled by
   * `expandMetadataWildcards`, bounded there), so resources alike reuse one expanded pattern and its plan.
   */
  expansions?: Map<string, JsonObject>;
}

const PLAN = Symbol('pattern plan');
/** For frozen patterns, which cannot carry the symbol. */
const frozenPlans = new WeakMap<JsonObject, MapPlan>();

type WithPlan = JsonObject & { [PLAN]?: MapPlan };

function byKey(a: PatternEntry, b: PatternEntry): number {
  return a.rawKey < b.rawKey ? -1 : a.rawKey > b.rawKey ? 1 : 0;
}

export function planFor(pattern: JsonObject): MapPlan {
  const cached = (pattern as WithPlan)[PLAN] ?? frozenPlans.get(pattern);
  if (cached) return cached;
  const plan = buildPlan(pattern);
  if (Object.isExtensible(pattern)) {
    Object.defineProperty(pattern, PLAN, { value: plan, enumerable: false, writable: false, configurable: true });
  } else {
    frozenPlans.set(pattern, plan);
  }
  return plan;
}

function buildPlan(pattern: JsonObject): MapPlan {
  const leadingAnchors: PatternEntry[] = [];
  const rest: PatternEntry[] = [];
  const tracked: PatternEntry[] = [];
  const tagKeys = new Map<string, string>();
  let anchored = false;
  let expandable = false;
  for (const rawKey of Object.keys(pattern)) {
    const anchor = parseAnchor(rawKey);
    const value = pattern[rawKey]!;
    const plainKey = !anchor || anchor.modifier === '+';
    const entry: PatternEntry = {
      rawKey,
      anchor,
      value,
      pathSegment: (plainKey ? rawKey : anchor.key) + '/',
      leaf: typeof value === 'string' ? compileStringPattern(value) : undefined,
      plan: isObject(value) ? planFor(value) : undefined,
    };
    if (isOrderingAnchor(anchor) || holdsAnchor(value)) anchored = true;
    if (anchor && (anchor.modifier === '' || anchor.modifier === '^')) tracked.push(entry);
    (isLeadingAnchor(anchor) ? leadingAnchors : rest).push(entry);
    const tag = anchor ? anchor.key : rawKey;
    if (!tagKeys.has(tag)) tagKeys.set(tag, rawKey);
    if (typeof value !== 'string' || hasWildcard(rawKey)) expandable = true;
  }
  leadingAnchors.sort(byKey);
  rest.sort(byKey);
  const front: PatternEntry[] = [];
  const back: PatternEntry[] = [];
  for (const entry of rest) {
    if (entry.anchor?.modifier === '<' || holdsAnchor(entry.value)) front.unshift(entry);
    else back.push(entry);
  }
  return {
    entries: [...leadingAnchors, ...front, ...back],
    tracked,
    holdsAnchor: anchored,
    metadataKey: tagKeys.get('metadata'),
    labelsKey: tagKeys.get('labels'),
    annotationsKey: tagKeys.get('annotations'),
    expandable,
  };
}

/** Whether a pattern subtree contains an anchor key anywhere. */
export function holdsAnchor(value: JsonValue): boolean {
  if (value === null || typeof value !== 'object') return false;
  return Array.isArray(value) ? value.some(holdsAnchor) : planFor(value).holdsAnchor;
}
